import os from 'node:os'
import { InputError } from '../errors.js'
import { parseMix } from './mix.js'
import { parseThresholds } from './thresholds.js'
import { quote, shown } from '../helpers/quote.js'
import { DURATION_UNITS } from './numbers.js'
import { parseStages } from './stages.js'
import { MAX_RUN_S } from './numbers.js'
import { MAX_TIMER_S } from '../helpers/durations.js'

// The settings of a run, each defined once: its name as a flag of
// `pgloadgen run`, as a field of an experiment plan and of the control API
// where it has one, its type, bounds, default and description. The flags'
// yargs options are made from here (run-options.js), the plan's fields are
// read through here (experiment/plan.js), and POST /concurrency checks its
// body here (http/control.js): one rule, one wording, wherever the value
// comes from:
//
//   --concurrency must be a whole number from 1 to 10000, got "0"
//   variants[1].steps[0].concurrency must be a whole number from 1 to 10000, got 0
//   concurrency must be a whole number from 1 to 10000, got 0     (the API's 400)
//
// A flag's value is text, parsed; a plan's or the API's is a JSON or YAML
// value, whose type must already be right (8, not "8").

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
    describe:
      `seed of the generated data, 0 to ${MAX_SEED}: each client's rows and random choices repeat ` +
      `(and pgbench scripts' --random-seed); default: random`
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
    // a request that gets no answer in time fails as a timeout, and its connection is replaced: a blackholed server
    // cannot hold the run
    describe:
      `seconds a request may wait for its answer (or 500ms, 2m; off: no limit); ` +
      `then it fails as a timeout and its connection is replaced (default ${DEFAULT_REQUEST_TIMEOUT_S})`
  },
  thresholds: {
    type: 'thresholds',
    flag: 'threshold',
    plan: null,
    api: null,
    default: null,
    describe:
      'a condition the run must meet, [type:]figure op value: p99<5ms, insert_row:p95<2ms, throughput>5000, ' +
      'unexpected_failures==0, audit==exact (repeatable; exit 3 when one fails; see docs/thresholds.md)'
  },
  stages: {
    type: 'stages',
    flag: 'stages',
    plan: null,
    api: null,
    default: null,
    describe:
      'load over time, duration:target,… like 30s:8,2m:32,30s:0: the clients (with --rate: ' +
      'the requests/s) ramp linearly from one target to the next, from 1 client (or the --rate); ' +
      'the run lasts the stages unless -d (docs/load-over-time.md)'
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
      'the first seconds of load are left out of the summary, its histograms and the end table, and shown apart ' +
      '(docs/load-over-time.md)'
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
 * Where a value was given: 'flag' (a command line's text), 'api' (a control
 * API body), or the path of a plan's field (variants[1].steps[0].concurrency).
 * @typedef {'flag' | 'api' | string} Where
 */

/**
 * How a refusal names the setting where it was given.
 * @param {SettingSpec} spec
 * @param {Where} where
 */
function labelOf(spec, where) {
  if (where === 'flag') return spec.flagLabel ?? `--${spec.flag}`
  if (where === 'api') return /** @type {string} */ (spec.api)
  return where
}

/**
 * The choices in words: "a, b or c".
 * @param {readonly string[]} choices
 */
function inWords(choices) {
  return choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`
}

/**
 * Checks one setting's value as given there, and returns it as the run
 * uses it; a refusal is one line naming it as it was given.
 * @param {SettingName} name
 * @param {unknown} value
 * @param {Where} where
 * @param {{ types?: readonly string[],
 *     openLoop?: boolean } & import('./thresholds.js').ThresholdContext} [context]  mix and thresholds: the workload's
 * request types; thresholds: the run's loop and whether it audits writes; stages: whether they are rates
 * @returns {any}
 */
export function checkSetting(name, value, where, context = {}) {
  const spec = RUN_SETTINGS[name]
  const label = labelOf(spec, where)
  const text = where === 'flag'
  /** @param {string} problem */
  const refuse = problem => new InputError(`${label} ${problem}, got ${text ? quote(value, 40) : shown(value, 40)}`)
  switch (spec.type) {
    case 'integer': {
      if (spec.auto && value === 'auto') return os.availableParallelism()
      const bounds =
        spec.max === Number.MAX_SAFE_INTEGER ? `of at least ${spec.min}` : `from ${spec.min} to ${spec.max}`
      const problem = `must be a whole number ${bounds}${spec.auto ? ', or auto' : ''}`
      let n
      if (text) {
        const trimmed = String(value).trim()
        if (!/^-?\d+$/.test(trimmed)) throw refuse(problem)
        n = Number(trimmed)
      } else {
        if (!Number.isInteger(value)) throw refuse(problem)
        n = /** @type {number} */ (value)
      }
      if (!(n >= /** @type {number} */ (spec.min) && n <= /** @type {number} */ (spec.max))) throw refuse(problem)
      return n
    }
    case 'number': {
      const n = text ? Number(value) : value
      if ((text && String(value).trim() === '') || typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
        throw refuse('must be a positive number')
      }
      return n
    }
    case 'duration': {
      if (spec.off && value === 'off') return null
      let seconds
      if (!text && typeof value === 'number') {
        seconds = value
      } else {
        const match =
          typeof value === 'string' || text ? /^(\d+(?:\.\d+)?)\s*(ms|[smhd]?)$/.exec(String(value).trim()) : null
        if (!match) throw refuse(`must be a duration in seconds (or with ms, s, m, h, d)${spec.off ? ', or off' : ''}`)
        seconds = Number(match[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ (match[2])]
      }
      if (!(seconds >= /** @type {number} */ (spec.min) && seconds <= /** @type {number} */ (spec.max)))
        throw refuse(`must be between ${spec.min} and ${spec.max} seconds${spec.off ? ', or off' : ''}`)
      return seconds
    }
    case 'choice':
      if (!(/** @type {readonly unknown[]} */ (spec.choices).includes(value)))
        throw refuse(`must be ${inWords(/** @type {readonly string[]} */ (spec.choices))}`)
      return value
    case 'mix':
      if (typeof value !== 'string' || value.trim() === '') {
        throw refuse('must be request types and weights, like insert_row=60,read_row=40')
      }
      return context.types ? parseMix(value, context.types, label) : value
    case 'thresholds':
      // a list, each refused in its own words (config/thresholds.js)
      return parseThresholds(value, { ...context, label })
    case 'stages':
      // a closed loop's targets are clients; an open loop's, requests/s
      return parseStages(value, {
        whole: !context.openLoop,
        max: context.openLoop ? Infinity : MAX_CONCURRENCY,
        maxSeconds: MAX_RUN_S,
        refuse
      })
  }
}

/**
 * The settings a command line or a plan gives, each checked, with its
 * default where not given: by setting name. A plan's fields are read at
 * prefix (prepare.) when given. A mix is checked against context.types
 * when given, else kept as text.
 * @param {'flag' | 'plan'} source
 * @param {Record<string, unknown>} values   yargs' arguments (camelCase), or the plan's object
 * @param {{ prefix?: string, types?: readonly string[], only?: readonly SettingName[],
 *     defaults?: Partial<Record<SettingName, unknown>> }} [options]
 * @returns {Record<SettingName, any>}
 */
export function parseRunSettings(source, values, { prefix = '', types, only, defaults = {} } = {}) {
  /** @type {Record<string, any>} */
  const settings = {}
  for (const name of only ?? /** @type {SettingName[]} */ (Object.keys(RUN_SETTINGS))) {
    const spec = RUN_SETTINGS[name]
    const key = source === 'flag' ? spec.flag && camelCase(spec.flag) : spec.plan
    if (!key) continue
    const value = values[key]
    const fallback =
      name in defaults
        ? defaults[name]
        : source === 'plan' && spec.planDefault !== undefined
          ? spec.planDefault
          : spec.default
    settings[name] =
      value === undefined
        ? fallback
        : checkSetting(name, value, source === 'flag' ? 'flag' : `${prefix}${key}`, { types })
  }
  return settings
}

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
 * kebab-case to camelCase, as yargs names a flag's value.
 * @param {string} name
 */
function camelCase(name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
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
 */

/** @type {Readonly<ClientSettings>} */
export const DEFAULT_CLIENT_SETTINGS = Object.freeze({
  requestsPerClient: null,
  seed: null,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_S * 1000
})
