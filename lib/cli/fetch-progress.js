/**
 * How the fetch of a PostgreSQL major shows its progress: one line rewritten
 * in place on a terminal; elsewhere (a log file, CI) the start and the end
 * only, as log lines, so that a log does not fill with percentages.
 * @param {import('../log.js').Logger} log
 * @param {NodeJS.WriteStream} [stream]
 * @returns {(line: string, final: boolean) => void}
 */
export function fetchProgress (log, stream = process.stderr) {
  let started = false
  return (line, final) => {
    if (log.level === 'silent') return
    if (stream.isTTY) {
      stream.write(`\r${line}\x1b[K${final ? '\n' : ''}`)
      return
    }
    if (!started || final) log.info(line)
    started = !final
  }
}
