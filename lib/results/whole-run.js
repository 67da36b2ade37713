import { activeTypes, timeline } from './timeline.js'
import { autovacuumsSeen, fillfactorSet, retentionTotals } from './run-actions.js'
import { isNumber, maxOf, mean, spread } from './arithmetic.js'
import { roundOrNull } from '../helpers/numbers.js'

// The figures of a whole run, for plans whose variants are not one action
// under load (retention run periodically, a fillfactor changed, a ramp):
// what the load delivered, what the table became, what autovacuum and
// retention did, and the workload's own statistics; and across the
// repetitions of a variant. Each figure's definition is WHOLE_RUN_METHOD,
// written into the experiment's summary.json.

export const WHOLE_RUN_METHOD = {
  samples:
    "rates and latencies: the samples of the load but the first (connections being set up) and paused seconds; the table's figures and the workload's statistics: every sample that holds them",
  seconds: 'seconds the counted samples cover',
  requests_per_s: 'requests done in the counted samples / the seconds they cover, all request types',
  failed_per_s: 'requests failed in the counted samples / the seconds they cover, all request types',
  rows_per_s:
    'rows the requests reported written (acknowledged by the server) in the counted samples / the seconds they cover; null when the workload reported none',
  points_per_s: 'points (metric values) written, likewise',
  latency_p99_us:
    "mean of the per-second all-type p99 (a second's all-type p99 is the done-weighted mean of the per-type p99)",
  latency_p99_us_by_type:
    'per request type, mean of its per-second p99 over the counted seconds in which it completed requests',
  start_lag_p99_us:
    'mean of the per-second p99 of how late paced (or open-loop) requests started against their schedule; null when the samples hold none',
  dead_tuples_peak:
    "highest dead-tuple count of the workload's table in the samples (a partitioned table: its partitions added up)",
  table_bytes_end:
    'pg_total_relation_size of the table (heap, indexes, TOAST; partitions added up) in the last sample that has it',
  table_bytes_peak: 'the highest such size in the samples',
  partitions_end: 'partitions of the table in the last sample that counts them',
  xid_age_end: "age of the table's relfrozenxid in the last sample that has it",
  autovacuum_runs:
    'when the workload has a statistic counting autovacuums (the first whose name holds "autovacuum"): its rises from sample to sample, added up over the run; else autovacuums_seen',
  autovacuum_source: "what autovacuum_runs counted: the statistic's name, or samples",
  autovacuums_seen:
    "distinct autovacuums of the table (or its partitions) in the samples' vacuum progress: a new one where a sample shows an autovacuum after one that showed none, or another mode, another heap size, an earlier phase or fewer blocks scanned; one that starts and ends between two polls is missed",
  retention:
    'from the end events of the drop-partitions and delete actions: runs (skipped and failed ones too), failed, skipped, rows_removed (the rows of the partitions dropped, counted right before each drop, plus the rows deleted; a failed run counts what it committed), partitions_dropped, bytes_dropped (their pg_total_relation_size), batches (DELETE transactions), seconds (all runs) and max_seconds (the longest run)',
  fillfactor: "the fillfactor the run's last successful fillfactor action set",
  rows_missing:
    "from the run's summary.json: rows reported written that the table did not gain, rows removed by retention accounted for",
  workload: "each of the workload's own statistics over the samples that hold it: first, last, mean, max",
  across_repetitions: 'mean, min, max and spread = (max - min) / mean of each figure over the repetitions that have it'
}

/**
 * @typedef {object} StatisticFigures
 * @property {number | null} first
 * @property {number | null} last
 * @property {number | null} mean
 * @property {number | null} max
 */

