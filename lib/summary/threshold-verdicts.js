import { FIGURES, formatValue } from '../config/thresholds.js'
import { histogramFromJson } from './histogram-field.js'

// Thresholds judged against a summary: the one --json prints at the end of
// a run, or the running figures of one (running-figures.js) for
// --threshold-abort. Every value is read from the summary's own fields, so
// that a threshold's row and the summary cannot disagree; percentiles the
// summary does not list (p90, p99.9) come from its raw histograms.

/** @typedef {import('../config/thresholds.js').Threshold} Threshold */

/**
 * A threshold judged: the summary's field `thresholds` holds one per
 * --threshold, in the order given.
 * @typedef {object} ThresholdResult
 * @property {string} expr
 * @property {string | null} type
 * @property {string} figure
 * @property {Threshold['op']} op
 * @property {number | string} limit
 * @property {Threshold['unit']} unit
 * @property {number | string | null} value   null: the run has no such figure (no request of the type, no audit)
 * @property {boolean} pass
 */

/**
 * A figure that can still move either way is judged while running only
 * once the load has run this long: the first second's few requests (each
 * client's first, which prepares its statements) say little of the run.
 */
export const SETTLE_S = 5

/**
 * Each threshold against the summary.
 * @param {readonly Threshold[]} thresholds
 * @param {Record<string, any>} summary
 * @returns {ThresholdResult[]}
 */
export function evaluateThresholds(thresholds, summary) {
  return thresholds.map(threshold => {
    const value = figureValue(summary, threshold)
    return { ...threshold, value, pass: holds(value, threshold) }
  })
}

/**
 * Whether the value meets the threshold; a missing value never does, so
 * that a gate never passes on a figure the run did not produce.
 * @param {number | string | null} value
 * @param {Pick<Threshold, 'op' | 'limit'>} threshold
 */
export function holds(value, { op, limit }) {
  if (value === null) return false
  switch (op) {
    case '<':
      return value < limit
    case '<=':
      return value <= limit
    case '>':
      return value > limit
    case '>=':
      return value >= limit
    case '==':
      return value === limit
    case '!=':
      return value !== limit
  }
}

/**
 * Whether a result judged on a running load's figures already decides the
 * run: a figure that only grows (a count, the max) is past an upper limit
 * for good; any other is judged once the load has settled. The audit is
 * only known at the end.
 * @param {ThresholdResult} result
 * @param {number} elapsedS   how long the load has run
 */
export function failedForGood(result, elapsedS) {
  if (result.pass || result.figure === 'audit' || result.value === null) return false
  const spec = FIGURES[result.figure]
  // a count only grows: past an upper limit (reconnects<2 at 2) it cannot come back, below an exact one it may
  if (spec.growing) {
    return result.op === '<' || result.op === '<=' || (result.op === '==' && result.value > result.limit)
  }
  return elapsedS >= SETTLE_S
}

/**
 * The value of a threshold's figure in a summary, in the threshold's unit.
 * @param {Record<string, any>} summary
 * @param {Threshold} threshold
 * @returns {number | string | null}
 */
export function figureValue(summary, { type, figure }) {
  const spec = FIGURES[figure]
  /** @type {Record<string, any>} */
  const requests = summary.requests ?? {}
  const scope = type === null ? Object.values(requests) : requests[type] ? [requests[type]] : []
  const histograms = summary.histograms ?? null
  if (figure.startsWith('lag_')) {
    return latency(summary.schedule_lag_us, histograms?.schedule_lag, figure.slice(4), spec.quantile)
  }
  switch (figure) {
    case 'throughput':
      return numberOr(type === null ? summary.throughput : requests[type]?.rate)
    case 'done':
      return sum(scope, 'done')
    case 'failed':
      return sum(scope, 'failed')
    case 'failed_rate': {
      const done = sum(scope, 'done')
      return done ? /** @type {number} */ (sum(scope, 'failed')) / done : null
    }
    // each type's count; a summary of an older version has none
    case 'timeouts':
      return scope.some(r => typeof r.timeouts === 'number')
        ? sum(scope, 'timeouts')
        : numberOr(type === null ? summary.timeouts : null)
    case 'unexpected_failures':
      return numberOr(summary.unexpected_failures)
    case 'reconnects':
      return numberOr(summary.reconnects)
    case 'skipped':
      return numberOr(summary.skipped)
    case 'audit':
      return auditVerdict(summary)
  }
  // a latency of every request or of one type's
  const latencies = type === null ? summary.latency_us : requests[type]?.latency_us
  const histogram = type === null ? histograms?.latency : histograms?.latency_by_type?.[type]
  if (type !== null && !requests[type]) return null
  return latency(latencies, histogram, figure, spec.quantile)
}

