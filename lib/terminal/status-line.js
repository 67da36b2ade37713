import readline from 'node:readline'
import stringWidth from 'string-width'
import { coloursFor, PLAIN } from './colours.js'
import { fit } from './table.js'

// A line at the bottom of a terminal that is redrawn in place: the
// progress of a run. Log lines written meanwhile go above it (the line is
// erased, the log line written, the line drawn again), so the writer of
// the log must go through write(). Node's readline moves the cursor and
// erases; the line is cut to the terminal's width, since a line that
// wrapped could not be erased whole.

/**
 * @typedef {object} TerminalStream
 * @property {(s: string) => unknown} write
 * @property {boolean} [isTTY]
 * @property {number} [columns]
 */

export class StatusLine {
  /**
   * @param {TerminalStream} stream   a terminal (isTTY)
   * @param {NodeJS.ProcessEnv} [env]
   */
  constructor(stream, env = process.env) {
    this.stream = stream
    this.colours = coloursFor(stream, env)
    /** @type {string | null} the line on the screen now */
    this.shown = null
  }

  /**
   * Draws the line, in place of the one before.
   * @param {(colours: import('./colours.js').Colours) => string} render
   */
  show(render) {
    const room = Math.max(20, (this.stream.columns ?? 80) - 1)
    const coloured = render(this.colours)
    const text = stringWidth(coloured) <= room ? coloured : fit(render(PLAIN), room)
    this.erase()
    this.stream.write(text)
    this.shown = text
  }

  /**
   * Text written above the line (a log line, with its newline).
   * @param {string} text
   */
  write(text) {
    const shown = this.shown
    this.erase()
    this.stream.write(text)
    if (shown !== null) {
      this.stream.write(shown)
      this.shown = shown
    }
  }

  /** Leaves the last line where it is, as an ordinary line: the run's last progress. */
  keep() {
    if (this.shown !== null) this.stream.write('\n')
    this.shown = null
  }

  /** @private */
  erase() {
    if (this.shown === null) return
    readline.cursorTo(/** @type {NodeJS.WritableStream} */ (/** @type {unknown} */ (this.stream)), 0)
    readline.clearLine(/** @type {NodeJS.WritableStream} */ (/** @type {unknown} */ (this.stream)), 0)
    this.shown = null
  }
}
