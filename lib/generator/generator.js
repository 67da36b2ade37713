import { Worker } from './worker.js'
import { performance } from 'node:perf_hooks'
import { latest } from './clock.js'
import { CANCEL_GRACE_MS } from './request-watch.js'
import { Refusals } from './refusals.js'

/**
 * @typedef {Omit<import('./worker.js').WorkerContext,
 *     'onConnectionChange' | 'onReconnect' | 'gate' | 'onLimit' | 'refusals'> & GeneratorPart} GeneratorOptions
 */

/**
 * A generator that runs one part of a load (a thread's): its clients'
 * numbers in the whole load, and where it counts its connections so that
 * another thread can read them.
 * @typedef {object} GeneratorPart
 * @property {(k: number) => number} [clientId]  the number of this generator's k-th client (default k)
 * @property {Float64Array} [counters]  [open connections, reconnects], maybe shared
 */

/**
 * What the lab drives: one Generator, or the same load over threads
 * (threaded-generator.js).
 * @typedef {Pick<Generator,
 *     'concurrency' | 'connections' | 'reconnects' | 'skipped' | 'paused' | 'pause' | 'resume' | 'setConcurrency' |
 * 'stop' | 'limitReached' | 'requestsEndedMs'>} LoadGenerator
 */

// Keeps N workers, each with its own connection, so that N requests are
// outstanding at all times.
export class Generator {
  /** @param {GeneratorOptions} options */
  constructor(options) {
    this.options = options
    /** @type {Worker[]} */
    this.workers = []
    /** @type {Worker[]} workers asked to stop but maybe still finishing */
    this.retiring = []
    this.counters = options.counters ?? new Float64Array(2)
    this.clientId = options.clientId ?? ((/** @type {number} */ k) => k)
    this.nextId = 0
    // once stopping, no client is added any more (a ramp's timer, live control)
    this.stopping = false
    /** @type {number | null} the concurrency when stop() was called */
    this.concurrencyAtStop = null
    // clients that did their -t requests; when all of them have, the run is over
    this.clientsAtLimit = 0
    /**
     * @type {number | null} when the last request ended once stopped (monotonicEpochMs), null if no client ran to
     * the end
     */
    this.requestsEndedMs = null
    /** @type {() => void} */
    let limitReached = () => {}
    /** @type {Promise<void>} settles when every client did its -t requests (clients.requestsPerClient) */
    this.limitReached = new Promise(resolve => {
      limitReached = () => resolve(undefined)
    })
    /** @type {() => void} */
    this.openGate = () => {}
    /** @type {import('./worker.js').Gate} */
    this.gate = { paused: false, resumed: Promise.resolve() }
    /** @type {ReturnType<typeof setInterval> | null} the sweep that times requests out */
    this.timeoutSweep = null
    /** @type {import('./worker.js').WorkerContext} */
    this.context = {
      ...options,
      gate: this.gate,
      refusals: new Refusals(options.log, options.stats.refusals, () => this.counters[0]),
      onConnectionChange: delta => {
        this.counters[0] += delta
      },
      onReconnect: () => {
        this.counters[1]++
      },
      onLimit: () => {
        if (++this.clientsAtLimit >= this.workers.length) limitReached()
      }
    }
  }

  // What the load runs at. Once it stops, what it ran at: a sample taken
  // while or just after it stops describes the second before, when that many
  // clients ran (the closed connections are what `connections` counts), as
  // the threaded generator's concurrency does.
  get concurrency() {
    return this.concurrencyAtStop ?? this.workers.length
  }

  get connections() {
    return this.counters[0]
  }

  get reconnects() {
    return this.counters[1]
  }

  /** Open loop: the intended starts skipped for being too late (--max-lag). */
  get skipped() {
    return this.options.pacer?.skipped ?? 0
  }

  get paused() {
    return this.gate.paused
  }

  /** Workers finish the request in flight and then wait; connections stay open. */
  pause() {
    if (this.gate.paused) return
    this.gate.resumed = new Promise(resolve => {
      this.openGate = () => resolve(undefined)
    })
    this.gate.paused = true
  }

  resume() {
    if (!this.gate.paused) return
    this.gate.paused = false
    // An open-loop schedule restarts now rather than owing the paused time.
    if (this.options.pacer) this.options.pacer.restart()
    this.openGate()
  }

  /**
   * Open loop: a new rate of the pacer's (pacer.setRate). Clients waiting for
   * a time of the old schedule take one of the new at once, so that neither
   * the old rate's arrivals nor a wait for them spill into the new rate's.
   * @param {number} rate
   */
  setRate(rate) {
    const pacer = this.options.pacer
    if (!pacer) return
    pacer.setRate(rate)
    for (const worker of this.workers) worker.rescheduled()
  }

  /** @param {number} concurrency */
  setConcurrency(concurrency) {
    if (this.stopping) return
    this.sweepTimeouts()
    while (this.workers.length < concurrency)
      this.workers.push(new Worker(this.clientId(this.nextId++), this.context).start())
    while (this.workers.length > concurrency) {
      const worker = /** @type {Worker} */ (this.workers.pop())
      worker.stop()
      this.retiring.push(worker)
      worker.done.then(() => {
        this.retiring.splice(this.retiring.indexOf(worker), 1)
      })
    }
  }

  /**
   * --request-timeout: one timer for all the clients, rather than one per
   * request on the hot path. It looks often enough that a request is cut
   * within a tenth of the timeout after it (at most a second late).
   */
  sweepTimeouts() {
    const timeoutS = this.options.clients.requestTimeoutS ?? null
    if (timeoutS === null || this.timeoutSweep !== null) return
    const timeoutMs = timeoutS * 1000
    const check = () => {
      const now = performance.now()
      for (const worker of this.workers) worker.checkTimeout(now, timeoutMs)
      for (const worker of this.retiring) worker.checkTimeout(now, timeoutMs)
    }
    this.timeoutSweep = setInterval(check, Math.min(1000, Math.max(5, timeoutMs / 10)))
    this.timeoutSweep.unref()
  }

  /**
   * Stops sending, waits up to graceMs for requests in flight, then closes
   * every connection.
   * @param {number} graceMs
   * @returns {Promise<boolean>} false when some requests had to be abandoned
   */
  async stop(graceMs) {
    this.stopping = true
    this.concurrencyAtStop ??= this.workers.length
    const all = [...this.workers, ...this.retiring]
    for (const worker of all) worker.stop()
    this.resume()
    let timer
    const finished = await Promise.race([
      Promise.all(all.map(w => w.done)).then(() => true),
      new Promise(resolve => {
        timer = setTimeout(resolve, graceMs, false)
      })
    ])
    clearTimeout(timer)
    if (!finished) {
      // what still runs is cancelled on the server first, so that nothing the run sent outlives it
      for (const worker of all) worker.cancelInFlight()
      await Promise.race([
        Promise.all(all.map(w => w.done)),
        new Promise(resolve => setTimeout(resolve, CANCEL_GRACE_MS))
      ])
      for (const worker of all) worker.abort()
      await Promise.race([Promise.all(all.map(w => w.done)), new Promise(resolve => setTimeout(resolve, 1000))])
    }
    if (this.timeoutSweep) clearInterval(this.timeoutSweep)
    this.workers = []
    // null without clients (a thread with no share), or when every loop is stuck past the abort
    this.requestsEndedMs = latest(all.map(worker => worker.loopEndedMs))
    return /** @type {boolean} */ (finished)
  }
}
