import { performance } from 'node:perf_hooks'
import { pickType } from '../config/mix.js'
import { monotonicEpochMs } from './clock.js'
import { isConnectionError } from '../pg/connection.js'
import { errorMessage } from '../helpers/error-message.js'
import { WireConnection } from '../wire/wire-connection.js'
import { leavesOutcomeUnknown } from '../wire/errors.js'
import { RequestWatch } from './request-watch.js'
import { connectRefusal } from './refusals.js'
import { Db } from '../workloads/db.js'
import { clientRandom } from '../workloads/client-random.js'
import { isDiskFullError } from '../pg/disk-full.js'
import { shapeOf } from './shapes/load-shape.js'

const BACKOFF_MIN_MS = 100
const BACKOFF_MAX_MS = 5000

/**
 * @typedef {object} WorkerContext
 * @property {string} connectionString
 * @property {'prepared' | 'extended' | 'simple'} protocol
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {unknown} shared    what the workload's setup returned
 * @property {import('./run-state.js').RunState} state
 * @property {import('../config/mix.js').Mix} mix
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../log.js').Logger} log
 * @property {(delta: number) => void} onConnectionChange
 * @property {() => void} onReconnect
 * @property {import('./pacer.js').Pacer | null} pacer  open loop when set
 * @property {import('../config/run-settings.js').ClientSettings} clients  what each client is given: -t (a client stops
 *   after that many requests) and the seed of its random numbers
 * @property {() => void} onLimit  a client has done its -t requests
 * @property {Gate} gate  closed while the generator is paused
 * @property {import('./refusals.js').Refusals} refusals  the server refusing connections for want of a slot
 */

/**
 * @typedef {object} Gate
 * @property {boolean} paused
 * @property {Promise<void>} resumed  settles when paused turns false
 */

// One dedicated connection and one loop on it: wait for the next request's
// start as the load's shape gives it (shapes/: closed, open, paced), send
// it, record it. A lost connection is replaced, with backoff.
export class Worker {
  /**
   * @param {number} id
   * @param {WorkerContext} context
   */
  constructor(id, context) {
    this.id = id
    this.context = context
    this.stopping = false
    this.connectedBefore = false
    this.failedConnects = 0
    this.backoffMs = BACKOFF_MIN_MS
    /** @type {() => void} */
    this.signalStop = () => {}
    /** @type {Promise<void>} */
    this.stopRequested = new Promise(resolve => {
      this.signalStop = () => resolve(undefined)
    })
    /** @type {WireConnection | null} */
    this.client = null
    /** @type {Db | null} the workload's view of client */
    this.db = null
    /** @type {(() => void) | null} */
    this.wake = null
    // open loop: waiting for an intended start the pacer gave (a new rate voids it: rescheduled())
    this.waitingForSlot = false
    // the type of the request running, which ctx.written counts for
    this.type = 0
    /** @type {number | undefined} the incarnation of the server the connection reached */
    this.incarnation = undefined
    const stats = context.stats
    // the client's random numbers: its request types and its rows' values
    const random = clientRandom(context.clients.seed, id)
    /** @type {import('../workloads/contract.js').ClientContext} */
    this.ctx = {
      clientId: id,
      random,
      config: context.workload.config,
      shared: context.shared,
      state: {},
      defines: context.workload.defines,
      ids: context.state.forConnection(() => this.incarnation, random),
      written: (rows, points = 0) => {
        stats.rows[this.type] += rows
        stats.points[this.type] += points
      },
      writeFailed: (err, rows, probe) => {
        if (leavesOutcomeUnknown(err)) context.state.inDoubt.push({ rows, probe: probe() })
      },
      connect: async () =>
        new Db(
          await WireConnection.connect(context.connectionString, {
            protocol: context.protocol,
            applicationName: 'pgloadgen'
          })
        )
    }
    this.clientReady = false
    this.requestsDone = 0
    // when each request is meant to start: a closed loop, an open one, or a paced client's period
    this.shape = shapeOf(context, id)
    /** @type {Promise<void>} */
    this.done = Promise.resolve()
    /**
     * @type {number | null} when the loop left, its last answer in (monotonicEpochMs): before the connection's
     * close
     */
    this.loopEndedMs = null
    // --request-timeout: the client's wait on the server, which the
    // generator's sweep checks, and cancels on the server when it is late
    this.watch = new RequestWatch(stats.cancels)
  }