/**
 * @typedef {object} RunWhole
 * @property {number} seconds
 * @property {number | null} requests_per_s
 * @property {number | null} failed_per_s
 * @property {number | null} rows_per_s
 * @property {number | null} points_per_s
 * @property {number | null} latency_p99_us
 * @property {Record<string, number | null>} latency_p99_us_by_type
 * @property {number | null} start_lag_p99_us
 * @property {number | null} dead_tuples_peak
 * @property {number | null} table_bytes_end
 * @property {number | null} table_bytes_peak
 * @property {number | null} partitions_end
 * @property {number | null} xid_age_end
 * @property {number | null} autovacuum_runs
 * @property {string | null} autovacuum_source   the statistic counted, or 'samples'
 * @property {number | null} autovacuums_seen    null: no PostgreSQL figures in the samples
 * @property {import('./run-actions.js').RetentionTotals | null} retention
 * @property {number | null} fillfactor
 * @property {number | null} rows_missing
 * @property {Record<string, StatisticFigures>} workload
 */

/**
 * @param {import('./read.js').RunData} run
 * @returns {RunWhole}
 */
export function runWhole(run) {
  const counted = timeline(run)
    .slice(1)
    .filter(p => !p.paused)
  const seconds = counted.reduce((sum, p) => sum + p.dt, 0)
  /** @param {(p: import('./timeline.js').Point) => number | null} pick */
  const perSecond = pick => (seconds > 0 ? counted.reduce((sum, p) => sum + (pick(p) ?? 0) * p.dt, 0) / seconds : null)
  const wrote = (/** @type {'rows' | 'points'} */ key) =>
    run.samples.some(s => isNumber(s[key]) && /** @type {number} */ (s[key]) > 0)
  /** @type {Record<string, number | null>} */
  const byType = {}
  for (const type of activeTypes([run])) {
    byType[type] = roundOrNull(mean(counted.filter(p => (p.types[type]?.rate ?? 0) > 0).map(p => p.types[type].p99)), 0)
  }
  const pg = /** @type {import('./read.js').PgFigures[]} */ (run.samples.map(s => s.pg).filter(figures => figures))
  const last = (/** @type {(f: import('./read.js').PgFigures) => unknown} */ pick) => {
    for (let i = pg.length - 1; i >= 0; i--) {
      const value = pick(pg[i])
      if (isNumber(value)) return value
    }
    return null
  }
  const workload = workloadFigures(run.samples)
  const counter = Object.keys(workload).find(name => /autovacuum/.test(name) && !/running/.test(name)) ?? null
  const seen = pg.length > 0 ? autovacuumsSeen(run.samples) : null
  const missing = run.summary?.rows_missing
  return {
    seconds: roundOrNull(seconds, 1) ?? 0,
    requests_per_s: roundOrNull(
      perSecond(p => p.rate),
      1
    ),
    failed_per_s: roundOrNull(
      perSecond(p => Object.values(p.types).reduce((n, type) => n + type.failedRate, 0)),
      1
    ),
    rows_per_s: wrote('rows')
      ? roundOrNull(
          perSecond(p => p.rowsRate),
          1
        )
      : null,
    points_per_s: wrote('points')
      ? roundOrNull(
          perSecond(p => p.pointsRate),
          1
        )
      : null,
    latency_p99_us: roundOrNull(mean(counted.map(p => p.p99)), 0),
    latency_p99_us_by_type: byType,
    start_lag_p99_us: roundOrNull(mean(counted.map(p => p.lagP99)), 0),
    dead_tuples_peak: maxOf(pg.map(f => f.dead_tuples)),
    table_bytes_end: last(f => f.table_bytes),
    table_bytes_peak: maxOf(pg.map(f => f.table_bytes)),
    partitions_end: last(f => f.partitions),
    xid_age_end: last(f => f.xid_age),
    autovacuum_runs: counter !== null ? rises(run.samples, counter) : seen,
    autovacuum_source: counter ?? (seen === null ? null : 'samples'),
    autovacuums_seen: seen,
    retention: retentionTotals(run.events),
    fillfactor: fillfactorSet(run.events),
    rows_missing: isNumber(missing) ? missing : null,
    workload
  }
}

/**
 * First, last, mean and max of each of the workload's statistics.
 * @param {import('./read.js').Sample[]} samples
 * @returns {Record<string, StatisticFigures>}
 */
