import { LogHistogram } from '../metrics/log-histogram.js'
import { histogramsField } from './histogram-field.js'
import { latencySummary } from './summary.js'
import { roundOrNull } from '../helpers/numbers.js'

// The figures of a load still running, in the shape of the summary's own
// fields (summary.js), so that --threshold-abort judges them with the
// same code, and the same names, as the end of the run does. Only what a
// threshold can read is here: no audit (it runs at the end), no server.

/**
 * @typedef {object} RunningCounters
 * @property {number} elapsedS     how long the load has run
 * @property {number} reconnects
 * @property {number} skipped      open loop: intended starts skipped
 * @property {boolean} scheduled   open loop or paced clients: the schedule lag is a figure
 */

/**
 * @param {import('../metrics/request-stats.js').RequestStats} stats
 * @param {RunningCounters} counters
 * @returns {Record<string, any>}
 */
export function runningFigures(stats, { elapsedS, reconnects, skipped, scheduled }) {
  const seconds = elapsedS > 0 ? elapsedS : null
  /** @type {Record<string, object>} */
  const requests = {}
  const all = new LogHistogram()
  let done = 0
  for (let i = 0; i < stats.types.length; i++) {
    done += stats.done[i]
    all.add(stats.latency[i])
    requests[stats.types[i]] = {
      done: stats.done[i],
      failed: stats.failed[i],
      rate: seconds === null ? null : roundOrNull(stats.done[i] / seconds, 1),
      latency_us: latencySummary(stats.latency[i]),
      timeouts: stats.timeouts[i]
    }
  }
  return {
    elapsed_s: roundOrNull(elapsedS, 3),
    throughput: seconds === null ? null : roundOrNull(done / seconds, 1),
    latency_us: latencySummary(all),
    requests,
    unexpected_failures: stats.unexpectedFailures,
    reconnects,
    skipped,
    ...(scheduled && { schedule_lag_us: latencySummary(stats.lag) }),
    histograms: histogramsField(stats, all, scheduled)
  }
}
