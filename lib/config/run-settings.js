import { MAX_TIMER_S } from '../helpers/durations.js'

// The settings of a run, each defined once: its name as a flag of
// `pgloadgen run`, as a field of an experiment plan and of the control API
// where it has one, its type, bounds, default and description. The flags'
// yargs options are made from here (run-options.js); a value given as a
// flag, as a plan's field (experiment/plan.js) or in the body of POST
// /concurrency (http/control.js) is checked against its entry here, with
// one rule and one wording (run-setting-checks.js).

/** The most clients one run (or all instances of one load together) runs. */
export const MAX_CONCURRENCY = 10000
/** The largest --seed (and a workload option of that name): a 31-bit number. */
export const MAX_SEED = 2 ** 31 - 1
/** The most worker threads of --threads. */
export const MAX_THREADS = 256

/** How long a request may wait for its answer by default: k6's default, what a user of load tools expects. */
export const DEFAULT_REQUEST_TIMEOUT_S = 60

/**
 * @typedef {object} SettingSpec
 * @property {'integer' | 'number' | 'duration' | 'choice' | 'mix' | 'thresholds' | 'stages'} type
 *   number: positive; duration: seconds, plain or with s, m, h, d; mix: type=weight,… of the workload's types;
 *   thresholds: [type:]figure op value, repeatable (config/thresholds.js);
 *   stages: duration:target,… (config/stages.js)
 * @property {string | null} flag       its flag of pgloadgen run (null: none)
 * @property {string} [alias]           the flag's letter (pgbench's where it has one)
 * @property {string} [flagLabel]       how a refusal names the flag (default --flag)
 * @property {string | null} plan       its field in an experiment plan (null: none)
 * @property {string | null} api        its field in a control API body (null: none)
 * @property {number} [min]
 * @property {number} [max]
 * @property {readonly string[]} [choices]
 * @property {boolean} [auto]           "auto" is a value too (threads: one per core)
 * @property {boolean} [off]            "off" is a value too: none (null)
 * @property {unknown} default          when not given (null: none)
 * @property {unknown} [planDefault]    a plan's default, where it differs
 * @property {boolean} [defaultAfter]   the default is applied after parsing, not by yargs (the run must know whether
 *   the flag was given)
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
    defaultAfter: true,
    describe: `requests outstanding at all times, one connection each, 1 to ${MAX_CONCURRENCY} (default 8)`
  },
  transactions: {
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
  statsInterval: {
    type: 'duration',
    flag: 'stats-interval',
    plan: 'stats_interval',
    api: null,
    min: 1,
    max: 3600,
    default: 10,
    planDefault: 1,
    defaultAfter: true,
    // a recorded run polls every second, so that what changed in it can be lined up with what the server did
    describe:
      'seconds between polls of the PostgreSQL statistics, 1 to 3600 (default 10; 1 with --record and in a plan)'
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
  maxLag: {
    type: 'number',
    flag: 'max-lag',
    plan: null,
    api: null,
    default: null,
    describe: 'open loop: skip requests more than this many ms behind schedule'
  },
  requestTimeout: {
    type: 'duration',
    flag: 'request-timeout',
    plan: 'request_timeout',
    api: null,
    min: 0.01,
    max: 86400,
    off: true,
    default: DEFAULT_REQUEST_TIMEOUT_S,
    defaultAfter: true,
    // a request that gets no answer in time fails as a timeout, cancelled on the server, and its connection is
    // replaced when the cancel does not end it: a blackholed server cannot hold the run
    describe: `seconds a request may wait for its answer (or 500ms, 2m; off: no limit); then it fails as a timeout and is cancelled on the server, its connection replaced if it is still running 1 s later (default ${DEFAULT_REQUEST_TIMEOUT_S})`
  },
  statementTimeout: {
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
  warmup: {
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
  }
})

/** @typedef {keyof typeof RUN_SETTINGS} SettingName */

/**
 * The yargs options of the settings that have a flag, descriptions
 * included: what run-options.js gives yargs.
 * @returns {Record<string, { alias?: string, type: 'string', default?: string, describe: string }>}
 */
export function settingFlagOptions() {
  /** @type {Record<string, { alias?: string, type: 'string', default?: string, describe: string }>} */
  const options = {}
  for (const spec of Object.values(RUN_SETTINGS)) {
    if (!spec.flag) continue
    options[spec.flag] = {
      ...(spec.alias && { alias: spec.alias }),
      type: 'string',
      ...(spec.default !== null && !spec.defaultAfter && { default: String(spec.default) }),
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
    spec.flag && !spec.sharedWithWorkloads ? [spec.flag, ...(spec.alias ? [spec.alias] : [])] : []
  )
}

/**
 * What each client of a run is given of its settings, as one object from
 * the session down to the worker: pgbench's -t and the seed of its data.
 * @typedef {object} ClientSettings
 * @property {number | null} requestsPerClient   -t: a client stops after this many requests (null: never)
 * @property {number | null} seed                 --seed: each client's random stream is seeded from it and its number
 *   (null: random)
 * @property {number | null} [requestTimeoutMs]   --request-timeout: a request unanswered this long fails and its
 *   connection is replaced (null: never; default DEFAULT_REQUEST_TIMEOUT_S)
 * @property {number | null} [statementTimeoutMs]  --statement-timeout: statement_timeout SET on each client's
 *   connection (null: the server's)
 */

/** @type {Readonly<ClientSettings>} */
export const DEFAULT_CLIENT_SETTINGS = Object.freeze({
  requestsPerClient: null,
  seed: null,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_S * 1000,
  statementTimeoutMs: null
})
