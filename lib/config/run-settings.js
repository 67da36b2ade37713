import { MAX_TIMER_S } from '../helpers/durations.js'
import { MAX_RUN_S } from './number-flags.js'

// The settings of a run, each defined once: its name in the run
// specification (the key: lib/lab/run-spec.js), as a flag of `pgloadgen
// run`, as a field of an experiment plan and of the control API where it
// has one, its type, bounds, default and description. The flags' yargs
// options are made from here (run-options.js); a value given as a flag, as
// a plan's field (experiment/plan.js) or in the body of POST /concurrency
// (http/control.js) is checked against its entry here, with one rule and
// one wording (run-setting-checks.js); its default is applied once, when
// the run specification is built (lib/lab/run-spec.js).

/** The most clients one run (or all instances of one load together) runs. */
export const MAX_CONCURRENCY = 10000
/** The largest --seed (and a workload option of that name): a 31-bit number. */
export const MAX_SEED = 2 ** 31 - 1
/** The most worker threads of --threads. */
export const MAX_THREADS = 256

/** How long a request may wait for its answer by default: k6's default, what a user of load tools expects. */
const DEFAULT_REQUEST_TIMEOUT_S = 60

/**
 * @typedef {object} SettingSpec
 * @property {'integer' | 'number' | 'duration' | 'choice' | 'mix' | 'thresholds' | 'stages' | 'boolean' | 'path'} type
 *   number: positive; duration: seconds, plain or with s, m, h, d; mix: type=weight,… of the workload's types;
 *   boolean: a flag without a value (--no-NAME: false); path: a directory, resolved;
 *   thresholds: [type:]figure op value, repeatable (config/thresholds.js);
 *   stages: duration:target,… (config/stages.js)
 * @property {string | null} flag       its flag of pgloadgen run (null: none)
 * @property {string | string[]} [alias]  the flag's letter (pgbench's where it has one)
 * @property {string} [flagLabel]       how a refusal names the flag (default --flag)
 * @property {string | null} plan       its field in an experiment plan (null: none)
 * @property {string | null} api        its field in a control API body (null: none)
 * @property {number} [min]
 * @property {number} [max]
 * @property {readonly string[]} [choices]
 * @property {boolean} [auto]           "auto" is a value too (threads: one per core)
 * @property {boolean} [off]            "off" is a value too: none (null)
 * @property {unknown} default          when not given (null: none); a function: of the other settings as given
 *   (the statistics' interval is shorter for a recorded run), applied when the run specification is built
 * @property {string} [defaultText]     a function default, in words (the CLI's help and the plan reference)
 * @property {boolean} [sharedWithWorkloads]  a workload may declare an option of the flag's name: it is given the same
 *   value (tsbs-cpu's seed)
 * @property {string} describe
 */

