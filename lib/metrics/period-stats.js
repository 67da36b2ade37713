import { LogHistogram } from './log-histogram.js'
import { CANCELS_SENT } from './request-stats.js'

// What happened since the last look, for a progress line: the counters'
// differences and the percentiles of the latencies recorded meanwhile
// (quantileSince on copies of the bucket counts), every type together.
// It only reads the stats, off the hot path: a copy of a few thousand
// floats per period.

/**
 * @typedef {object} Period
 * @property {number} elapsedS    since the load started
 * @property {number} seconds     this period's length
 * @property {number} done        requests completed in it, ok or not
 * @property {number} failed
 * @property {number} unexpected  failures other than those a type expects
 * @property {number} rows        written and acknowledged
 * @property {number} points
 * @property {number | null} p50Us  of the requests completed in it
 * @property {number | null} p99Us
 * @property {number | null} lagP99Us   open loop and paced clients: how late requests started
 * @property {number} skipped     open loop: intended starts skipped for being too late
 * @property {number} refused     connection attempts the server refused for want of a slot
 * @property {number} cancelled   requests cancelled on the server (cancels sent)
 */

/** @param {Float64Array} values */
const sum = values => values.reduce((a, b) => a + b, 0)

export class PeriodStats {
  /**
   * @param {import('./request-stats.js').RequestStats} stats
   * @param {number} startedMs   performance.now() when the load started
   */
  constructor(stats, startedMs) {
    this.stats = stats
    this.startedMs = startedMs
    this.previous = this.totals(startedMs, 0)
  }

  /**
   * @param {number} nowMs
   * @param {number} skipped
   */
  totals(nowMs, skipped) {
    const stats = this.stats
    const latency = new LogHistogram()
    for (const h of stats.latency) latency.add(h)
    return {
      atMs: nowMs,
      done: sum(stats.done),
      failed: sum(stats.failed),
      unexpected: stats.unexpectedFailures,
      rows: sum(stats.rows),
      points: sum(stats.points),
      latency,
      lag: Float64Array.from(stats.lag.counts),
      skipped,
      refused: stats.refusals[0],
      cancelled: stats.cancels[CANCELS_SENT]
    }
  }

  /**
   * The period since the last call (or the start), and a new one begins.
   * @param {number} nowMs     performance.now()
   * @param {number} skipped   the generator's skipped count so far
   * @returns {Period}
   */
  next(nowMs, skipped) {
    const was = this.previous
    const now = this.totals(nowMs, skipped)
    this.previous = now
    return {
      elapsedS: (nowMs - this.startedMs) / 1000,
      seconds: Math.max(0.001, (nowMs - was.atMs) / 1000),
      done: now.done - was.done,
      failed: now.failed - was.failed,
      unexpected: now.unexpected - was.unexpected,
      rows: now.rows - was.rows,
      points: now.points - was.points,
      p50Us: now.latency.quantileSince(was.latency.counts, 0.5),
      p99Us: now.latency.quantileSince(was.latency.counts, 0.99),
      lagP99Us: this.stats.lag.quantileSince(was.lag, 0.99),
      skipped: now.skipped - was.skipped,
      refused: now.refused - was.refused,
      cancelled: now.cancelled - was.cancelled
    }
  }
}
