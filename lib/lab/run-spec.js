import { RUN_SETTINGS, settingDefault } from '../config/run-settings.js'
import { mixOf } from '../config/mix.js'

// The run specification: every setting of one load, checked, with every
// default applied once, here. `pgloadgen run` and `capacity` build it from
// their flags (cli/run-args.js), an experiment from its plan
// (experiment/plan.js); the load session takes it whole and builds its parts
// from it (load-session.js). Its fields are the settings' names in their
// table (config/run-settings.js), and the few that are not flags' values:
// the workload, how it was chosen, the share of a split load.

/**
 * @typedef {object} RunSpec
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {import('../workloads/choose.js').WorkloadChoice | null} workloadChoice  how the workload was chosen:
 *   each thread of --threads chooses it again (null: not by name, no threads)
 * @property {import('../config/mix.js').Mix} mix
 * @property {import('../config/protocol.js').Protocol} protocol
 * @property {number} concurrency             this process's clients (its share of a split load)
 * @property {number} totalConcurrency        the clients of all instances together
 * @property {import('../scale/share.js').Share | null} instance  --instance: this process runs that share of the load
 * @property {number | null} startAtMs        --start-at: the load starts at that moment (epoch ms)
 * @property {number} threads                 --threads
 * @property {number | null} requestsPerClient  -t
 * @property {number | null} seed
 * @property {number | null} rate             open loop: requests per second of the whole load (null: closed loop)
 * @property {'poisson' | 'fixed'} arrival
 * @property {number | null} maxLagMs
 * @property {{ stages: import('../config/stages.js').Stage[],
 *     profile: import('../config/stages.js').Profile } | null} stages  --stages: the clients' profile, or with a rate
 *   the rate's
 * @property {number | null} warmupS          the first seconds of load are kept out of the summary
 * @property {number | null} durationS        null: until stopped
 * @property {number | null} requestTimeoutS
 * @property {number | null} statementTimeoutS
 * @property {number} connectTimeoutS
 * @property {number} shutdownTimeoutS
 * @property {number} verifyTimeoutS
 * @property {number} statsIntervalS
 * @property {boolean} pgStats                poll the server's statistics
 * @property {import('../pgstats/pgstattuple.js').PgstattupleMode} pgstattuple
 * @property {string | null} recordDir        samples, run.json and summary.json go there
 * @property {boolean} reset                  drop and recreate the workload's tables first
 * @property {import('../config/thresholds.js').Threshold[]} thresholds
 * @property {boolean} thresholdAbort
 */

/** What a source gives: the workload, and any other field, checked. */
/** @typedef {Partial<RunSpec> & { workload: RunSpec['workload'] }} RunSpecGiven */

/**
 * The defaults of the fields that are not in the settings' table, and of
 * those whose default there is "the workload's" (the mix) or "none" as an
 * empty list (the thresholds).
 * @param {RunSpecGiven} given
 */
function ownDefaults({ workload, mix }) {
  return {
    workloadChoice: null,
    mix: mix ?? mixOf(workload.types, workload.weights),
    instance: null,
    startAtMs: null,
    pgstattuple: /** @type {const} */ (false),
    thresholds: []
  }
}

/**
 * Builds the run specification: what was given, every other field at its
 * default. A workload that sets its clients itself gives the concurrency's
 * default.
 * @param {RunSpecGiven} given
 * @returns {Readonly<RunSpec>}
 */
export function buildRunSpec(given) {
  /** @type {Record<string, unknown>} */
  const spec = {}
  for (const name of /** @type {import('../config/run-settings.js').SettingName[]} */ (Object.keys(RUN_SETTINGS))) {
    spec[name] = settingDefault(name, given)
  }
  Object.assign(spec, ownDefaults(given))
  if (given.workload.clients !== null) spec.concurrency = given.workload.clients
  for (const [name, value] of Object.entries(given)) if (value !== undefined) spec[name] = value
  spec.totalConcurrency ??= spec.concurrency
  return Object.freeze(/** @type {RunSpec} */ (/** @type {unknown} */ (spec)))
}

/**
 * Another load of the same specification with some fields changed (a
 * capacity search's open loop, a variant's clients): the changes are
 * checked values; nothing else is applied again.
 * @param {Readonly<RunSpec>} spec
 * @param {Partial<RunSpec>} changes
 * @returns {Readonly<RunSpec>}
 */
export function runSpecWith(spec, changes) {
  const changed = { ...spec, ...changes }
  if (changes.concurrency !== undefined && changes.totalConcurrency === undefined && spec.instance === null) {
    changed.totalConcurrency = changes.concurrency
  }
  return Object.freeze(changed)
}

/**
 * The open loop's schedule, from the specification: its rate (of all
 * instances together), arrival, lag limit, the start moment that seeds a
 * shared Poisson schedule, and the --stages profile of the rate.
 * @typedef {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null, seed: number | null,
 *     profile: import('../config/stages.js').Profile | null }} OpenLoop
 */

/**
 * @param {Readonly<RunSpec>} spec
 * @returns {OpenLoop | null}
 */
export function openLoopOf({ rate, arrival, maxLagMs, startAtMs, stages }) {
  if (rate === null) return null
  return { rate, arrival, maxLagMs, seed: startAtMs, profile: stages?.profile ?? null }
}

/**
 * What each client is given of the specification.
 * @param {Readonly<RunSpec>} spec
 * @returns {import('../config/run-settings.js').ClientSettings}
 */
export function clientSettings({ requestsPerClient, seed, requestTimeoutS, statementTimeoutS }) {
  return { requestsPerClient, seed, requestTimeoutS, statementTimeoutS }
}