/**
 * A latency figure from the summary's percentiles, else from its raw
 * histogram (the percentiles it does not list).
 * @param {Record<string, number | null> | undefined} listed
 * @param {unknown} histogram
 * @param {string} key        p50 … p99.9, max, mean
 * @param {number | undefined} quantile
 */
function latency(listed, histogram, key, quantile) {
  if (listed && key in listed) return numberOr(listed[key])
  if (quantile === undefined || !histogram) return null
  try {
    const value = histogramFromJson(histogram, 'histogram').quantile(quantile)
    // whole µs, as the summary's own percentiles
    return value === null ? null : Math.round(value)
  } catch {
    return null
  }
}

/**
 * exact: the audit ran and found every acknowledged write (no insert
 * missing or vanished, no row missing); otherwise what it found, or "not
 * checked" when it could not run.
 * @param {Record<string, any>} summary
 * @returns {string | null}
 */
export function auditVerdict(summary) {
  const inserts = typeof summary.acknowledged_missing === 'number' || Number(summary.acknowledged_inserts ?? 0) > 0
  const rows = Boolean(summary.row_audit)
  if (!inserts && !rows) return null
  if (inserts) {
    if (typeof summary.acknowledged_missing !== 'number') return 'not checked'
    if (summary.acknowledged_missing > 0) return 'missing'
    if (Number(summary.acknowledged_vanished ?? 0) > 0) return 'vanished'
  }
  if (rows) {
    if (typeof summary.rows_missing !== 'number') return 'not checked'
    if (summary.rows_missing > 0) return 'missing'
  }
  return 'exact'
}

/**
 * @param {Record<string, any>[]} rows
 * @param {string} field
 */
function sum(rows, field) {
  if (rows.length === 0) return null
  return rows.reduce((n, r) => n + Number(r[field] ?? 0), 0)
}

/** @param {unknown} value */
function numberOr(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/**
 * Why a run was stopped early: the summary's threshold_abort.
 * @typedef {object} ThresholdAbort
 * @property {string} expr      the threshold that failed
 * @property {number | string | null} value   its figure then
 * @property {Threshold['unit']} unit
 * @property {number} at_s      seconds into the load
 */

/** The exit code of a run that failed a threshold: CI gates on it. */
export const THRESHOLD_FAILED_EXIT = 3

/**
 * The fields a summary gains from its thresholds: each one judged, and
 * what stopped the run early under --threshold-abort (null: nothing).
 * @param {readonly Threshold[]} thresholds
 * @param {Record<string, any>} summary
 * @param {ThresholdAbort | null} aborted
 */
export function thresholdFields(thresholds, summary, aborted) {
  return { thresholds: evaluateThresholds(thresholds, summary), threshold_abort: aborted }
}

/**
 * 3 when a threshold failed, at the end or while running; else 0.
 * @param {Record<string, any>} summary
 */
export function thresholdExitCode(summary) {
  /** @type {ThresholdResult[]} */
  const results = summary.thresholds ?? []
  return summary.threshold_abort || results.some(result => !result.pass) ? THRESHOLD_FAILED_EXIT : 0
}

/**
 * What stopped the run, in words: the log's line and the end table's.
 * @param {ThresholdAbort} abort
 */
export function abortLine(abort) {
  return `stopped at ${abort.at_s.toFixed(1)} s by --threshold-abort: ${abort.expr} failed (${formatValue(abort.value, abort.unit)})`
}