/** @type {Readonly<Record<string, SettingSpec>>} */
export const RUN_SETTINGS = Object.freeze({
  concurrency: {
    type: 'integer',
    flag: 'concurrency',
    alias: 'c',
    plan: 'concurrency',
    api: 'concurrency',
    min: 1,
    max: MAX_CONCURRENCY,
    default: 8,
    describe: `requests outstanding at all times, one connection each, 1 to ${MAX_CONCURRENCY}`
  },
  requestsPerClient: {
    type: 'integer',
    flag: 'transactions',
    alias: 't',
    plan: null,
    api: null,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    default: null,
    describe: "pgbench's -t: each client stops after this many requests; the run ends when all have"
  },
  seed: {
    type: 'integer',
    flag: 'seed',
    plan: 'seed',
    api: null,
    min: 0,
    max: MAX_SEED,
    default: null,
    sharedWithWorkloads: true,
    describe: `seed of the generated data, 0 to ${MAX_SEED}: each client's rows and random choices repeat (and pgbench scripts' --random-seed); default: random`
  },
  protocol: {
    type: 'choice',
    flag: 'protocol',
    alias: 'M',
    flagLabel: '--protocol (-M)',
    plan: 'protocol',
    api: null,
    choices: ['simple', 'extended', 'prepared'],
    default: 'prepared',
    describe: 'prepared (named statements), extended (unnamed: works through PgBouncer in transaction mode) or simple'
  },
  mix: {
    type: 'mix',
    flag: 'mix',
    plan: 'mix',
    api: null,
    default: null,
    describe: "request types and their weights, e.g. insert_row=60,read_row=40; default: the workload's"
  },
  statsIntervalS: {
    type: 'duration',
    flag: 'stats-interval',
    plan: 'stats_interval',
    api: null,
    min: 1,
    max: 3600,
    // a recorded run (every run of a plan is) polls every second, so that what changed in it can be lined up with
    // what the server did
    default: (/** @type {{ recordDir?: string | null }} */ given) => (given.recordDir ? 1 : 10),
    defaultText: '1 with --record and in a plan, else 10',
    describe: 'seconds between polls of the PostgreSQL statistics, 1 to 3600'
  },
  rate: {
    type: 'number',
    flag: 'rate',
    alias: 'R',
    plan: null,
    api: null,
    default: null,
    describe: 'open loop: requests per second on a schedule instead of a closed loop'
  },
  arrival: {
    type: 'choice',
    flag: 'arrival',
    plan: null,
    api: null,
    choices: ['poisson', 'fixed'],
    default: 'poisson',
    describe: 'open-loop schedule: poisson or fixed'
  },
  maxLagMs: {
    type: 'number',
    flag: 'max-lag',
    plan: null,
    api: null,
    default: null,
    describe: 'open loop: skip requests more than this many ms behind schedule'
  },
  requestTimeoutS: {
    type: 'duration',
    flag: 'request-timeout',
    plan: 'request_timeout',
    api: null,
    min: 0.01,
    max: 86400,
    off: true,
    default: DEFAULT_REQUEST_TIMEOUT_S,
    // a request that gets no answer in time fails as a timeout, cancelled on the server, and its connection is
    // replaced when the cancel does not end it: a blackholed server cannot hold the run
    describe: `seconds a request may wait for its answer (or 500ms, 2m; off: no limit); then it fails as a timeout and is cancelled on the server, its connection replaced if it is still running 1 s later`
  },
  statementTimeoutS: {
    type: 'duration',
    flag: 'statement-timeout',
    plan: null,
    api: null,
    min: 0.001,
    max: 86400,
    off: true,
    default: null,
    // the server's own limit, SET on each client's connection: it stops a long statement itself, even when the
    // client cannot reach it any more (docs/timeouts-and-partitions.md)
    describe:
      "statement_timeout SET on each client connection (seconds, or 500ms, 2m; off: the server's own): the server cancels a statement running longer, and the request fails with SQLSTATE 57014"
  },
  thresholds: {
    type: 'thresholds',
    flag: 'threshold',
    plan: null,
    api: null,
    default: null,
    describe:
      'a condition the run must meet, [type:]figure op value: p99<5ms, insert_row:p95<2ms, throughput>5000, unexpected_failures==0, audit==exact (repeatable; exit 3 when one fails; see docs/thresholds.md)'
  },
  stages: {
    type: 'stages',
    flag: 'stages',
    plan: null,
    api: null,
    default: null,
    describe:
      'load over time, duration:target,... like 30s:8,2m:32,30s:0: the clients (with --rate: the requests/s) ramp linearly from one target to the next, from 1 client (or the --rate); the run lasts the stages unless -d (docs/load-over-time.md)'
  },
  warmupS: {
    type: 'duration',
    flag: 'warmup',
    plan: 'warmup',
    api: null,
    min: 0,
    max: MAX_TIMER_S,
    default: null,
    describe:
      'the first seconds of load are left out of the summary, its histograms and the end table, and shown apart (docs/load-over-time.md)'
  },
  threads: {
    type: 'integer',
    flag: 'threads',
    alias: 'j',
    plan: null,
    api: null,
    min: 1,
    max: MAX_THREADS,
    auto: true,
    default: 1,
    describe: `worker threads the clients are split over, pgbench's -j, 1 to ${MAX_THREADS} (auto: one per core)`
  },
  durationS: {
    type: 'duration',
    flag: 'duration',
    alias: ['d', 'T'],
    plan: null,
    api: null,
    min: 0.001,
    max: MAX_RUN_S,
    default: null,
    describe: 'seconds to run (or 15m, 2h); default until SIGINT/SIGTERM'
  },
  connectTimeoutS: {
    type: 'duration',
    flag: 'connect-timeout',
    plan: null,
    api: null,
    min: 0.001,
    max: MAX_TIMER_S,
    default: 15,
    describe: 'seconds to wait for the server at start'
  },
  shutdownTimeoutS: {
    type: 'duration',
    flag: 'shutdown-timeout',
    plan: null,
    api: null,
    min: 0.001,
    max: MAX_TIMER_S,
    default: 10,
    describe: 'seconds to wait for requests in flight at exit'
  },
  verifyTimeoutS: {
    type: 'duration',
    flag: 'verify-timeout',
    plan: null,
    api: null,
    min: 0.001,
    max: MAX_TIMER_S,
    default: 60,
    describe: 'seconds to spend checking acknowledged inserts at exit'
  },
  reset: {
    type: 'boolean',
    flag: 'reset',
    plan: null,
    api: null,
    default: false,
    describe: "drop and recreate the workload's tables first"
  },
  recordDir: {
    type: 'path',
    flag: 'record',
    plan: null,
    api: null,
    default: null,
    describe: 'write per-second samples, events, run.json and summary.json to this directory'
  },
  pgStats: {
    type: 'boolean',
    flag: 'pg-stats',
    plan: null,
    api: null,
    default: true,
    describe: 'export PostgreSQL statistics on /metrics too (--no-pg-stats: do not)'
  },
  thresholdAbort: {
    type: 'boolean',
    flag: 'threshold-abort',
    plan: null,
    api: null,
    default: false,
    describe:
      'check the --threshold conditions every second while running, and stop the run when one has failed for good (exit 3)'
  }
})

