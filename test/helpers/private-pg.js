// A PostgreSQL server of the test's own (the machine's PostgreSQL 15, or
// the embedded PostgreSQL 18's binaries; a data directory in the temporary
// directory; a free port), whose processes can all be killed at once with
// SIGKILL, as a crash of the machine would end them.
import { spawn, execFile } from 'node:child_process'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from '../../lib/embedded/server.js'
import { findBinaries } from '../../lib/embedded/binaries.js'
import { serverUser } from '../../lib/embedded/system-user.js'
import { createLogger } from '../../lib/log.js'
import { sleep } from './cli.js'
import { isAlive } from './process.js'

const run = promisify(execFile)
const PG15 = { postgres: '/usr/lib/postgresql/15/bin/postgres', initdb: '/usr/lib/postgresql/15/bin/initdb' }

export class PrivatePg {
  /**
   * @param {{ teardown: (fn: () => unknown) => void }} t
   * @param {string[]} settings  name=value, given to the server with -c
   * @param {15 | 18} [version]  15: the machine's; 18: the embedded one's binaries
   */
  static async create(t, settings, version = 15) {
    const user = await serverUser(createLogger({ level: 'warn' }))
    const dataDir = await mkdtemp(path.join(os.tmpdir(), `pgloadgen-pg${version}-`))
    if (user) await chown(dataDir, user.uid, user.gid)
    const bin = version === 15 ? PG15 : await findBinaries()
    const server = new PrivatePg(dataDir, await freePort(), settings, user, bin.postgres)
    t.teardown(async () => {
      await server.kill()
      await server.exited
      await rm(dataDir, { recursive: true, force: true })
    })
    await run(
      bin.initdb,
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
      user ? { uid: user.uid, gid: user.gid } : {}
    )
    await server.start()
    return server
  }

  /**
   * @param {string} dataDir
   * @param {number} port
   * @param {string[]} settings
   * @param {{ uid: number, gid: number } | null} user
   * @param {string} postgres  the server's binary
   */
  constructor(dataDir, port, settings, user, postgres) {
    this.postgres = postgres
    this.dataDir = dataDir
    this.port = port
    this.settings = settings
    this.user = user
    /** @type {import('node:child_process').ChildProcess | null} */
    this.postmaster = null
    /** @type {Promise<unknown>} */
    this.exited = Promise.resolve()
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`
  }

  /** Starts the server (crash recovery first, after a kill) and waits until it accepts connections. */
  async start() {
    const args = [
      '-D',
      this.dataDir,
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${this.dataDir}`
    ]
    for (const setting of this.settings) args.push('-c', setting)
    const child = spawn(this.postgres, args, { detached: true, stdio: 'ignore', ...(this.user ?? {}) })
    this.postmaster = child
    this.exited = new Promise(resolve => child.once('exit', resolve))
    await waitUntilAccepting({ connectionString: this.url }, child, 'the private PostgreSQL')
  }

  /** SIGKILL to every process of the server (see killServerProcesses). */
  async kill() {
    const pid = this.postmaster?.pid
    if (pid === undefined || this.postmaster?.exitCode !== null) return []
    return killServerProcesses(pid)
  }

  /** @param {string} database */
  urlOf(database) {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`
  }
}

/**
 * Connects until the server accepts (a minute at most): for a server just
 * started, whose postmaster is child; fails at once when it exits.
 * @param {import('pg').ClientConfig} config
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} what  the server, as an error names it
 */
export async function waitUntilAccepting(config, child, what) {
  const deadline = Date.now() + 60000
  for (;;) {
    const client = new pg.Client(config)
    client.on('error', () => {})
    try {
      await client.connect()
      await client.end()
      return
    } catch (err) {
      await client.end().catch(() => {})
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`${what} did not start: ${/** @type {Error} */ (err).message}`, { cause: err })
      await sleep(100)
    }
  }
}

/**
 * SIGKILL to every process of a server, as a crash of the machine would
 * end them. Its backends and helpers are sessions of their own (the
 * postmaster makes them so), so they are found as the postmaster's
 * children: the postmaster is stopped first, so that it forks none while
 * they are listed, then all are killed, and waited for until gone (a
 * backend left alive would hold the shared memory).
 * @param {number} pid  the postmaster's
 * @returns {Promise<number[]>} the processes killed
 */
export async function killServerProcesses(pid) {
  try {
    process.kill(pid, 'SIGSTOP')
  } catch {
    return []
  }
  const { stdout } = await run('pgrep', ['-P', String(pid)]).catch(() => ({ stdout: '' }))
  const pids = [
    pid,
    ...stdout
      .split('\n')
      .map(line => Number(line.trim()))
      .filter(n => n > 0)
  ]
  for (const each of pids) {
    try {
      process.kill(each, 'SIGKILL')
    } catch {
      // it ended by itself meanwhile
    }
  }
  for (let waited = 0; pids.some(isAlive) && waited < 10000; waited += 20) await sleep(20)
  return pids
}
