import { Worker as Thread } from 'node:worker_threads'
import { randomInt } from 'node:crypto'
import { RequestStats } from '../metrics/request-stats.js'
import { shareOf, nestShare, WHOLE } from '../scale/share.js'
import { StateReplay } from './thread-state.js'
import { latest } from './clock.js'

// --threads N: the load split over N worker threads, each with its own
// event loop and its own clients (generator-thread.js), behind the same
// face as one Generator, so that the session, live control, the recorder
// and the summary need not know. Client k of the whole belongs to thread
// k mod N, and an open-loop schedule's arrival k too (lib/scale/share.js):
// the threads together run exactly the load one generator would.
//
// The threads record into SharedArrayBuffer memory; `stats` (the session's)
// is made their exact sum every MERGE_MS and once more when they stopped.

const MERGE_MS = 100
const THREAD_FILE = new URL('./generator-thread-main.js', import.meta.url)

/**
 * What a thread is given.
 * @typedef {object} ThreadSetup
 * @property {string} connectionString
 * @property {'prepared' | 'extended' | 'simple'} protocol
 * @property {import('../workloads/choose.js').WorkloadChoice} workloadChoice  loads the same workload in the thread
 * @property {unknown} shared        what the workload's setup returned (structured-cloned)
 * @property {import('../config/mix.js').Mix} mix
 * @property {number} maxId
 * @property {SharedArrayBuffer} statsMemory
 * @property {SharedArrayBuffer} counterMemory  [connections, reconnects, skipped]
 * @property {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null, seed: number,
 *     profile?: import('../config/stages.js').Profile | null } | null} openLoop  rate: of the whole load
 * @property {import('../scale/share.js').Share} share  this thread's part of the whole load
 * @property {import('../config/run-settings.js').ClientSettings} clients
 * @property {import('../log.js').LevelName} logLevel
 */

/**
 * @typedef {{ kind: 'origin', originEpochMs: number }
 *   | { kind: 'concurrency', concurrency: number }
 *   | { kind: 'pause' }
 *   | { kind: 'resume', originEpochMs: number }
 *   | { kind: 'stop', graceMs: number }} ToThread
 */

/**
 * @typedef {object} ThreadedOptions
 * @property {number} threads
 * @property {string} connectionString
 * @property {'prepared' | 'extended' | 'simple'} protocol
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {import('../workloads/choose.js').WorkloadChoice} workloadChoice
 * @property {unknown} shared
 * @property {import('../config/mix.js').Mix} mix
 * @property {import('./run-state.js').RunState} state   the run's: acknowledgements are replayed into it
 * @property {RequestStats} stats    the run's: the threads' exact sum
 * @property {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null, seed?: number | null,
 *     profile?: import('../config/stages.js').Profile | null } | null} openLoop
 * @property {import('../scale/share.js').Share | null} instance  this process's part of a load split over instances
 * @property {import('../config/run-settings.js').ClientSettings} clients
 * @property {import('../log.js').Logger} log
 */

/**
 * @typedef {object} ThreadHandle
 * @property {Thread} thread
 * @property {import('../scale/share.js').Share} share  its part of this process's load
 * @property {RequestStats} stats    a view of its memory
 * @property {Float64Array} counters
 * @property {StateReplay} replay
 * @property {boolean} atLimit
 * @property {Promise<boolean>} stopped  settles with whether its requests all finished
 * @property {(finished: boolean) => void} onStopped
 * @property {number | null} requestsEndedMs  when its last request ended (monotonicEpochMs), once stopped
 * @property {Promise<void>} ready   settles when it has loaded the workload
 * @property {() => void} onReady
 */

