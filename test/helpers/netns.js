// A PostgreSQL 15 on an address of its own, in a network namespace the test
// makes itself and reaches over a veth pair: so that the test can take the
// server's link down (a blackhole: packets are dropped, nothing answers),
// take its address away, or restart it while nobody can reach it, with no
// address of the machine's touched. Needs root and iproute2's `ip`.
import { execFile, spawn } from 'node:child_process'
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { serverUser } from '../../lib/embedded/system-user.js'
import { createLogger } from '../../lib/log.js'
import { sleep } from './cli.js'
import { waitUntilAccepting } from './private-pg.js'

const run = promisify(execFile)
const PG15_BIN = '/usr/lib/postgresql/15/bin'
const PORT = 5432

/** @param {string[]} args */
function ip(...args) {
  return run('ip', args)
}

export class NetnsServer {
  /**
   * Makes the namespace, the link and the server; all are removed at the
   * test's teardown.
   * @param {{ teardown: (fn: () => unknown) => void }} t
   * @param {string[]} [settings]  name=value, given to the server with -c
   */
  static async create(t, settings = []) {
    if (process.getuid?.() !== 0) {
      throw new Error('the partition tests need root: they make a network namespace and a veth pair')
    }
    await ip('-V').catch(err => {
      throw new Error(`the partition tests need iproute2's ip: ${err.message}`)
    })
    const user = await serverUser(createLogger({ level: 'warn' }))
    if (!user) throw new Error('the partition tests need a user to run PostgreSQL as (it refuses root)')
    // a /30 of 10.213.0.0/16 per process, so that two test runs on one machine cannot meet
    const subnet = process.pid % 16000
    const base = `10.213.${Math.floor(subnet / 64)}.${(subnet % 64) * 4}`
    const octets = base.split('.').map(Number)
    const address = (/** @type {number} */ n) => `${octets[0]}.${octets[1]}.${octets[2]}.${octets[3] + n}`
    const name = `pglg${process.pid}`
    const server = new NetnsServer(name, address(1), address(2), user)
    t.teardown(() => server.remove())
    await ip('netns', 'add', server.netns)
    await ip('link', 'add', server.hostLink, 'type', 'veth', 'peer', 'name', server.serverLink)
    await ip('link', 'set', server.serverLink, 'netns', server.netns)
    await ip('addr', 'add', `${server.hostAddress}/30`, 'dev', server.hostLink)
    await ip('link', 'set', server.hostLink, 'up')
    await server.inNetns('ip', 'addr', 'add', `${server.address}/30`, 'dev', server.serverLink)
    await server.inNetns('ip', 'link', 'set', server.serverLink, 'up')
    await server.inNetns('ip', 'link', 'set', 'lo', 'up')
    server.dataDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-netns-'))
    await chown(server.dataDir, user.uid, user.gid)
    await run(
      `${PG15_BIN}/initdb`,
      ['-D', server.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
      { uid: user.uid, gid: user.gid }
    )
    // the generator comes from the host's end of the link
    await appendFile(path.join(server.dataDir, 'pg_hba.conf'), `host all all ${server.hostAddress}/32 trust\n`)
    server.settings = settings
    await server.start()
    return server
  }

  /**
   * @param {string} name
   * @param {string} hostAddress
   * @param {string} address
   * @param {{ uid: number, gid: number, name?: string }} user
   */
  constructor(name, hostAddress, address, user) {
    this.netns = name
    this.hostLink = `${name}h`.slice(0, 15)
    this.serverLink = `${name}s`.slice(0, 15)
    this.hostAddress = hostAddress
    this.address = address
    this.user = user
    this.dataDir = ''
    /** @type {string[]} */
    this.settings = []
    /** @type {import('node:child_process').ChildProcess | null} */
    this.postmaster = null
    /** @type {Promise<unknown>} */
    this.exited = Promise.resolve()
  }

  /** @param {string} database */
  urlOf(database) {
    return `postgres://postgres@${this.address}:${PORT}/${database}`
  }

  /**
   * @param {string} command
   * @param {string[]} args
   */
  inNetns(command, ...args) {
    return ip('netns', 'exec', this.netns, command, ...args)
  }

  /** Starts the server in the namespace and waits until it answers over the link. */
  start() {
    this.spawnServer()
    return this.waitReady({ connectionString: this.urlOf('postgres'), connectionTimeoutMillis: 2000 })
  }

  /**
   * A fast shutdown (commits kept, sessions ended), then a start: a restart the clients cannot see while the link is
   * down.
   */
  async restart() {
    this.postmaster?.kill('SIGINT')
    await this.exited
    this.spawnServer()
    // the link may be down: waits on the server's socket in its data directory
    await this.waitReady({ host: this.dataDir, port: PORT, user: 'postgres', database: 'postgres' })
  }

  spawnServer() {
    const args = [
      'netns',
      'exec',
      this.netns,
      'setpriv',
      `--reuid=${this.user.uid}`,
      `--regid=${this.user.gid}`,
      '--clear-groups',
      `${PG15_BIN}/postgres`,
      '-D',
      this.dataDir,
      '-p',
      String(PORT),
      '-c',
      `listen_addresses=${this.address}`,
      '-c',
      `unix_socket_directories=${this.dataDir}`,
      '-c',
      'synchronous_commit=on'
    ]
    for (const setting of this.settings) args.push('-c', setting)
    // ip and setpriv exec into the postmaster: the child is the server
    const child = spawn('ip', args, { stdio: 'ignore' })
    this.postmaster = child
    this.exited = new Promise(resolve => child.once('exit', resolve))
  }

  /** @param {import('pg').ClientConfig} config */
  waitReady(config) {
    return waitUntilAccepting(
      config,
      /** @type {import('node:child_process').ChildProcess} */ (this.postmaster),
      `the PostgreSQL in ${this.netns}`
    )
  }

  /** The server's side of the link goes down: what is sent to it is dropped, and nothing comes back. */
  linkDown() {
    return this.inNetns('ip', 'link', 'set', this.serverLink, 'down')
  }

  linkUp() {
    return this.inNetns('ip', 'link', 'set', this.serverLink, 'up')
  }

  /** The server's address vanishes from its side of the link (the link stays up). */
  removeAddress() {
    return this.inNetns('ip', 'addr', 'del', `${this.address}/30`, 'dev', this.serverLink)
  }

  restoreAddress() {
    return this.inNetns('ip', 'addr', 'add', `${this.address}/30`, 'dev', this.serverLink)
  }

  async remove() {
    if (this.postmaster && this.postmaster.exitCode === null) {
      this.postmaster.kill('SIGQUIT')
      await Promise.race([this.exited, sleep(10000)])
    }
    // the namespace's end takes its side of the pair, and the host's side with it
    await ip('netns', 'delete', this.netns).catch(() => {})
    await ip('link', 'delete', this.hostLink).catch(() => {})
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true })
  }
}
