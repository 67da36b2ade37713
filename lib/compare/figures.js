import { isNumber, mean } from '../results/arithmetic.js'
import { roundOrNull } from '../helpers/numbers.js'
import { ALL_TYPES, entryLatency, PERCENTILES } from './latency.js'
import { runFigures } from './run-figures.js'

// The figures compared, and each entry's value of each: the entry's own
// (its repetitions together) and one per repetition, which the intervals
// are computed from.

/**
 * @typedef {object} Figure
 * @property {string} key
 * @property {'load' | 'latency' | 'failures' | 'server'} group
 * @property {string} label
 * @property {'rate' | 'us' | 'count' | 'bytes' | 'seconds'} unit
 * @property {'higher' | 'lower' | null} better   which way is better; null: neither (a count of work done, of injected
 *   errors)
 */

/**
 * @typedef {object} EntryFigures
 * @property {Record<string, number | null>} values             the entry's, by figure key
 * @property {Record<string, (number | null)[]>} repetitions    one per repetition, by figure key
 * @property {string[]} types                                   request types that completed requests
 * @property {(string | null)[]} autovacuum_sources             where each repetition's autovacuums were counted
 */

/** How each figure of an entry with repetitions is made, for --json and docs/experiments.md. */
export const FIGURES_METHOD = {
  throughput:
    "a run's summary.json throughput; of repetitions, their requests done / their seconds of load together (each repetition's own for the interval)",
  latency:
    "percentiles of every request of every repetition, from their raw histograms added bucket by bucket (summary.json's histograms), never an average of percentiles; per request type and over all types",
  failures:
    "per run, the mean over the repetitions: failed (every failed request), unexpected (summary.json's unexpected_failures), expected (the others: injected errors)",
  server:
    "per run, the mean over the repetitions that recorded it: dead tuples of the workload's table (peak and last sample), its size (pg_total_relation_size, last sample), the WAL the whole server wrote over the load (its insert position at the start and the end; recorded runs since it was added), the WAL the run's vacuums wrote themselves (their reports), the sidecar's vacuums that ended and the seconds they took (events), autovacuums (the server log when it was read, else the samples' vacuum progress); a figure not recorded is n/a, never 0"
}

/** @type {Figure[]} */
const LOAD = [{ key: 'throughput', group: 'load', label: 'throughput, req/s', unit: 'rate', better: 'higher' }]

/** @type {Figure[]} */
const FAILURES = [
  // injected errors are part of the mix: more requests, more of them; only the unexpected are worse
  { key: 'failed', group: 'failures', label: 'failed', unit: 'count', better: null },
  { key: 'unexpected_failures', group: 'failures', label: 'unexpected failures', unit: 'count', better: 'lower' },
  { key: 'expected_failures', group: 'failures', label: 'expected failures', unit: 'count', better: null }
]

/** @type {Figure[]} */
const SERVER = [
  { key: 'dead_tuples_peak', group: 'server', label: 'dead tuples, peak', unit: 'count', better: 'lower' },
  { key: 'dead_tuples_end', group: 'server', label: 'dead tuples, end', unit: 'count', better: 'lower' },
  { key: 'table_bytes_end', group: 'server', label: 'table size, end', unit: 'bytes', better: 'lower' },
  { key: 'server_wal_bytes', group: 'server', label: 'WAL, whole server', unit: 'bytes', better: 'lower' },
  { key: 'vacuum_wal_bytes', group: 'server', label: 'vacuum WAL', unit: 'bytes', better: 'lower' },
  { key: 'vacuum_s', group: 'server', label: 'vacuum time', unit: 'seconds', better: 'lower' },
  { key: 'vacuums', group: 'server', label: 'vacuums', unit: 'count', better: null },
  { key: 'autovacuums', group: 'server', label: 'autovacuums', unit: 'count', better: null }
]

/**
 * The key of a latency figure.
 * @param {string} type   a request type, or 'all'
 * @param {string} percentile   p50 … p99.9
 */
export function latencyKey(type, percentile) {
  return `latency.${type}.${percentile}`
}

/**
 * Every figure, with a row per percentile of all types and of each type
 * any entry completed (the baseline's types first).
 * @param {EntryFigures[]} entries
 * @returns {Figure[]}
 */
export function figureList(entries) {
  const types = [...new Set(entries.flatMap(e => e.types))]
  /** @type {Figure[]} */
  const latency = []
  for (const type of [ALL_TYPES, ...types]) {
    for (const [name] of PERCENTILES)
      latency.push({
        key: latencyKey(type, name),
        group: 'latency',
        label: `${type === ALL_TYPES ? 'all types' : type} ${name}`,
        unit: 'us',
        better: 'lower'
      })
  }
  return [...LOAD, ...latency, ...FAILURES, ...SERVER]
}

/**
 * An entry's figures.
 * @param {import('./read-entries.js').Entry} entry
 * @returns {EntryFigures}
 */
export function entryFigures(entry) {
  const latency = entryLatency(entry.summaries)
  const perRun = entry.runs.map((run, i) => runFigures(run, entry.summaries[i]))
  /** @type {Record<string, number | null>} */
  const values = {}
  /** @type {Record<string, (number | null)[]>} */
  const repetitions = {}
  const elapsed = perRun.reduce((n, r) => n + r.elapsed_s, 0)
  // one run: its summary's figure, exactly; repetitions: their requests over their seconds together
  values.throughput =
    perRun.length === 1
      ? perRun[0].throughput
      : elapsed > 0
        ? roundOrNull(perRun.reduce((n, r) => n + r.done, 0) / elapsed, 1)
        : null
  repetitions.throughput = perRun.map(r => r.throughput)
  for (const type of [ALL_TYPES, ...latency.types]) {
    for (const [name] of PERCENTILES) {
      const key = latencyKey(type, name)
      values[key] = latency.merged[type]?.[name] ?? null
      repetitions[key] = latency.repetitions.map(rep => rep[type]?.[name] ?? null)
    }
  }
  for (const figure of [...FAILURES, ...SERVER]) {
    const key = /** @type {keyof import('./run-figures.js').RunFigures} */ (figure.key)
    const reps = perRun.map(r => r[key]).map(v => (isNumber(v) ? v : null))
    repetitions[figure.key] = reps
    values[figure.key] = roundOrNull(mean(reps), figure.unit === 'seconds' ? 3 : 1)
  }
  return { values, repetitions, types: latency.types, autovacuum_sources: perRun.map(r => r.autovacuum_source) }
}
