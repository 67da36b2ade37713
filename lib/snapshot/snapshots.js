import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InputError, RefusedActionError, RuntimeError } from '../errors.js'
import { EmbeddedServer, majorOfDataDir } from '../embedded/server.js'
import { resolveProfile } from '../embedded/profile.js'
import { CopyDriver } from './copy-driver.js'
import { ZfsDriver } from './zfs-driver.js'
import { checkSnapshotName } from './names.js'

/** @typedef {CopyDriver | ZfsDriver} Driver */

/**
 * Where the driver choice made by `snapshot init` is kept.
 * @param {string} dataDir
 */
function configFile(dataDir) {
  return path.join(`${dataDir}.snapshots`, 'config.json')
}

// Snapshots of a data directory the lab manages, behind one interface for
// both drivers. It stops and restarts the server where a driver needs it
// (on the same port, so running generators reconnect) and checks that the
// server comes back after a rollback.
export class Snapshots {
  /**
   * @param {{ dataDir: string, driver?: string, dataset?: string,
   *     events?: import('../recorder/event-log.js').EventLog | null, log: import('../log.js').Logger }} options
   */
  static async open({ dataDir, driver, dataset, events = null, log }) {
    const dir = path.resolve(dataDir)
    if (!existsSync(path.join(dir, 'PG_VERSION'))) {
      throw new InputError(`${dir} is not a PostgreSQL data directory`, { code: 'PGLG_INVALID_SNAPSHOT' })
    }
    const saved = existsSync(configFile(dir)) ? JSON.parse(await readFile(configFile(dir), 'utf8')) : null
    const kind = driver ?? saved?.driver ?? null
    if (kind === null) {
      throw new InputError(
        `no snapshot driver set up for ${dir}: run pgloadgen snapshot init --data-dir ${dataDir} [--driver zfs --dataset POOL/FS]`,
        { code: 'PGLG_INVALID_SNAPSHOT' }
      )
    }
    if (kind !== 'zfs' && kind !== 'copy') {
      throw new InputError(`unknown snapshot driver "${kind}" (zfs or copy)`, { code: 'PGLG_INVALID_CHOICE' })
    }
    const chosen = kind === 'zfs' ? new ZfsDriver(dir, dataset ?? saved?.dataset ?? null) : new CopyDriver(dir)
    return new Snapshots(dir, chosen, log, events)
  }

  /**
   * @param {string} dataDir
   * @param {Driver} driver
   * @param {import('../log.js').Logger} log
   * @param {import('../recorder/event-log.js').EventLog | null} [events]  where create, rollback and destroy are
   *   recorded (the experiment runner records its own)
   */
  constructor(dataDir, driver, log, events = null) {
    this.dataDir = dataDir
    this.driver = driver
    this.log = log
    this.events = events
    this.server = new EmbeddedServer({
      dataDir,
      profileFile: resolveProfile('lab'),
      log,
      major: majorOfDataDir(dataDir)
    })
  }

  async init() {
    await this.driver.init()
    await mkdir(path.dirname(configFile(this.dataDir)), { recursive: true })
    const dataset = this.driver instanceof ZfsDriver ? await this.driver.resolveDataset() : undefined
    await writeFile(configFile(this.dataDir), JSON.stringify({ driver: this.driver.kind, dataset }) + '\n')
    this.log.info(
      `snapshots of ${this.dataDir} use the ${this.driver.kind} driver${dataset ? ` on dataset ${dataset}` : ''}`
    )
  }

  /** @param {string} name */
  async create(name) {
    checkSnapshotName(name)
    if (await this.driver.exists(name)) {
      throw new InputError(`snapshot "${name}" already exists`, { code: 'PGLG_INVALID_SNAPSHOT' })
    }
    await this.recorded('snapshot_create', name, () =>
      this.withServerDown(this.driver.needsStoppedServer, () => this.driver.create(name))
    )
    this.log.info(`snapshot "${name}" taken (${this.driver.kind})`)
  }

  list() {
    return this.driver.list()
  }

