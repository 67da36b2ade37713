import path from 'node:path'
import { errorMessage } from '../helpers/error-message.js'
import { exitCause, serverLogSize, stoppedCleanly, walSegmentBytes } from '../embedded/server-exit.js'
import { filesystemOf, spaceOf } from './disk-space.js'

// The embedded server a run owns, started again when it stops on its own.
// A backend that cannot write WAL (pg_wal's filesystem full) PANICs, the
// crash recovery that follows must write WAL too and fails, and the
// postmaster shuts down: nothing brings it back by itself. The watch sees
// the postmaster gone with pg_control not shut down, reads the cause from
// the server's log, says what to free, waits until pg_wal's filesystem has
// room for crash recovery, and starts the server again (with backoff, a
// bounded number of tries). The generator's connections come back by
// themselves. A server shut down cleanly (pg_ctl stop, a snapshot), or
// gone with no failure in its log (killed outright, its data directory
// replaced underneath), is left to whoever stopped it.

// Room on pg_wal's filesystem before a start: crash recovery writes WAL,
// its end-of-recovery checkpoint may need a new segment.
export const MIN_WAL_ROOM_BYTES = 64 * 1024 * 1024
export const WAL_ROOM_SEGMENTS = 2
export const START_TRIES = 5
const POLL_MS = 1000
// The postmaster gone this long before it counts as stopped: a snapshot's
// rollback starts it again at once, and must not be raced.
const CONFIRM_MS = 2000
const BACKOFF_MS = 2000
const BACKOFF_MAX_MS = 30000

/**
 * The server, as the watch needs it (lib/embedded/server.js).
 * @typedef {object} WatchedServer
 * @property {string} dataDir
 * @property {() => Promise<number | null>} runningPort
 * @property {() => Promise<void>} startAfterCrash
 */

/**
 * @typedef {object} ServerWatchOptions
 * @property {WatchedServer} server
 * @property {import('../recorder/event-log.js').EventLog | null} events
 * @property {import('../log.js').Logger} log
 * @property {() => Promise<unknown>} [afterStart]  once the server runs again (the disk limit's group taken up again)
 */

/**
 * A stop of the server, from the moment it was found down.
 * @typedef {object} Outage
 * @property {number} since
 * @property {string} cause       the last PANIC or FATAL of the server's log
 * @property {number} tries
 * @property {number} nextTryAt
 * @property {string} lastError
 */

export class ServerWatch {
  /** @param {ServerWatchOptions} options */
  constructor({ server, events, log, afterStart }) {
    this.server = server
    this.events = events
    this.log = log
    this.afterStart = afterStart ?? (async () => {})
    this.walDir = path.join(server.dataDir, 'pg_wal')
    this.neededBytes = MIN_WAL_ROOM_BYTES
    this.logMark = 0
    /** the server's times started again */
    this.restarts = 0
    /** @type {number | null} when the postmaster was first found gone, not shut down */
    this.goneSince = null
    /** a stop not the server's failing was said: nothing more until it runs again */
    this.leftAlone = false
    /** @type {Outage | null} */
    this.outage = null
    this.gaveUp = false
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    /** @type {Promise<void>} the check under way */
    this.checking = Promise.resolve()
    this.stopped = false
  }

  async start() {
    this.neededBytes = Math.max(MIN_WAL_ROOM_BYTES, WAL_ROOM_SEGMENTS * (await walSegmentBytes(this.server.dataDir)))
    this.logMark = await serverLogSize(this.server.dataDir)
    this.schedule()
  }

  schedule() {
    if (this.stopped || this.gaveUp) return
    this.timer = setTimeout(() => {
      this.checking = this.check()
        .catch(err => this.log.warn(`watching the embedded server: ${errorMessage(err)}`))
        .finally(() => this.schedule())
    }, POLL_MS)
    this.timer.unref()
  }

  /**
   * Stops watching, after the check under way (a start in progress ends
   * first, so that the audit finds the server up). A server still down is
   * said, with its cause and what to free, and its event ends.
   * @returns {Promise<boolean>} whether the server stays down, stopped on its own
   */
  async stop() {
    if (this.stopped) return false
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.checking
    const outage = this.outage
    if (outage === null) return this.gaveUp
    this.outage = null
    const message = `the run ends with the embedded PostgreSQL stopped for ${seconds(Date.now() - outage.since)} s: ${await this.stopDescription(outage)}; the rows cannot be checked, and a later pgloadgen run on ${this.server.dataDir} starts it again (crash recovery)`
    this.log.warn(message, 'PGLG_W_SERVER_STOPPED')
    await this.endOutage(outage, { ok: false, error: message })
    return true
  }

  async check() {
    const running = (await this.server.runningPort()) !== null
    if (this.outage) return running ? this.startedElsewhere(this.outage) : this.tryStart(this.outage)
    if (running) {
      this.goneSince = null
      this.leftAlone = false
      return
    }
    if (this.leftAlone) return
    if (await stoppedCleanly(this.server.dataDir))
      return this.leaveAlone('was shut down cleanly (pg_ctl stop, a snapshot)')
    this.goneSince ??= Date.now()
    if (Date.now() - this.goneSince < CONFIRM_MS) return
    const cause = await exitCause(this.server.dataDir, this.logMark)
    if (cause === null) {
      return this.leaveAlone(
        'stopped without a clean shutdown, and its log names no PANIC or FATAL since the load started (killed outright, or its data directory replaced)'
      )
    }
    await this.wentDown(this.goneSince, cause)
  }

