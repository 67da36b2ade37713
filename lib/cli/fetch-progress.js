/**
 * How the fetch of a PostgreSQL major shows its progress: on a terminal, one
 * line rewritten in place as the bytes come; elsewhere (a log file, CI) the
 * start, with the size, and the end, as log lines, so that a log does not
 * fill with counts.
 * @param {import('../log.js').Logger} log
 * @param {NodeJS.WriteStream} [stream]
 * @returns {import('../embedded/install.js').FetchProgress}
 */
export function fetchProgress(log, stream = process.stderr) {
  return (line, stage) => {
    if (log.level === 'silent') return
    if (stream.isTTY) stream.write(`\r${line}\x1b[K${stage === 'end' ? '\n' : ''}`)
    else if (stage !== 'progress') log.info(line)
  }
}
