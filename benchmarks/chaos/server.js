// The chaos soak's server: the embedded PostgreSQL's binaries, run as the
// server user in a network namespace of its own that the load reaches over
// a veth pair (so that its link can be taken down: a blackhole), started
// and stopped with pg_ctl (fast and immediate shutdowns), its pg_wal on a
// ZFS dataset of a private pool with a quota (so that the WAL can fill).
// The soak's own connections go over the Unix socket in the data
// directory, which no link or address change reaches. Needs root,
// iproute2's ip, setpriv and zfs-fuse.
import { execFile } from 'node:child_process'
import { appendFile, chmod, chown, mkdtemp, open, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { findBinaries } from '../../lib/embedded/binaries.js'
import { serverUser } from '../../lib/embedded/system-user.js'
import { createLogger } from '../../lib/log.js'
import { serverPids } from '../known-answers/incidents/kinds.js'

const run = promisify(execFile)
const PORT = 5432
export const DATABASE = 'chaos'
// the role of the connection burst: not a superuser, so the reserved slots stay for the soak's checks
export const BURST_ROLE = 'chaos_burst'
const POOL_BYTES = 1024 * 1024 * 1024
// the WAL dataset's standing quota: room for max_wal_size and more
const WAL_QUOTA = 512 * 1024 * 1024
export const MAX_CONNECTIONS = 40
// how long the teardown waits for zfs-fuse to let the pool go, in seconds (one try a second)
const POOL_BUSY_MOST_S = 300
const SETTINGS = {
  max_connections: MAX_CONNECTIONS,
  superuser_reserved_connections: 3,
  synchronous_commit: 'on',
  max_wal_size: '192MB',
  min_wal_size: '64MB',
  shared_buffers: '128MB',
  log_min_messages: 'warning'
}

/**
 * A ZFS tool, bounded: a wedged daemon must fail the soak, not hang it.
 * @param {string} tool
 * @param {string[]} args
 */
async function zfs(tool, args) {
  return (await run(tool, args, { timeout: 120000, killSignal: 'SIGKILL' })).stdout
}

/** Cleanups, run last first. */
export class Teardown {
  constructor() {
    /** @type {Array<() => unknown>} */
    this.steps = []
  }

  /** @param {() => unknown} step */
  add(step) {
    this.steps.push(step)
  }

  async run() {
    for (const step of this.steps.reverse()) {
      try {
        await step()
      } catch (err) {
        process.stderr.write(`chaos: cleaning up: ${err instanceof Error ? err.message : String(err)}\n`)
      }
    }
    this.steps = []
  }
}

export class ChaosServer {
  /**
   * Makes the namespace and its link, the pool and its WAL dataset, the
   * data directory, and starts the server; all undone by the teardown.
   * @param {Teardown} teardown
   */
  static async create(teardown) {
    if (process.getuid?.() !== 0) throw new Error('the chaos soak needs root (a network namespace, a ZFS pool)')
    await zfs('zpool', ['list']).catch(err => {
      throw new Error(
        `the chaos soak needs a ZFS daemon that answers (npm run test:setup starts zfs-fuse): ${err.message}`
      )
    })
    const user = await serverUser(createLogger({ level: 'warn' }))
    if (!user) throw new Error('the chaos soak needs a user to run PostgreSQL as (it refuses root)')
    const bin = await findBinaries()
    // a /30 of 10.214.0.0/16 per process
    const subnet = process.pid % 16000
    const base = [10, 214, Math.floor(subnet / 64), (subnet % 64) * 4]
    const address = (/** @type {number} */ n) => [...base.slice(0, 3), base[3] + n].join('.')
    const name = `chaos${process.pid}`.slice(0, 12)
    const root = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-chaos-'))
    await chmod(root, 0o755)
    teardown.add(() => rm(root, { recursive: true, force: true }))
    const server = new ChaosServer({ name, hostAddress: address(1), address: address(2), user, bin, root })
    teardown.add(() => server.removeNetns())
    await server.makeNetns()
    teardown.add(() => server.destroyPool())
    await server.makePool()
    teardown.add(() => server.stop('immediate').catch(() => server.killAll()))
    await server.initialise()
    await server.start()
    await server.prepareDatabase()
    return server
  }

  /**
   * @param {{ name: string, hostAddress: string, address: string, user: { uid: number, gid: number },
   *   bin: import('../../lib/embedded/binaries.js').PgBinaries, root: string }} where
   */
  constructor({ name, hostAddress, address, user, bin, root }) {
    this.netns = name
    this.hostLink = `${name}h`
    this.serverLink = `${name}s`
    this.hostAddress = hostAddress
    this.address = address
    this.user = user
    this.bin = bin
    this.root = root
    this.pool = `pglgc${process.pid}`
    this.walDataset = `${this.pool}/wal`
    this.walMount = path.join(root, 'wal')
    this.dataDir = path.join(root, 'pgdata')
    this.logFile = path.join(root, 'server.log')
  }

  /** The load's URL: over the link, to the server's address. */
  get url() {
    return `postgres://postgres@${this.address}:${PORT}/${DATABASE}`
  }

  /**
   * The soak's own connections: over the Unix socket.
   * @param {string} [database]
   * @returns {import('pg').ClientConfig}
   */
  socketConfig(database = DATABASE) {
    return { host: this.dataDir, port: PORT, user: 'postgres', database, connectionTimeoutMillis: 5000 }
  }

  /** @param {string[]} args */
  ip(...args) {
    return run('ip', args)
  }

  async makeNetns() {
    await this.ip('netns', 'add', this.netns)
    await this.ip('link', 'add', this.hostLink, 'type', 'veth', 'peer', 'name', this.serverLink)
    await this.ip('link', 'set', this.serverLink, 'netns', this.netns)
    await this.ip('addr', 'add', `${this.hostAddress}/30`, 'dev', this.hostLink)
    await this.ip('link', 'set', this.hostLink, 'up')
    await this.ip('netns', 'exec', this.netns, 'ip', 'addr', 'add', `${this.address}/30`, 'dev', this.serverLink)
    await this.linkUp()
    await this.ip('netns', 'exec', this.netns, 'ip', 'link', 'set', 'lo', 'up')
  }

  async removeNetns() {
    await this.ip('netns', 'delete', this.netns).catch(() => {})
    await this.ip('link', 'delete', this.hostLink).catch(() => {})
  }

  /** The server's side of the link down: what is sent to it is dropped, and nothing comes back. */
  linkDown() {
    return this.ip('netns', 'exec', this.netns, 'ip', 'link', 'set', this.serverLink, 'down')
  }

  linkUp() {
    return this.ip('netns', 'exec', this.netns, 'ip', 'link', 'set', this.serverLink, 'up')
  }

  async makePool() {
    const image = path.join(this.root, 'pool.img')
    const file = await open(image, 'w')
    await file.truncate(POOL_BYTES)
    await file.close()
    await zfs('zpool', ['create', '-m', path.join(this.root, 'pool'), this.pool, image])
    await zfs('zfs', ['create', '-o', `mountpoint=${this.walMount}`, '-o', `quota=${WAL_QUOTA}`, this.walDataset])
    await chmod(this.walMount, 0o755)
  }

  /** Never `zpool destroy -f`: forcing zfs-fuse to unmount a dataset with files open can hang it. */
  async destroyPool() {
    for (let attempt = 1; ; attempt++) {
      try {
        await zfs('zpool', ['destroy', this.pool])
        return
      } catch (err) {
        const said = String(/** @type {any} */ (err).stderr || err)
        if (/no such pool/.test(said)) return
        // zfs-fuse may hold the pool busy a while after the server's last file closed: on a machine
        // at a load average of 15, for more than a minute
        if (attempt === POOL_BUSY_MOST_S)
          throw new Error(`cannot destroy the pool ${this.pool}: ${said}`, { cause: err })
        await new Promise(resolve => setTimeout(resolve, 1000))
      }
    }
  }

  /** initdb (trust, as the test servers), pg_wal moved to the WAL dataset, the settings, the hba line of the link. */
  async initialise() {
    await chown(this.root, this.user.uid, this.user.gid)
    await chown(this.walMount, this.user.uid, this.user.gid)
    const walDir = path.join(this.walMount, 'pg_wal')
    await this.asServer(this.bin.initdb, [
      '-D',
      this.dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
      `--waldir=${walDir}`
    ])
    const settings = {
      ...SETTINGS,
      port: PORT,
      listen_addresses: `'${this.address}'`,
      unix_socket_directories: `'${this.dataDir}'`
    }
    await appendFile(
      path.join(this.dataDir, 'postgresql.conf'),
      `\n# the chaos soak\n${Object.entries(settings)
        .map(([name, value]) => `${name} = ${value}`)
        .join('\n')}\n`
    )
    await appendFile(path.join(this.dataDir, 'pg_hba.conf'), `host all all ${this.hostAddress}/32 trust\n`)
  }

  /**
   * Runs a server binary as the server user, in the namespace.
   * @param {string} file
   * @param {string[]} args
   */
  asServer(file, args) {
    return run(
      'ip',
      [
        'netns',
        'exec',
        this.netns,
        'setpriv',
        `--reuid=${this.user.uid}`,
        `--regid=${this.user.gid}`,
        '--clear-groups',
        file,
        ...args
      ],
      { cwd: '/', env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, timeout: 300000 }
    )
  }

  /** pg_ctl start, waiting until the server accepts connections (after crash recovery, when there was a crash). */
  start() {
    return this.asServer(this.bin.pg_ctl, ['start', '-D', this.dataDir, '-l', this.logFile, '-w', '-t', '240', '-s'])
  }

  /** @param {'fast' | 'immediate'} mode */
  stop(mode) {
    return this.asServer(this.bin.pg_ctl, ['stop', '-D', this.dataDir, '-m', mode, '-w', '-t', '120', '-s'])
  }

  /** Whether a postmaster runs on the data directory (pg_ctl status). */
  async running() {
    try {
      await this.asServer(this.bin.pg_ctl, ['status', '-D', this.dataDir])
      return true
    } catch {
      return false
    }
  }

  /** The postmaster and its children, now. */
  pids() {
    try {
      return serverPids(this.dataDir)
    } catch {
      return []
    }
  }

  /** SIGKILL to every process of the server: the last resort of the teardown. */
  killAll() {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
  }

  /** The load's database, the burst's role, and the function the slow statements call. */
  async prepareDatabase() {
    await this.query(`CREATE DATABASE ${DATABASE}`, [], 'postgres')
    await this.query(`CREATE ROLE ${BURST_ROLE} LOGIN`)
    await this.query(
      'CREATE FUNCTION chaos_slow() RETURNS trigger LANGUAGE plpgsql AS ' +
        '$$ BEGIN PERFORM pg_sleep(TG_ARGV[0]::float8); RETURN NEW; END $$'
    )
  }

  /**
   * One statement over the socket.
   * @param {string} sql
   * @param {unknown[]} [params]
   * @param {string} [database]
   */
  async query(sql, params = [], database = DATABASE) {
    const client = new pg.Client(this.socketConfig(database))
    client.on('error', () => {})
    await client.connect()
    try {
      return (await client.query(sql, params)).rows
    } finally {
      await client.end().catch(() => {})
    }
  }

  /** Bytes the WAL dataset uses now. */
  async walUsed() {
    return Number((await zfs('zfs', ['get', '-H', '-p', '-o', 'value', 'used', this.walDataset])).trim())
  }

  /**
   * A snapshot of the WAL's dataset taken (true) or destroyed: while it
   * is there, blocks written over stay held by it.
   * @param {boolean} held
   */
  async holdWal(held) {
    const snapshot = `${this.walDataset}@held`
    if (held) await zfs('zfs', ['snapshot', snapshot])
    else await zfs('zfs', ['destroy', snapshot])
  }

  /** @param {number | null} bytes   null: the standing quota */
  async setWalQuota(bytes) {
    await zfs('zfs', ['set', `quota=${bytes ?? WAL_QUOTA}`, this.walDataset])
  }

  /** The last lines of the server's log that say PANIC or FATAL, for a report. */
  panics() {
    try {
      return readFileSync(this.logFile, 'utf8')
        .split('\n')
        .filter(line => /PANIC/.test(line))
    } catch {
      return []
    }
  }
}