/** @typedef {keyof typeof RUN_SETTINGS} SettingName */

/**
 * @typedef {object} FlagOption  what yargs is given of a setting's flag: no default, which the run specification
 *   applies (lib/lab/run-spec.js), only its words for the help
 * @property {string | string[]} [alias]
 * @property {'string' | 'boolean'} type
 * @property {string} [defaultDescription]
 * @property {string} describe
 */

/**
 * A setting's default: for the run specification (lib/lab/run-spec.js),
 * and for a command that shares a setting without being a run (pgloadgen
 * stats's --stats-interval).
 * @param {SettingName} name
 * @param {Record<string, unknown>} given   the other settings given (a default may depend on them)
 * @returns {unknown}
 */
export function settingDefault(name, given) {
  const fallback = RUN_SETTINGS[name].default
  return typeof fallback === 'function' ? fallback(given) : fallback
}

/**
 * A setting's default in words.
 * @param {SettingSpec} spec
 * @returns {string | null}  null: none
 */
export function defaultInWords(spec) {
  if (typeof spec.default === 'function') return spec.defaultText ?? null
  return spec.default === null ? null : String(spec.default)
}

/**
 * The yargs options of the settings that have a flag, descriptions
 * included: what run-options.js gives yargs.
 * @returns {Record<string, FlagOption>}
 */
export function settingFlagOptions() {
  /** @type {Record<string, FlagOption>} */
  const options = {}
  for (const spec of Object.values(RUN_SETTINGS)) {
    if (!spec.flag) continue
    const shown = defaultInWords(spec)
    options[spec.flag] = {
      ...(spec.alias && { alias: spec.alias }),
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      ...(shown !== null && { defaultDescription: shown }),
      describe: spec.describe
    }
  }
  return options
}

/**
 * The yargs option of one setting's flag.
 * @param {SettingName} name
 */
export function settingFlagOption(name) {
  return settingFlagOptions()[/** @type {string} */ (RUN_SETTINGS[name].flag)]
}

/** The flags of the settings, with their letters: names a workload's options may not take (but those it may share). */
export function settingFlagNames() {
  return Object.values(RUN_SETTINGS).flatMap(spec =>
    spec.flag && !spec.sharedWithWorkloads ? [spec.flag, ...[spec.alias ?? []].flat()] : []
  )
}

/**
 * What each client of a run is given of the run specification, under its
 * names there, as one object from the session down to the worker: -t, the
 * seed of its data and its timeouts (lib/lab/run-spec.js RunSpec).
 * @typedef {object} ClientSettings
 * @property {number | null} requestsPerClient   -t: a client stops after this many requests (null: never)
 * @property {number | null} seed                 --seed: each client's random stream is seeded from it and its number
 *   (null: random)
 * @property {number | null} requestTimeoutS     --request-timeout: a request unanswered this long fails, is cancelled
 *   and its connection replaced when the cancel does not end it (null: never)
 * @property {number | null} statementTimeoutS   --statement-timeout: statement_timeout SET on each client's connection
 *   (null: the server's)
 */