  /**
   * @param {string} name
   * @param {{ yes: boolean, beforeStart?: () => Promise<void> }} confirmation
   *   beforeStart: run on the rolled-back directory before the server starts on it (an experiment's variant writes its
   * settings)
   */
  async rollback(name, { yes, beforeStart }) {
    checkSnapshotName(name)
    if (!(await this.driver.exists(name))) {
      throw new InputError(`no snapshot named "${name}" (see pgloadgen snapshot list)`, {
        code: 'PGLG_INVALID_SNAPSHOT'
      })
    }
    const lost = this.driver instanceof ZfsDriver ? await this.driver.newerThan(name) : []
    if (!yes) {
      throw new RefusedActionError(
        `rollback replaces the data directory with snapshot "${name}"${lost.length ? ` and destroys the later snapshots ${lost.join(', ')}` : ''}; add --yes to confirm`
      )
    }
    await this.recorded('rollback', name, () => this.replaceWith(name, beforeStart))
    this.log.info(
      `rolled back to snapshot "${name}"${lost.length ? `; destroyed later snapshots ${lost.join(', ')}` : ''}`
    )
  }

  /**
   * @param {string} name
   * @param {() => Promise<void>} [beforeStart]
   */
  async replaceWith(name, beforeStart) {
    const wasRunning = await this.isRunning()
    if (wasRunning) await this.stopServer()
    let cleanup
    try {
      cleanup = await this.driver.rollback(name)
    } catch (err) {
      if (wasRunning) await this.server.startInPlace().catch(() => {})
      throw err
    }
    // A snapshot taken with the server running (zfs) holds its lock file.
    // The server is down now, so that file is stale, but the PID in it may
    // still exist (the old postmaster finishing its exit, or the PID reused)
    // and the server would refuse to start.
    await rm(path.join(this.dataDir, 'postmaster.pid'), { force: true })
    await beforeStart?.()
    // The server must come back on the rolled-back data before the copy it
    // replaced is thrown away.
    await this.server.startInPlace()
    await this.server.check()
    await cleanup()
    if (!wasRunning) await this.server.shutdown()
  }

  /**
   * @param {string} name
   * @param {{ yes: boolean }} confirmation
   */
  async destroy(name, { yes }) {
    checkSnapshotName(name)
    if (!(await this.driver.exists(name))) {
      throw new InputError(`no snapshot named "${name}" (see pgloadgen snapshot list)`, {
        code: 'PGLG_INVALID_SNAPSHOT'
      })
    }
    if (!yes) throw new RefusedActionError(`destroy deletes snapshot "${name}" for good; add --yes to confirm`)
    await this.recorded('snapshot_destroy', name, () => this.driver.destroy(name))
    this.log.info(`snapshot "${name}" destroyed`)
  }

  /**
   * Runs a change to the data directory or its snapshots between a start
   * and an end event, once the inputs have been accepted: a refusal changes
   * nothing, the events file included.
   * @template T
   * @param {string} action
   * @param {string} name
   * @param {() => Promise<T>} change
   * @returns {Promise<T>}
   */
  recorded(action, name, change) {
    return this.events
      ? this.events.timed({ action, detail: { snapshot: name, driver: this.driver.kind } }, change)
      : change()
  }

  async isRunning() {
    return (await this.server.runningPort()) !== null
  }

  async stopServer() {
    if (!existsSync(path.join(this.dataDir, 'pgloadgen.secret'))) {
      throw new RuntimeError(`the server on ${this.dataDir} was not started by pgloadgen; stop it yourself first`, {
        code: 'PGLG_SNAPSHOT_FAILED'
      })
    }
    this.log.info('stopping the server')
    await this.server.shutdown()
  }

  /**
   * Runs fn with the server stopped when the driver needs it, and restarts
   * it (in place) afterwards if it was running.
   * @param {boolean} needed
   * @param {() => Promise<unknown>} fn
   */
  async withServerDown(needed, fn) {
    const running = needed && (await this.isRunning())
    if (running) await this.stopServer()
    try {
      await fn()
    } finally {
      if (running) {
        await this.server.startInPlace()
        this.log.info('server restarted')
      }
    }
  }
}
