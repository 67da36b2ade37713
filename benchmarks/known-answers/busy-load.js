// A loaded machine on demand: processes that spin on the CPU for as long as
// the suite runs, so that a target met on a quiet machine is checked on a
// busy one too. Each spinner is a child process killed when the suite ends,
// on a normal end, an error or Ctrl-C alike.
import { spawn } from 'node:child_process'

/**
 * Starts n spinning processes; the returned function stops them all.
 * @param {number} n
 * @returns {() => void}
 */
export function startBusyLoad(n) {
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    process.off('exit', stop)
  }
  process.on('exit', stop)
  return stop
}