export class ThreadedGenerator {
  /** @param {ThreadedOptions} options */
  constructor(options) {
    this.options = options
    this.stopping = false
    this.paused = false
    /** @type {number | null} when the last request of any thread ended, once stopped (monotonicEpochMs) */
    this.requestsEndedMs = null
    this.concurrencyNow = 0
    /** @type {() => void} */
    let limitReached = () => {}
    /** @type {Promise<void>} settles when every client did its -t requests */
    this.limitReached = new Promise(resolve => {
      limitReached = () => resolve(undefined)
    })
    this.onLimit = limitReached
    const seed = options.openLoop?.seed ?? randomInt(2 ** 47)
    /** @type {ThreadHandle[]} */
    this.handles = []
    for (let index = 0; index < options.threads; index++) {
      const share = { index, parts: options.threads }
      const statsMemory = new SharedArrayBuffer(RequestStats.floatsFor(options.workload.types) * 8)
      const counterMemory = new SharedArrayBuffer(3 * 8)
      /** @type {ThreadSetup} */
      const setup = {
        connectionString: options.connectionString,
        protocol: options.protocol,
        workloadChoice: options.workloadChoice,
        shared: options.shared,
        mix: options.mix,
        maxId: options.state.maxId,
        statsMemory,
        counterMemory,
        openLoop: options.openLoop ? { ...options.openLoop, seed } : null,
        share: nestShare(options.instance ?? WHOLE, share),
        clients: options.clients,
        logLevel: options.log.level
      }
      const thread = new Thread(THREAD_FILE, { workerData: setup })
      /** @type {(finished: boolean) => void} */
      let onStopped = () => {}
      /** @type {() => void} */
      let onReady = () => {}
      /** @type {ThreadHandle} */
      const handle = {
        thread,
        share,
        stats: new RequestStats(options.workload.types, new Float64Array(statsMemory)),
        counters: new Float64Array(counterMemory),
        replay: new StateReplay(options.state),
        atLimit: false,
        stopped: new Promise(resolve => {
          onStopped = resolve
        }),
        onStopped: finished => onStopped(finished),
        requestsEndedMs: null,
        ready: new Promise(resolve => {
          onReady = () => resolve(undefined)
        }),
        onReady: () => onReady()
      }
      thread.on('message', message => this.receive(handle, message))
      // A thread that dies takes its clients with it: the run cannot be exact any more.
      thread.on('error', err => {
        options.log.error(`generator thread ${index} failed: ${err.message}`)
        handle.onStopped(false)
      })
      thread.on('exit', () => handle.onStopped(false))
      this.handles.push(handle)
    }
    // ready: every thread has loaded the workload, or has died trying
    this.ready = Promise.all(this.handles.map(handle => Promise.race([handle.ready, handle.stopped])))
    this.merger = setInterval(() => this.merge(), MERGE_MS)
  }

  /**
   * @param {ThreadHandle} handle
   * @param {any} message
   */
  receive(handle, message) {
    if (message.kind === 'ready') {
      handle.onReady()
    } else if (message.kind === 'report') {
      for (const [text, expected] of message.errors) this.options.stats.error(text, expected)
      if (message.state) handle.replay.apply(message.state)
    } else if (message.kind === 'limit') {
      handle.atLimit = true
      if (this.handles.every(h => h.atLimit || this.own(this.concurrencyNow, h) === 0)) this.onLimit()
    } else if (message.kind === 'log') {
      this.options.log[/** @type {'trace' | 'debug' | 'info' | 'warn' | 'error'} */ (message.level)](
        message.message,
        message.code
      )
    } else if (message.kind === 'stopped') {
      handle.requestsEndedMs = message.requestsEndedMs
      handle.onStopped(message.finished)
    }
  }

  /** The run's stats become the threads' exact sum. */
  merge() {
    this.options.stats.mergeFrom(this.handles.map(handle => handle.stats))
  }

  get concurrency() {
    return this.concurrencyNow
  }

  get connections() {
    return this.handles.reduce((sum, handle) => sum + handle.counters[0], 0)
  }

  get reconnects() {
    return this.handles.reduce((sum, handle) => sum + handle.counters[1], 0)
  }

  get skipped() {
    return this.handles.reduce((sum, handle) => sum + handle.counters[2], 0)
  }

  /**
   * @param {(handle: ThreadHandle) => ToThread} message
   */
  tell(message) {
    for (const handle of this.handles) handle.thread.postMessage(message(handle))
  }

  /**
   * Sets the open-loop schedule's origin in every thread (before their
   * clients start), so that their parts stay one schedule.
   * @param {number} originEpochMs
   */
  startSchedule(originEpochMs) {
    this.tell(() => ({ kind: 'origin', originEpochMs }))
  }

  /**
   * @param {number} concurrency
   * @param {ThreadHandle} handle
   */
  own(concurrency, handle) {
    return shareOf(concurrency, handle.share.index, handle.share.parts)
  }

  pause() {
    if (this.paused) return
    this.paused = true
    this.tell(() => ({ kind: 'pause' }))
  }

  resume() {
    if (!this.paused) return
    this.paused = false
    const originEpochMs = Date.now()
    this.tell(() => ({ kind: 'resume', originEpochMs }))
  }

  /** @param {number} concurrency */
  setConcurrency(concurrency) {
    if (this.stopping) return
    this.concurrencyNow = concurrency
    this.tell(handle => ({ kind: 'concurrency', concurrency: this.own(concurrency, handle) }))
  }

  /**
   * Stops every thread (each waits up to graceMs for its requests in
   * flight), then merges their records a last time, exactly.
   * @param {number} graceMs
   * @returns {Promise<boolean>} false when some requests had to be abandoned
   */
  async stop(graceMs) {
    if (!this.stopping) {
      this.stopping = true
      await this.ready
      this.tell(() => ({ kind: 'stop', graceMs }))
    }
    const finished = await Promise.all(this.handles.map(handle => handle.stopped))
    clearInterval(this.merger)
    this.merge()
    this.requestsEndedMs = latest(this.handles.map(handle => handle.requestsEndedMs))
    await Promise.all(this.handles.map(handle => handle.thread.terminate()))
    return finished.every(Boolean)
  }
}
