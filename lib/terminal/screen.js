import { createLogger } from '../log.js'
import { coloursFor, PLAIN } from './colours.js'
import { StatusLine } from './status-line.js'

// stderr of a command that shows its progress and ends with a table: on a
// terminal the progress line is redrawn in place under the log lines; in a
// pipe or a file each progress line is a log line of its own, plain text.
// Progress shows at the info level and below; the end table is the
// result, shown at every level but silent.

const PROGRESS_LEVELS = new Set(['trace', 'debug', 'info'])

/**
 * @typedef {import('./status-line.js').TerminalStream} TerminalStream
 * @typedef {(colours: import('./colours.js').Colours) => string} Render
 */

export class Screen {
  /**
   * @param {{ stream: TerminalStream, level: import('../log.js').LevelName, env?: NodeJS.ProcessEnv }} options
   */
  constructor({ stream, level, env = process.env }) {
    this.stream = stream
    this.level = level
    this.env = env
    this.statusLine = stream.isTTY === true ? new StatusLine(stream, env) : null
    /** the log of the command: its lines go above the progress line */
    this.log = createLogger({ level, stream: this.statusLine ?? stream })
    this.showsProgress = PROGRESS_LEVELS.has(level)
  }

  /** Columns a table may take: the terminal's, else 80. */
  get width() {
    return this.statusLine ? Math.max(40, this.stream.columns ?? 80) : 80
  }

  /**
   * A progress line: in place on a terminal, a log line elsewhere.
   * @param {Render} render
   */
  progress(render) {
    if (!this.showsProgress) return
    if (this.statusLine) this.statusLine.show(render)
    else this.log.info(render(PLAIN))
  }

  /**
   * Lines of a result (an end table), below the last progress line.
   * @param {(colours: import('./colours.js').Colours, width: number) => string[]} render
   */
  print(render) {
    if (this.level === 'silent') return
    this.statusLine?.keep()
    const lines = render(this.statusLine ? coloursFor(this.stream, this.env) : PLAIN, this.width)
    this.stream.write(lines.map(line => `${line}\n`).join(''))
  }

  /** The last progress line stays on the terminal as an ordinary line. */
  end() {
    this.statusLine?.keep()
  }
}
