import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

// Which pgloadgen process answers for the server running on a data
// directory. A run killed outright (SIGKILL, an out-of-memory kill) cannot
// stop the server it started; the next run that finds the server with its
// owner gone takes it over and stops it at its end, so that a killed run
// does not leave a server holding its memory for good. A server whose owner
// is alive (another run, an experiment), or that no pgloadgen process
// started (pg_ctl by hand), is left alone.

const OWNER_FILE = 'pgloadgen.owner'

/**
 * The process id written in the data directory, or null.
 * @param {string} dataDir
 * @returns {Promise<number | null>}
 */
export async function readOwner(dataDir) {
  try {
    const pid = Number((await readFile(path.join(dataDir, OWNER_FILE), 'utf8')).trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/**
 * Writes pid as the owner, or removes the owner when pid is null.
 * @param {string} dataDir
 * @param {number | null} pid
 */
export async function writeOwner(dataDir, pid) {
  const file = path.join(dataDir, OWNER_FILE)
  if (pid === null) await rm(file, { force: true })
  else await writeFile(file, `${pid}\n`)
}

/**
 * The owner's process id when that process no longer exists, else null
 * (alive, or no owner written).
 * @param {string} dataDir
 * @returns {Promise<number | null>}
 */
export async function goneOwner(dataDir) {
  const pid = await readOwner(dataDir)
  if (pid === null || pid === process.pid) return null
  try {
    process.kill(pid, 0)
    return null
  } catch (err) {
    // EPERM: alive, under another user
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH' ? pid : null
  }
}
