import { spawn } from 'node:child_process'
import { chown, mkdir, mkdtemp, readFile, rm, writeFile, appendFile, chmod, stat } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { RuntimeError } from '../errors.js'
import { withControlClient } from '../pg/control-client.js'
import { findBinaries } from './binaries.js'
import { DEFAULT_MAJOR } from './majors.js'
import { assertDataDirMajor, dataDirMajor } from './server-choice.js'
import { serverUser } from './system-user.js'
import { readProfile } from './profile.js'
import { goneOwner, readOwner, writeOwner } from './owner.js'

export const EMBEDDED_DATABASE = 'pgloadgen'
const SUPERUSER = 'postgres'
const CONF_FILE = 'pgloadgen.conf'
const SECRET_FILE = 'pgloadgen.secret'
export const LOG_FILE = 'pgloadgen-server.log'

/**
 * @typedef {object} EmbeddedServerOptions
 * @property {string} dataDir
 * @property {string} profileFile   postgresql.conf fragment applied at every start
 * @property {number} [port]        0 or undefined: any free port
 * @property {import('../log.js').Logger} log
 * @property {number} [major]       the PostgreSQL major to run (majors.js); default DEFAULT_MAJOR
 * @property {boolean} [offline]    never fetch a major that is not installed
 * @property {import('./install.js').FetchProgress} [progress]   the progress of a fetch
 * @property {(text: string) => string} [adaptProfile]   the profile's text as this major takes it (settings.js)
 */

// A PostgreSQL server in a data directory the lab manages: created on first
// use, configured from a profile, started and stopped with pg_ctl, run as the
// postgres user when we are root. It listens on 127.0.0.1 only, with a random
// password kept in the data directory.
export class EmbeddedServer {
  /** @param {EmbeddedServerOptions} options */
  constructor({
    dataDir,
    profileFile,
    port = 0,
    log,
    major = DEFAULT_MAJOR,
    offline = false,
    progress,
    adaptProfile = text => text
  }) {
    this.dataDir = path.resolve(dataDir)
    this.major = major
    this.fetchOptions = {
      offline,
      progress:
        progress ??
        ((/** @type {string} */ line, /** @type {string} */ stage) => {
          if (stage !== 'progress') log.info(line)
        })
    }
    this.adaptProfile = adaptProfile
    this.profileFile = profileFile
    this.requestedPort = port
    this.log = log
    /** @type {number | null} */
    this.port = null
    this.startedHere = false
    /** @type {number | null} the owner (owner.js) when shutdown() stopped it, for startInPlace() */
    this.ownerBeforeStop = null
    /** @type {{ uid: number, gid: number } | null | undefined} */
    this.user = undefined
  }

  async owner() {
    if (this.user === undefined) this.user = await serverUser(this.log)
    return this.user
  }

  /** @param {string} file */
  async giveToServer(file) {
    const user = await this.owner()
    if (user) await chown(file, user.uid, user.gid)
  }

  /** The binaries of this server's major, fetched when missing. */
  binaries() {
    return findBinaries(this.major, this.fetchOptions)
  }

  isInitialised() {
    return existsSync(path.join(this.dataDir, 'PG_VERSION'))
  }

