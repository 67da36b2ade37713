import { Generator } from '../generator/generator.js'
import { ThreadedGenerator } from '../generator/threaded-generator.js'
import { errorMessage } from '../helpers/error-message.js'
import { DEFAULT_CLIENT_SETTINGS } from '../config/run-settings.js'
import { RuntimeError } from '../errors.js'

// A load session's generator: its clients on this thread, or over the
// worker threads of --threads N, from the session's options.

/** @typedef {import('./load-session.js').LoadOptions} LoadOptions */
/** @typedef {import('../generator/run-state.js').RunState} RunState */
/** @typedef {import('../metrics/request-stats.js').RequestStats} RequestStats */

/**
 * @param {LoadOptions} options
 * @param {{ shared: unknown, state: RunState, stats: RequestStats,
 *     pacer: import('../generator/pacer.js').Pacer | null }} run
 * @returns {import('../generator/generator.js').LoadGenerator}
 */
export function makeGenerator(options, { shared, state, stats, pacer }) {
  if (options.threads !== undefined && options.threads > 1) return threadedGenerator(options, { shared, state, stats })
  return new Generator({
    connectionString: options.connectionString,
    protocol: options.protocol,
    workload: options.workload,
    shared,
    state,
    mix: options.mix,
    stats,
    log: options.log,
    pacer,
    clients: options.clients ?? DEFAULT_CLIENT_SETTINGS,
    // an instance's clients keep their numbers in the whole load (pgbench's :client_id)
    ...(options.instance && { clientId: clientNumbering(options.instance) })
  })
}

/**
 * The number in the whole load of a part's k-th client: client k of the
 * whole belongs to part k mod parts (lib/scale/share.js).
 * @param {import('../scale/share.js').Share} share
 */
function clientNumbering({ index, parts }) {
  return (/** @type {number} */ k) => index + parts * k
}

/**
 * The generator of --threads N: the load over N threads. What the
 * workload's setup returned goes to every thread, so it must be data.
 * @param {LoadOptions} options
 * @param {{ shared: unknown, state: RunState, stats: RequestStats }} run
 */
function threadedGenerator(options, { shared, state, stats }) {
  const workloadChoice = options.workloadChoice
  if (!workloadChoice) {
    throw new RuntimeError('--threads: this load cannot be split over threads (its workload was not chosen by name)')
  }
  try {
    structuredClone(shared)
  } catch (err) {
    throw new RuntimeError(
      `--threads: the ${options.workload.name} workload's setup returned what cannot go to another thread (${errorMessage(err)}); run it with --threads 1`,
      { cause: err }
    )
  }
  return new ThreadedGenerator({
    threads: /** @type {number} */ (options.threads),
    connectionString: options.connectionString,
    protocol: options.protocol,
    workload: options.workload,
    workloadChoice,
    shared,
    mix: options.mix,
    state,
    stats,
    openLoop: options.openLoop,
    instance: options.instance ?? null,
    clients: options.clients ?? DEFAULT_CLIENT_SETTINGS,
    log: options.log
  })
}