function workloadFigures(samples) {
  /** @type {Map<string, number[]>} */
  const values = new Map()
  for (const sample of samples) {
    for (const [name, value] of Object.entries(sample.workload ?? {})) {
      if (!isNumber(value)) continue
      const list = values.get(name)
      if (list) list.push(value)
      else values.set(name, [value])
    }
  }
  /** @type {Record<string, StatisticFigures>} */
  const out = {}
  for (const [name, list] of values) {
    out[name] = { first: list[0], last: list[list.length - 1], mean: roundOrNull(mean(list), 4), max: maxOf(list) }
  }
  return out
}

/**
 * The rises of a counter from sample to sample, added up: its increase
 * over the run, also across a reset of the statistics.
 * @param {import('./read.js').Sample[]} samples
 * @param {string} name
 */
function rises(samples, name) {
  let total = 0
  /** @type {number | null} */
  let previous = null
  for (const sample of samples) {
    const value = sample.workload?.[name]
    if (!isNumber(value)) continue
    if (previous !== null && value > previous) total += value - previous
    previous = value
  }
  return total
}

const PLAIN = /** @type {const} */ ([
  'seconds',
  'requests_per_s',
  'failed_per_s',
  'rows_per_s',
  'points_per_s',
  'latency_p99_us',
  'start_lag_p99_us',
  'dead_tuples_peak',
  'table_bytes_end',
  'table_bytes_peak',
  'partitions_end',
  'xid_age_end',
  'autovacuum_runs',
  'autovacuums_seen',
  'fillfactor',
  'rows_missing'
])
const RETENTION_KEYS = /** @type {const} */ ([
  'runs',
  'failed',
  'skipped',
  'rows_removed',
  'partitions_dropped',
  'bytes_dropped',
  'batches',
  'seconds',
  'max_seconds'
])
const STATISTIC_KEYS = /** @type {const} */ (['first', 'last', 'mean', 'max'])

/**
 * @typedef {Record<typeof PLAIN[number], import('./arithmetic.js').Spread> & {
 *   repetitions: number,
 *   autovacuum_source: string | null,
 *   latency_p99_us_by_type: Record<string, import('./arithmetic.js').Spread>,
 *   retention: Record<typeof RETENTION_KEYS[number], import('./arithmetic.js').Spread> | null,
 *   workload: Record<string, Record<typeof STATISTIC_KEYS[number], import('./arithmetic.js').Spread>>
 * }} WholeSpread
 */

/**
 * Each figure's mean, min, max and spread over the repetitions.
 * @param {RunWhole[]} reps
 * @returns {WholeSpread}
 */
export function wholeSpread(reps) {
  const out = /** @type {WholeSpread} */ (/** @type {unknown} */ ({ repetitions: reps.length }))
  for (const key of PLAIN) out[key] = spread(reps.map(r => r[key]))
  const sources = [...new Set(reps.map(r => r.autovacuum_source).filter(s => s !== null))]
  out.autovacuum_source = sources.length ? sources.join(', ') : null
  out.latency_p99_us_by_type = {}
  for (const type of new Set(reps.flatMap(r => Object.keys(r.latency_p99_us_by_type)))) {
    out.latency_p99_us_by_type[type] = spread(reps.map(r => r.latency_p99_us_by_type[type] ?? null))
  }
  const withRetention = reps.filter(r => r.retention !== null)
  out.retention = null
  if (withRetention.length > 0) {
    out.retention = /** @type {NonNullable<WholeSpread['retention']>} */ ({})
    for (const key of RETENTION_KEYS) out.retention[key] = spread(withRetention.map(r => r.retention?.[key] ?? null))
  }
  out.workload = {}
  for (const name of new Set(reps.flatMap(r => Object.keys(r.workload)))) {
    out.workload[name] = /** @type {WholeSpread['workload'][string]} */ ({})
    for (const key of STATISTIC_KEYS) out.workload[name][key] = spread(reps.map(r => r.workload[name]?.[key] ?? null))
  }
  return out
}