  async initialise() {
    const { initdb } = await this.binaries()
    await mkdir(path.dirname(this.dataDir), { recursive: true })
    await this.assertReachable()
    this.log.info(`initialising a new PostgreSQL data directory in ${this.dataDir}`)
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 })
    await this.giveToServer(this.dataDir)
    const password = randomBytes(18).toString('base64url')
    // initdb reads the password from a file the server user can read; keep
    // it in a private directory of its own for the moment it exists.
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-'))
    try {
      await this.giveToServer(scratch)
      const pwfile = path.join(scratch, 'pw')
      await writeFile(pwfile, password + '\n', { mode: 0o600 })
      await this.giveToServer(pwfile)
      await this.exec(initdb, [
        '-D',
        this.dataDir,
        '-U',
        SUPERUSER,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '-E',
        'UTF8',
        '--locale=C'
      ])
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
    await writeFile(path.join(this.dataDir, SECRET_FILE), password + '\n', { mode: 0o600 })
    await appendFile(
      path.join(this.dataDir, 'postgresql.conf'),
      `\n# Settings managed by pgloadgen (profile, port, addresses)\ninclude_if_exists = '${CONF_FILE}'\n`
    )
  }

  /**
   * As root, the server runs as "postgres", which must be able to enter every
   * directory above the data directory; say so before creating anything.
   */
  async assertReachable() {
    const user = await this.owner()
    if (!user) return
    for (let dir = path.dirname(this.dataDir); ; dir = path.dirname(dir)) {
      const info = await stat(dir)
      const canEnter =
        info.uid === user.uid
          ? (info.mode & 0o100) !== 0
          : info.gid === user.gid
            ? (info.mode & 0o010) !== 0
            : (info.mode & 0o001) !== 0
      if (!canEnter) {
        throw new RuntimeError(
          `the postgres system user cannot enter ${dir}, so it cannot run a server in ${this.dataDir}; choose a --data-dir elsewhere`,
          { code: 'PGLG_EMBEDDED_SERVER_FAILED' }
        )
      }
      if (dir === path.dirname(dir)) return
    }
  }

  /** @returns {Promise<number | null>} the port of the server running on this data directory */
  async runningPort() {
    let text
    try {
      text = await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8')
    } catch {
      return null
    }
    const [pidLine, , , portLine] = text.split('\n')
    const pid = Number(pidLine)
    try {
      process.kill(pid, 0)
    } catch (err) {
      // EPERM: alive but owned by another user
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EPERM') return null
    }
    return Number(portLine)
  }

  /**
   * Starts the server unless it already runs (then it is left running at
   * stop, unless the run that started it is gone). Creates the data
   * directory and the lab database when missing.
   * @returns {Promise<string>} the connection string
   */
  async start() {
    if (this.isInitialised()) assertDataDirMajor(this.dataDir, this.major)
    else await this.initialise()
    const running = await this.runningPort()
    if (running) {
      this.port = running
      const gone = await goneOwner(this.dataDir) // a run killed outright left it: ours to stop
      this.startedHere = gone !== null
      if (gone !== null) await writeOwner(this.dataDir, process.pid)
      const left =
        gone === null ? '' : `, left by a pgloadgen process that is gone (pid ${gone}): this run stops it at its end`
      this.log.info(
        `using the embedded PostgreSQL already running on port ${running} (data directory ${this.dataDir})${left}`
      )
    } else {
      this.port = this.requestedPort || (await freePort())
      await this.writeConf(this.port)
      await this.pgCtlStart()
      this.startedHere = true
      await writeOwner(this.dataDir, process.pid)
      this.log.info(`embedded PostgreSQL started on 127.0.0.1:${this.port} (data directory ${this.dataDir})`)
    }
    await this.ensureDatabase()
    return this.connectionString()
  }

  /**
   * Starts the server with the settings already in the data directory, on
   * the port it had, so that clients reconnect where they were: after a
   * snapshot or a rollback.
   */
  async startInPlace() {
    await this.pgCtlStart()
    this.port = await this.runningPort()
    // the owner it had before it was stopped: a rolled-back directory holds the snapshot's
    await writeOwner(this.dataDir, this.ownerBeforeStop)
  }

  /**
   * Starts the server again after it stopped on its own (a crash it could
   * not recover from): crash recovery, with the settings and the port it
   * had; this process owns it again.
   */
  async startAfterCrash() {
    await this.pgCtlStart()
    this.port = await this.runningPort()
    this.startedHere = true
    await writeOwner(this.dataDir, process.pid)
  }

  async pgCtlStart() {
    const { pg_ctl: pgCtl } = await this.binaries()
    const logFile = path.join(this.dataDir, LOG_FILE)
    try {
      await this.exec(pgCtl, ['start', '-D', this.dataDir, '-l', logFile, '-w', '-t', '120', '-s'])
    } catch (err) {
      throw new RuntimeError(
        `the embedded PostgreSQL did not start: ` +
          ((await lastServerError(logFile)) ?? /** @type {Error} */ (err).message),
        { code: 'PGLG_EMBEDDED_SERVER_FAILED', cause: err }
      )
    }
  }

  /** Connects and runs a trivial query: the server is up and accepts the lab's credentials. */
  async check() {
    if (this.port === null) this.port = await this.runningPort()
    await withControlClient({ connectionString: this.connectionString('postgres'), log: this.log }, async client => {
      await client.query('SELECT 1')
    })
  }

  /** @param {number} port */
  async writeConf(port) {
    const profile = this.adaptProfile(await readProfile(this.profileFile))
    const file = path.join(this.dataDir, CONF_FILE)
    await writeFile(
      file,
      [
        `# Written by pgloadgen at every start: profile ${this.profileFile}`,
        profile,
        '# Where the lab server listens',
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        ''
      ].join('\n')
    )
    await chmod(file, 0o644)
    await this.giveToServer(file)
  }

  async ensureDatabase() {
    await withControlClient({ connectionString: this.connectionString('postgres'), log: this.log }, async client => {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE])
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`)
    })
  }

  /** @param {string} [database] */
  connectionString(database = EMBEDDED_DATABASE) {
    if (this.port === null) throw new Error('embedded server not started')
    const password = readSecret(this.dataDir)
    return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${this.port}/${database}`
  }

  /** Stops the server if this process started it. */
  async stop() {
    if (!this.startedHere) return
    await this.shutdown()
  }

  /** Stops the server whoever started it (fast shutdown: sessions are ended). */
  async shutdown() {
    const { pg_ctl: pgCtl } = await this.binaries()
    this.ownerBeforeStop = await readOwner(this.dataDir)
    await this.exec(pgCtl, ['stop', '-D', this.dataDir, '-m', 'fast', '-w', '-t', '120', '-s'])
    await writeOwner(this.dataDir, null)
    this.startedHere = false
    this.log.info('embedded PostgreSQL stopped')
  }

  /** Restarts in place, on the same port. */
  async restart() {
    const { pg_ctl: pgCtl } = await this.binaries()
    await this.exec(pgCtl, [
      'restart',
      '-D',
      this.dataDir,
      '-m',
      'fast',
      '-w',
      '-t',
      '120',
      '-s',
      '-l',
      path.join(this.dataDir, LOG_FILE)
    ])
  }

  async version() {
    return (await readFile(path.join(this.dataDir, 'PG_VERSION'), 'utf8')).trim()
  }

  /**
   * Runs a server binary, as the server user when we are root.
   * @param {string} file
   * @param {string[]} args
   */
  async exec(file, args) {
    const user = await this.owner()
    await new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
        cwd: '/',
        ...(user ?? {})
      })
      let output = ''
      child.stdout.on('data', chunk => {
        output += chunk
      })
      child.stderr.on('data', chunk => {
        output += chunk
      })
      child.on('error', reject)
      child.on('close', code => {
        const failure = `${path.basename(file)} exited with ${code}: ${output.trim().split('\n').pop()}`
        if (code === 0) resolve(undefined)
        else reject(new RuntimeError(failure, { code: 'PGLG_EMBEDDED_SERVER_FAILED' }))
      })
    })
  }
}

/**
 * The major a data directory was made by (initdb's PG_VERSION), or the
 * default major when there is none yet.
 * @param {string} dataDir
 * @returns {number}
 */
export function majorOfDataDir(dataDir) {
  return dataDirMajor(dataDir) ?? DEFAULT_MAJOR
}

/** @param {string} dataDir */
function readSecret(dataDir) {
  try {
    return readFileSync(path.join(dataDir, SECRET_FILE), 'utf8').trim()
  } catch (err) {
    throw new RuntimeError(`the data directory ${dataDir} was not created by pgloadgen (no ${SECRET_FILE})`, {
      code: 'PGLG_EMBEDDED_SERVER_FAILED',
      cause: err
    })
  }
}

/** @param {string} logFile */
async function lastServerError(logFile) {
  try {
    const lines = (await readFile(logFile, 'utf8')).trim().split('\n')
    return lines.reverse().find(line => /FATAL|PANIC|ERROR/.test(line)) ?? null
  } catch {
    return null
  }
}

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 right now */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address())
      server.close(() => resolve(address.port))
    })
  })
}
