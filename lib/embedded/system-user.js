import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import os from 'node:os'

const run = promisify(execFile)

/**
 * PostgreSQL refuses to run as root. As root, the embedded server runs as the
 * "postgres" system user, created when it does not exist yet.
 * @param {import('../log.js').Logger} log
 * @returns {Promise<{ uid: number, gid: number } | null>} null when not root
 */
export async function serverUser(log) {
  if (os.userInfo().uid !== 0) return null
  try {
    return await lookup()
  } catch {
    log.info('creating system user "postgres" to run the embedded server (PostgreSQL refuses to run as root)')
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'])
    return lookup()
  }
}

async function lookup() {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}
