import { isNumber } from '../results/arithmetic.js'
import { runWhole } from '../results/whole-run.js'
import { runVacuumCosts } from '../results/vacuum-costs.js'

// The figures of one recorded run that are not latency percentiles: what
// its summary.json says of the load and its failures, and what its samples
// and events say of the server (the workload's table, the vacuums). A
// figure the run did not record is null ("n/a"), never 0.

/**
 * @typedef {object} RunFigures
 * @property {number} done              requests done, all types
 * @property {number} elapsed_s         seconds of load
 * @property {number | null} throughput          requests/s (summary.json)
 * @property {number} failed                     requests that failed, all types
 * @property {number | null} unexpected_failures failures that were not expected (not injected)
 * @property {number | null} expected_failures   the others: injected errors
 * @property {number | null} dead_tuples_peak    highest dead-tuple count of the table in the samples
 * @property {number | null} dead_tuples_end     in the last sample that has it
 * @property {number | null} table_bytes_end     pg_total_relation_size in the last sample that has it
 * @property {number | null} server_wal_bytes    WAL the whole server wrote over the load (summary.json's
 *   server_wal_bytes)
 * @property {number | null} vacuum_wal_bytes    WAL the run's vacuums wrote themselves (their reports)
 * @property {number} vacuums                    the sidecar's vacuums that ended (events)
 * @property {number} vacuum_s                   the seconds they took
 * @property {number | null} autovacuums         autovacuums of the table (server log, else the samples)
 * @property {string | null} autovacuum_source   where autovacuums was counted
 */

/**
 * @param {import('../results/read.js').RunData} run
 * @param {Record<string, any>} summary   its summary.json, checked
 * @returns {RunFigures}
 */
export function runFigures(run, summary) {
  const requests = Object.values(/** @type {Record<string, any>} */ (summary.requests))
  const done = requests.reduce((n, r) => n + (Number(r?.done) || 0), 0)
  const failed = requests.reduce((n, r) => n + (Number(r?.failed) || 0), 0)
  const unexpected = isNumber(summary.unexpected_failures) ? summary.unexpected_failures : null
  const whole = runWhole(run)
  const ends = run.events.filter(e => e.kind === 'end' && /^vacuum/.test(e.action))
  const costs = runVacuumCosts(run)
    .map(v => v.cost?.wal_bytes)
    .filter(isNumber)
  const autovacuums = autovacuumCount(summary, whole)
  return {
    done,
    elapsed_s: Number(summary.elapsed_s) || 0,
    throughput: isNumber(summary.throughput) ? summary.throughput : null,
    failed,
    unexpected_failures: unexpected,
    expected_failures: unexpected === null ? null : Math.max(0, failed - unexpected),
    dead_tuples_peak: whole.dead_tuples_peak,
    dead_tuples_end: lastOf(run.samples.map(s => s.pg?.dead_tuples)),
    table_bytes_end: whole.table_bytes_end,
    server_wal_bytes: isNumber(summary.server_wal_bytes) ? summary.server_wal_bytes : null,
    vacuum_wal_bytes: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    vacuums: ends.length,
    vacuum_s: ends.reduce((n, e) => n + (Number(e.duration_s) || 0), 0),
    autovacuums: autovacuums.count,
    autovacuum_source: autovacuums.source
  }
}

/**
 * Autovacuums of the run: those the server logged, when its log was read
 * (summary.json's autovacuum_source); else those the samples' vacuum
 * progress showed (or the workload's own counter), null when the samples
 * hold no PostgreSQL figures.
 * @param {Record<string, any>} summary
 * @param {import('../results/whole-run.js').RunWhole} whole
 * @returns {{ count: number | null, source: string | null }}
 */
function autovacuumCount(summary, whole) {
  if (
    typeof summary.autovacuum_source === 'string' &&
    summary.autovacuum_source.startsWith('the server log') &&
    Array.isArray(summary.vacuums)
  ) {
    return {
      count: summary.vacuums.filter((/** @type {any} */ v) => /^autovacuum/.test(String(v?.action))).length,
      source: 'server log'
    }
  }
  if (whole.autovacuum_runs === null) return { count: null, source: null }
  return {
    count: whole.autovacuum_runs,
    source: whole.autovacuum_source === 'samples' ? 'samples (vacuum progress)' : whole.autovacuum_source
  }
}

/**
 * The last number of a list; null when there is none.
 * @param {unknown[]} values
 * @returns {number | null}
 */
function lastOf(values) {
  for (let i = values.length - 1; i >= 0; i--) {
    const value = values[i]
    if (isNumber(value)) return value
  }
  return null
}
