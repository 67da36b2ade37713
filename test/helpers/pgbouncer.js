// A real PgBouncer from Debian's package, started for a test in front of a
// database of the machine's PostgreSQL, in transaction pooling mode: the
// setup most production servers sit behind, where one client's statements
// can run on different server connections from one transaction to the next.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { serverUser } from '../../lib/embedded/system-user.js'
import { createLogger } from '../../lib/log.js'
import { installHint } from './tools.js'

const BINARY = '/usr/sbin/pgbouncer'

/**
 * Starts PgBouncer on a free port for the database of url (trust
 * authentication, as the machine's server has), stopped in teardown.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 * @param {string} url   the database behind the pooler
 * @param {{ poolMode?: 'session' | 'transaction' | 'statement', poolSize?: number }} [options]
 * @returns {Promise<{ url: string, port: number }>}  url: the same database through PgBouncer
 */
export async function startPgBouncer(t, url, { poolMode = 'transaction', poolSize = 4 } = {}) {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: ${installHint('pgbouncer')}`)
  const target = new URL(url)
  const database = decodeURIComponent(target.pathname.slice(1))
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pgbouncer-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const port = await freePort()
  const config = path.join(dir, 'pgbouncer.ini')
  await writeFile(path.join(dir, 'users.txt'), `"${decodeURIComponent(target.username) || 'postgres'}" ""\n`)
  await writeFile(
    config,
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      ''
    ].join('\n')
  )
  // PgBouncer refuses to run as root, like PostgreSQL.
  const user = await serverUser(createLogger({ level: 'warn' }))
  if (user) {
    await chmod(dir, 0o755)
    for (const file of [dir, config, path.join(dir, 'users.txt')]) await chown(file, user.uid, user.gid)
  }
  const child = spawn(BINARY, [config], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(user && { uid: user.uid, gid: user.gid })
  })
  let stderr = ''
  child.stderr.on('data', chunk => {
    stderr += chunk
  })
  const exited = new Promise(resolve => child.once('exit', resolve))
  t.teardown(async () => {
    child.kill('SIGTERM')
    await exited
  })
  await waitForPort(port, exited, () => stderr)
  const through = new URL(url)
  through.hostname = '127.0.0.1'
  through.port = String(port)
  return { url: through.href, port }
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (server.address())
      server.close(() => resolve(port))
    })
  })
}

/**
 * @param {number} port
 * @param {Promise<unknown>} exited
 * @param {() => string} stderr
 */
async function waitForPort(port, exited, stderr) {
  let gone = false
  exited.then(() => {
    gone = true
  })
  const deadline = Date.now() + 10000
  while (Date.now() < deadline) {
    if (gone) throw new Error(`pgbouncer exited at start: ${stderr().trim()}`)
    const open = await new Promise(resolve => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  throw new Error(`pgbouncer did not listen on port ${port} within 10 s: ${stderr().trim()}`)
}