  /**
   * A stop the lab cannot put down to the server failing: said once, until the server runs again.
   * @param {string} how
   */
  leaveAlone(how) {
    this.goneSince = null
    this.leftAlone = true
    this.log.info(`the embedded PostgreSQL ${how}: the lab leaves it to whoever stopped it`)
  }

  /**
   * @param {number} since
   * @param {string} cause  the last PANIC or FATAL of the server's log
   */
  async wentDown(since, cause) {
    const outage = {
      since,
      cause,
      tries: 0,
      nextTryAt: 0,
      lastError: ''
    }
    this.outage = outage
    this.goneSince = null
    const room = await this.walRoom()
    this.log.warn(
      `embedded PostgreSQL stopped: ${await this.stopDescription(outage)}; ` +
        (room.freeBytes !== null && room.freeBytes < this.neededBytes
          ? 'the lab starts it again once they are free'
          : 'starting it again'),
      'PGLG_W_SERVER_STOPPED'
    )
    await this.events?.record({
      kind: 'start',
      action: 'server_down',
      detail: {
        cause: outage.cause,
        pg_wal: room.directory,
        mount_point: room.mountPoint,
        wal_free_bytes: room.freeBytes,
        wal_needed_bytes: this.neededBytes
      }
    })
  }

  /**
   * The cause, pg_wal's filesystem and its free space, and the room a start needs.
   * @param {Outage} outage
   */
  async stopDescription(outage) {
    const room = await this.walRoom()
    const where = room.mountPoint ? `, on the filesystem mounted at ${room.mountPoint}` : ''
    const free = room.freeBytes === null ? 'free space unknown' : `${mib(room.freeBytes)} free`
    return `${outage.cause}${outage.lastError ? ` (last start: ${outage.lastError})` : ''}; pg_wal is ${room.directory}${where}, ${free}: free at least ${mib(this.neededBytes)} there for its crash recovery`
  }

  async walRoom() {
    const { directory, mountPoint } = await filesystemOf(this.walDir)
    const freeBytes = await spaceOf(this.walDir).then(
      figures => figures.freeBytes,
      () => null
    )
    return { directory, mountPoint, freeBytes }
  }

  /** @param {Outage} outage */
  async tryStart(outage) {
    if (Date.now() < outage.nextTryAt) return
    const { freeBytes } = await this.walRoom()
    if (freeBytes !== null && freeBytes < this.neededBytes) return
    outage.tries++
    const mark = await serverLogSize(this.server.dataDir)
    try {
      await this.server.startAfterCrash()
    } catch (err) {
      outage.lastError = errorMessage(err)
      outage.cause = (await exitCause(this.server.dataDir, mark)) ?? outage.cause
      return this.startFailed(outage)
    }
    this.restarts++
    this.outage = null
    this.logMark = await serverLogSize(this.server.dataDir)
    this.log.info(
      `embedded PostgreSQL started again after ${seconds(Date.now() - outage.since)} s (crash recovery done, try ${outage.tries} of ${START_TRIES})`
    )
    await this.afterStart().catch(err => this.log.warn(`after the start: ${errorMessage(err)}`))
    await this.endOutage(outage, { ok: true })
  }

  /** @param {Outage} outage */
  async startFailed(outage) {
    if (outage.tries < START_TRIES) {
      const waitMs = Math.min(BACKOFF_MS * 2 ** (outage.tries - 1), BACKOFF_MAX_MS)
      outage.nextTryAt = Date.now() + waitMs
      this.log.warn(
        `starting the embedded PostgreSQL again failed (try ${outage.tries} of ${START_TRIES}): ${outage.lastError}; next try in ${seconds(waitMs)} s`,
        'PGLG_W_SERVER_STOPPED'
      )
      return
    }
    this.gaveUp = true
    this.outage = null
    const message = `the embedded PostgreSQL did not start again in ${START_TRIES} tries and stays stopped: ${await this.stopDescription(outage)}`
    this.log.warn(message, 'PGLG_W_SERVER_STOPPED')
    await this.endOutage(outage, { ok: false, error: message })
  }

  /**
   * Someone else started the server meanwhile (pg_ctl by hand, another run).
   * @param {Outage} outage
   */
  async startedElsewhere(outage) {
    this.outage = null
    this.log.info(`embedded PostgreSQL runs again after ${seconds(Date.now() - outage.since)} s, started elsewhere`)
    await this.endOutage(outage, { ok: true })
  }

  /**
   * @param {Outage} outage
   * @param {{ ok: boolean, error?: string }} outcome
   */
  async endOutage(outage, { ok, error }) {
    const { freeBytes } = await this.walRoom()
    await this.events?.record({
      kind: 'end',
      action: 'server_down',
      duration_s: seconds(Date.now() - outage.since),
      ok,
      ...(error && { error }),
      detail: { cause: outage.cause, tries: outage.tries, restarts: this.restarts, wal_free_bytes: freeBytes }
    })
  }
}

/** @param {number} ms */
function seconds(ms) {
  return Math.round(ms / 100) / 10
}

/** @param {number} bytes */
function mib(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MiB`
}
