import { Generator } from '../generator/generator.js'
import { ThreadedGenerator } from '../generator/threaded-generator.js'
import { errorMessage } from '../helpers/error-message.js'
import { RuntimeError } from '../errors.js'
import { clientSettings } from './run-spec.js'

// A load session's generator: its clients on this thread, or over the
// worker threads of --threads N, from the run specification.

/** @typedef {Readonly<import('./run-spec.js').RunSpec>} RunSpec */
/** @typedef {import('./session-place.js').SessionPlace} SessionPlace */
/** @typedef {import('../generator/run-state.js').RunState} RunState */
/** @typedef {import('../metrics/request-stats.js').RequestStats} RequestStats */

/**
 * What the session made before its generator: the workload's setup, the
 * state and stats the clients share, the pacer and the open loop it follows.
 * @typedef {{ shared: unknown, state: RunState, stats: RequestStats,
 *     pacer: import('../generator/pacer.js').Pacer | null,
 *     openLoop: import('./run-spec.js').OpenLoop | null }} SessionParts
 */

/**
 * @param {RunSpec} spec
 * @param {SessionPlace} place
 * @param {SessionParts} parts
 * @returns {import('../generator/generator.js').LoadGenerator}
 */
export function makeGenerator(spec, place, parts) {
  if (spec.threads > 1) return threadedGenerator(spec, place, parts)
  const { shared, state, stats, pacer } = parts
  return new Generator({
    connectionString: place.target.connectionString,
    protocol: spec.protocol,
    workload: spec.workload,
    shared,
    state,
    mix: spec.mix,
    stats,
    log: place.log,
    pacer,
    clients: clientSettings(spec),
    // an instance's clients keep their numbers in the whole load (pgbench's :client_id)
    ...(spec.instance && { clientId: clientNumbering(spec.instance) })
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
 * @param {RunSpec} spec
 * @param {SessionPlace} place
 * @param {SessionParts} parts
 */
function threadedGenerator(spec, place, { shared, state, stats, openLoop }) {
  const { workloadChoice } = spec
  if (!workloadChoice) {
    throw new RuntimeError('--threads: this load cannot be split over threads (its workload was not chosen by name)')
  }
  try {
    structuredClone(shared)
  } catch (err) {
    throw new RuntimeError(
      `--threads: the ${spec.workload.name} workload's setup returned what cannot go to another thread (${errorMessage(err)}); run it with --threads 1`,
      { cause: err }
    )
  }
  return new ThreadedGenerator({
    threads: spec.threads,
    connectionString: place.target.connectionString,
    protocol: spec.protocol,
    workload: spec.workload,
    // each thread chooses the workload with the run's seed
    workloadChoice: { ...workloadChoice, seed: spec.seed },
    shared,
    mix: spec.mix,
    state,
    stats,
    openLoop,
    instance: spec.instance,
    clients: clientSettings(spec),
    log: place.log
  })
}
