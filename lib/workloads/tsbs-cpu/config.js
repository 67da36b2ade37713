import { quote } from '../../helpers/quote.js'
import { INSERT_MAX_ROWS } from './insert-rows.js'
import { randomSeed } from './random.js'
import { MAX_SEED } from '../../config/run-settings.js'

// The workload's own flags of pgloadgen run, and what configure makes of
// them: every impossible setting is refused here, before anything connects.

export const TSBS_START = '2016-01-01T00:00:00Z'
// A COPY batch is made in memory before it is sent: about 150 bytes a row.
export const COPY_MAX_ROWS = 1000000
export const INSERT_METHODS = ['copy-binary', 'copy', 'insert']

/** @type {Record<string, import('../options.js').OptionSpec>} */
export const OPTIONS = {
  hosts: {
    type: 'integer',
    default: 100,
    min: 1,
    max: 1000000,
    describe: 'hosts, each sending one row of ten usage fields per interval (TSBS --scale)'
  },
  interval: { type: 'duration', default: '10s', describe: "each host's point interval (TSBS --log-interval)" },
  start: {
    type: 'string',
    describe: `when simulated time starts, an ISO 8601 time (UTC unless it says otherwise); "now": the real clock (default ${TSBS_START}, as TSBS)`
  },
  clock: {
    type: 'choice',
    choices: ['simulated', 'real'],
    default: 'simulated',
    describe:
      'simulated: time runs as fast as rows are written; real: each host emits a point every interval, batches take what is due'
  },
  'batch-size': {
    type: 'integer',
    default: 10000,
    min: 1,
    describe: `rows per insert_batch (at most ${INSERT_MAX_ROWS} with --insert-method insert, ${COPY_MAX_ROWS} with COPY)`
  },
  'insert-method': {
    type: 'choice',
    choices: INSERT_METHODS,
    default: 'copy-binary',
    describe: "copy-binary (TSBS's default), copy (text), or insert (multi-row INSERT with bind parameters)"
  },
  'late-window': {
    type: 'duration',
    default: '1h',
    describe: 'late_update corrects a point at most this much older than the newest written'
  },
  'out-of-order': {
    type: 'number',
    default: 0,
    min: 0,
    max: 1,
    describe: 'fraction of points sent late, at the end of their batch'
  },
  missing: { type: 'number', default: 0, min: 0, max: 1, describe: 'fraction of points never sent' },
  'partition-interval': {
    type: 'duration',
    describe:
      'make tsbs_cpu range-partitioned by time, one partition per this much time (default: a plain table, as TSBS without TimescaleDB)'
  },
  premake: {
    type: 'integer',
    default: 4,
    min: 0,
    max: 10000,
    describe: 'with --partition-interval: partitions made ahead of the newest time written'
  },
  seed: {
    type: 'integer',
    min: 0,
    max: MAX_SEED,
    describe: "seed of the generated data (default: the run's --seed, else a new one each run)"
  }
}

/**
 * @typedef {object} TsbsConfig
 * @property {number} hosts
 * @property {number} intervalMs
 * @property {'simulated' | 'real'} clock
 * @property {number | null} startMs   null on the real clock: the present at setup
 * @property {number} batchSize
 * @property {'copy-binary' | 'copy' | 'insert'} insertMethod
 * @property {number} lateWindowMs
 * @property {number} outOfOrder
 * @property {number} missing
 * @property {number | null} partitionIntervalS
 * @property {number} premake
 * @property {number} seed
 */

/**
 * @param {{ options: Record<string, any>, seed?: number | null }} given  seed: the run's (a plan's seed:), when its own
 *   option is not given
 * @returns {TsbsConfig}
 */
export function configure({ options, seed = null }) {
  const intervalMs = Math.round(options.interval * 1000)
  if (!(intervalMs >= 1)) throw new Error(`--interval: at least 1ms, got ${options.interval}s`)
  let clock = options.clock
  let startMs = null
  if (options.start === 'now') {
    clock = 'real'
  } else if (options.start !== undefined) {
    if (clock === 'real') {
      throw new Error('--start: the real clock starts now; give --start now or leave --clock simulated')
    }
    startMs = parseTime(options.start)
  } else if (clock === 'simulated') {
    startMs = Date.parse(TSBS_START)
  }
  const method = options.insertMethod
  const maxRows = method === 'insert' ? INSERT_MAX_ROWS : COPY_MAX_ROWS
  if (options.batchSize > maxRows) {
    throw new Error(
      `--batch-size: at most ${maxRows} rows with --insert-method ${method}${method === 'insert' ? ' (65535 bind parameters, 12 a row)' : ''}, got ${options.batchSize}`
    )
  }
  if (options.missing >= 1) throw new Error('--missing: below 1 (with 1 no point would ever be sent)')
  let partitionIntervalS = null
  if (options.partitionInterval !== undefined) {
    partitionIntervalS = options.partitionInterval
    if (!(partitionIntervalS >= 1) || !Number.isInteger(partitionIntervalS)) {
      throw new Error(`--partition-interval: a whole number of seconds, at least 1s, got ${partitionIntervalS}s`)
    }
  }
  return {
    hosts: options.hosts,
    intervalMs,
    clock,
    startMs,
    batchSize: options.batchSize,
    insertMethod: method,
    lateWindowMs: Math.round(options.lateWindow * 1000),
    outOfOrder: options.outOfOrder,
    missing: options.missing,
    partitionIntervalS,
    premake: options.premake,
    seed: options.seed ?? seed ?? randomSeed()
  }
}

/**
 * An ISO 8601 date or time; without a zone, UTC.
 * @param {string} text
 * @returns {number} Unix ms
 */
function parseTime(text) {
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i.exec(text.trim())
  if (iso === null) {
    throw new Error(`--start: expected an ISO 8601 time such as ${TSBS_START}, or now; got ${quote(text)}`)
  }
  const zoned = iso[4] !== undefined || iso[1] === undefined ? text.trim() : `${text.trim()}Z`
  const ms = Date.parse(zoned.replace(' ', 'T'))
  if (!Number.isFinite(ms)) throw new Error(`--start: not a valid time: ${quote(text)}`)
  return ms
}

/**
 * Real clock: each client sends what has come due once per interval, or
 * more often when one batch would not hold an interval's points.
 * @param {TsbsConfig} config
 * @returns {import('../contract.js').Pacing | null}
 */
export function pacing(config) {
  if (config.clock !== 'real') return null
  return { intervalS: (config.intervalMs / 1000) * Math.min(1, config.batchSize / config.hosts) }
}
