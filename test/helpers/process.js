/**
 * Whether a process exists (signal 0 checks without sending anything).
 * @param {number} pid
 */
export function isAlive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
