import { PLAIN } from './colours.js'
import { count, duration, ms, rate } from './figure-format.js'

// The text of one progress line of a run: what the last period did. The
// same words on a terminal (redrawn in place) and in a log file (a line
// per period); only the colour differs.

/**
 * @typedef {object} LoadShape
 * @property {number} connections   open now
 * @property {number} concurrency   asked for now
 * @property {boolean} scheduled    open loop or paced clients: the schedule's lag means something
 * @property {boolean} openLoop     --rate: requests may be skipped
 * @property {{ reason: string, nextS: number } | null} [autovacuum]  the workload table's next autovacuum, forecast
 */

/**
 * @param {import('../metrics/period-stats.js').Period} period
 * @param {LoadShape} shape
 * @param {import('./colours.js').Colours} [colours]
 */
export function progressLine(period, shape, colours = PLAIN) {
  const perS = (/** @type {number} */ n) => rate(n / period.seconds)
  const parts = [
    `${perS(period.done)} requests/s`,
    `p50 ${ms(period.p50Us)} ms`,
    `p99 ${ms(period.p99Us)} ms`,
    failures(period, colours),
    `${count(shape.connections)}/${count(shape.concurrency)} connections`
  ]
  if (shape.scheduled) parts.push(`lag p99 ${ms(period.lagP99Us)} ms`)
  if (shape.openLoop) parts.push(period.skipped > 0 ? colours.yellow(`${count(period.skipped)} skipped`) : '0 skipped')
  if (period.cancelled > 0) parts.push(colours.yellow(`${count(period.cancelled)} cancelled`))
  // the server has no slot for the clients that lost or never had a connection
  if (period.refused > 0) parts.push(colours.yellow(`${count(period.refused)} connections refused`))
  // an ingest workload: what was written, as the summary counts it
  if (period.points > 0) parts.push(`${perS(period.rows)} rows/s`, `${perS(period.points)} points/s`)
  // the forecast of the server's statistics (docs/autovacuum-forecast.md)
  if (shape.autovacuum) {
    parts.push(`autovacuum in ${duration(shape.autovacuum.nextS)} (${shape.autovacuum.reason.replace('_', ' ')})`)
  }
  return `${Math.round(period.elapsedS)} s: ${parts.join(', ')}`
}

/**
 * "0 failed", "12 failed (0 unexpected)"; unexpected failures stand out.
 * @param {import('../metrics/period-stats.js').Period} period
 * @param {import('./colours.js').Colours} colours
 */
function failures(period, colours) {
  if (period.failed === 0 && period.unexpected === 0) return '0 failed'
  const text = `${count(period.failed)} failed (${count(period.unexpected)} unexpected)`
  return period.unexpected > 0 ? colours.red(colours.bold(text)) : colours.yellow(text)
}
