// The body of one generator thread (--threads): it loads the workload again
// (modules do not cross threads), runs its own Generator over its share of
// the clients, records into the stats memory the main thread gave it, and
// sends what the main thread must know as messages: error messages, the
// acknowledged inserts and in-doubt writes (thread-state.js), and when its
// clients reached their -t.
import { parentPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { chooseWorkload } from '../workloads/choose.js'
import { RequestStats } from '../metrics/request-stats.js'
import { Generator } from './generator.js'
import { Pacer } from './pacer.js'
import { ThreadRunState } from './thread-state.js'

/** @typedef {import('./threaded-generator.js').ThreadSetup} ThreadSetup */
/** @typedef {import('./threaded-generator.js').ToThread} ToThread */

// How often the thread reports what the main thread cannot read from shared
// memory; the main thread's view of them is at most this late.
const REPORT_MS = 100

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
const setup = /** @type {ThreadSetup} */ (workerData)
// Log lines go through the main thread's logger, which keeps them apart
// from the progress line on a terminal.
/**
 * @param {'trace' | 'debug' | 'info' | 'warn' | 'error'} level
 * @returns {(message: string, code?: string) => void}  code: a warning's
 */
const sendLog = level => (message, code) => port.postMessage({ kind: 'log', level, message, code })
/** @type {import('../log.js').Logger} */
const log = {
  trace: sendLog('trace'),
  debug: sendLog('debug'),
  info: sendLog('info'),
  warn: sendLog('warn'),
  error: sendLog('error'),
  level: setup.logLevel
}
const workload = await chooseWorkload(setup.workloadChoice)
const stats = new RequestStats(workload.types, new Float64Array(setup.statsMemory))
/** @type {Array<[string, boolean]>} */
let errors = []
stats.error = (/** @type {string} */ message, /** @type {boolean} */ expected) => {
  errors.push([message, expected])
}
const state = new ThreadRunState(setup.maxId)
const { share } = setup
const pacer = setup.openLoop
  ? new Pacer({
      rate: setup.openLoop.rate,
      arrival: setup.openLoop.arrival,
      maxLagMs: setup.openLoop.maxLagMs,
      share,
      seed: setup.openLoop.seed,
      profile: setup.openLoop.profile ?? null
    })
  : null
const counters = new Float64Array(setup.counterMemory)
const generator = new Generator({
  connectionString: setup.connectionString,
  protocol: setup.protocol,
  workload,
  shared: setup.shared,
  state,
  mix: setup.mix,
  stats,
  log,
  pacer,
  clients: setup.clients,
  clientId: k => share.index + share.parts * k,
  counters
})

function report() {
  counters[2] = pacer?.skipped ?? 0
  const stateReport = state.takeReport()
  if (errors.length === 0 && stateReport === null) return
  port.postMessage({ kind: 'report', errors, state: stateReport })
  errors = []
}
const reporter = setInterval(report, REPORT_MS)
generator.limitReached.then(() => port.postMessage({ kind: 'limit' }))

port.on('message', async (/** @type {ToThread} */ message) => {
  switch (message.kind) {
    case 'origin':
      // The one schedule's origin, on this thread's clock: the clocks of
      // threads start at different moments (performance.timeOrigin).
      pacer?.begin(message.originEpochMs - performance.timeOrigin)
      break
    case 'concurrency':
      generator.setConcurrency(message.concurrency)
      break
    case 'pause':
      generator.pause()
      break
    case 'resume':
      generator.resume()
      pacer?.restart(message.originEpochMs - performance.timeOrigin)
      break
    case 'stop': {
      const finished = await generator.stop(message.graceMs)
      clearInterval(reporter)
      report()
      port.postMessage({ kind: 'stopped', finished, requestsEndedMs: generator.requestsEndedMs })
      port.close()
      break
    }
  }
})
port.postMessage({ kind: 'ready' })