  /**
   * Cancels a wait on the server older than timeoutMs (request-watch.js):
   * the request ends with the cancel's error and the connection is kept, or
   * after the grace its connection is cut and the loop replaces it.
   * @param {number} now  performance.now()
   * @param {number} timeoutMs
   */
  checkTimeout(now, timeoutMs) {
    this.watch.check(now, timeoutMs)
  }

  /** The run stops: a request still running is cancelled on the server. */
  cancelInFlight() {
    this.watch.cancelAtShutdown()
  }

  start() {
    this.done = this.loop()
    return this
  }

  /** Open loop: the schedule started over; a wait for a time of the old one ends now. */
  rescheduled() {
    if (this.waitingForSlot) this.wake?.()
  }

  /** Finish the request in flight, then leave the loop. */
  stop() {
    this.stopping = true
    this.wake?.()
    this.signalStop()
  }

  async loop() {
    const { mix, stats, gate, workload } = this.context
    const { requestsPerClient } = this.context.clients
    const { requests, expectedErrors } = workload
    const ctx = this.ctx
    const random = ctx.random
    while (!this.stopping) {
      if (gate.paused) {
        // a worker retired while paused leaves at once, closing its connection
        await Promise.race([gate.resumed, this.stopRequested])
        this.shape.resumed()
        continue
      }
      // A connection the server closed while idle (a restart, a rollback
      // underneath) is replaced before it is used, not counted as a failure.
      if (this.client?.broken) this.drop('closed by the server')
      const client = this.client ?? (await this.connect())
      if (client === null) continue
      const db = /** @type {Db} */ (this.db)
      const due = await this.untilDue()
      if (this.stopping) break
      if (due === undefined) continue
      const type = pickType(mix, random())
      this.type = type
      stats.start(type)
      // the timeout counts from the send, not from an intended start the schedule is behind
      const sentAt = performance.now()
      const t0 = due ?? sentAt
      const watch = this.watch
      watch.begin(client)
      let failure = null
      try {
        const found = await requests[type](db, ctx)
        if (found === false) stats.notFound[type]++
      } catch (err) {
        failure = err
        const expected =
          expectedErrors[type] !== null && /** @type {{ code?: string }} */ (err)?.code === expectedErrors[type]
        if (watch.timedOut) stats.timeouts[type]++
        // a workload that wraps the error still reports the timeout as one
        stats.error(watch.failureMessage(err), expected)
        if (isDiskFullError(err)) stats.diskFull[type]++
      }
      watch.end()
      stats.finish(type, (performance.now() - t0) * 1000, failure === null)
      await watch.settle(client)
      if (failure !== null) await this.afterFailure(client, db, failure)
      if (requestsPerClient !== null && ++this.requestsDone >= requestsPerClient) {
        this.context.onLimit()
        break
      }
    }
    this.loopEndedMs = monotonicEpochMs()
    this.context.refusals.leave(this.id)
    await this.close()
  }

  /**
   * Waits for the intended start of the next request, as the load's shape
   * gives it (shapes/load-shape.js), and records its lag: the latency counts
   * from that start.
   * @returns {Promise<number | null | undefined>} the start (performance.now() ms); null: now, from the send (a
   *   closed loop); undefined: the time went void while waiting (a new schedule) or the client is stopping
   */
  async untilDue() {
    const { shape } = this
    const due = shape.due()
    if (due === null) return null
    const delay = due - performance.now()
    if (delay > 0.2) {
      this.waitingForSlot = shape.reschedulable
      await this.sleep(delay)
      this.waitingForSlot = false
    }
    if (this.stopping || !shape.stillDue()) return undefined
    // A timer can fire up to a millisecond before its time (libuv counts
    // from the loop's cached clock), and a wait under 0.2 ms is not slept: a
    // request that goes out early starts then, so that neither its lag nor
    // its latency is ever below zero.
    const now = performance.now()
    const t0 = now < due ? now : due
    this.context.stats.lag.record((now - t0) * 1000)
    return t0
  }

  /**
   * A request failed: a connection that is gone (or that the server says
   * is) is replaced; one left inside a transaction by a request that threw
   * half-way is rolled back, so that the next request starts clean.
   * @param {WireConnection} client
   * @param {Db} db
   * @param {unknown} err
   */
  async afterFailure(client, db, err) {
    if (client.broken || isConnectionError(err)) {
      this.drop(`request failed: ${errorMessage(err)}`)
      return
    }
    await this.waitOn(client, () => db.rollback())
  }

  /**
   * A wait on the server outside a request, bounded by the request timeout too.
   * @template T
   * @param {WireConnection} client
   * @param {() => Promise<T>} work
   * @returns {Promise<T>}
   */
  async waitOn(client, work) {
    this.watch.begin(client)
    try {
      return await work()
    } finally {
      this.watch.end()
      await this.watch.settle(client)
    }
  }

  /**
   * Opens the connection, with backoff after failures. After a reconnect the
   * max id of a dense-id table is read again first: the data may have been
   * rolled back underneath, and ids above the new max must not be aimed at.
   * @returns {Promise<WireConnection | null>} null: try again (or stopping)
   */
  async connect() {
    const { log, state, workload } = this.context
    /** @type {WireConnection | null} */
    let client = null
    try {
      client = await WireConnection.connect(this.context.connectionString, { protocol: this.context.protocol })
      if (workload.idTable !== null) {
        // Which incarnation of the server this connection reached (the
        // check at exit puts rows of earlier ones that went down to the
        // data going back) and, after a reconnect, the max id again.
        const connection = client
        const { first } = await this.waitOn(connection, () =>
          connection.run(
            {
              name: '',
              text: `SELECT pg_postmaster_start_time()::text || ' ' || coalesce(max(id), 0)::text FROM ${workload.idTable}`
            },
            []
          )
        )
        const returned = String(first)
        const space = returned.lastIndexOf(' ')
        this.incarnation = state.incarnationOf(returned.slice(0, space))
        if (this.connectedBefore) state.noteMaxIdAfterReconnect(Number(returned.slice(space + 1)))
      }
      const statementTimeoutS = this.context.clients.statementTimeoutS ?? null
      if (statementTimeoutS !== null) {
        const connection = client
        // in whole milliseconds, the server's unit, at least one (0 would be none)
        const ms = Math.max(1, Math.round(statementTimeoutS * 1000))
        await this.waitOn(connection, () => connection.simpleQuery(`SET statement_timeout = ${ms}`))
      }
      if (!this.clientReady) {
        await workload.initClient(this.ctx)
        this.clientReady = true
      }
      this.client = client
      this.db = new Db(client)
      this.context.onConnectionChange(+1)
      if (this.connectedBefore) this.context.onReconnect()
      this.connectedBefore = true
      if (this.failedConnects > 0) log.info(`connection ${this.id} re-established`)
      this.context.refusals.clear(this.id)
      this.backoffMs = BACKOFF_MIN_MS
      this.failedConnects = 0
      return client
    } catch (err) {
      client?.destroy()
      if (connectRefusal(err)) this.context.refusals.add(this.id, err)
      else if (this.failedConnects++ === 0) {
        log.warn(
          `connection ${this.id}: cannot connect: ${errorMessage(err)}; retrying with backoff`,
          'PGLG_W_CONNECT_RETRY'
        )
      }
      await this.sleep(this.backoffMs * (0.5 + Math.random() / 2))
      this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS)
      return null
    }
  }

  /** @param {string} reason */
  drop(reason) {
    if (this.client === null) return
    this.context.log.warn(`connection ${this.id} lost (${reason}); reconnecting`, 'PGLG_W_CONNECTION_LOST')
    const client = this.client
    this.client = null
    this.db = null
    this.context.onConnectionChange(-1)
    client.destroy()
  }

  async close() {
    if (this.client === null) return
    const client = this.client
    this.client = null
    this.context.onConnectionChange(-1)
    await client.close()
  }

  /** Ends the connection without waiting: for requests stuck past the grace period. */
  abort() {
    this.stopping = true
    const client = this.client
    if (client === null) return
    this.client = null
    this.context.onConnectionChange(-1)
    client.destroy()
  }

  /** @param {number} ms */
  sleep(ms) {
    return new Promise(resolve => {
      const timer = setTimeout(finish, ms)
      this.wake = finish
      function finish() {
        clearTimeout(timer)
        resolve(undefined)
      }
    }).finally(() => {
      this.wake = null
    })
  }
}
