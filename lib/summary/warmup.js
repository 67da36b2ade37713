import { RequestStats } from '../metrics/request-stats.js'
import { ErrorMessageCounts } from '../metrics/error-messages.js'
import { LogHistogram } from '../metrics/log-histogram.js'
import { latencySummary } from './summary.js'
import { roundOrNull } from '../helpers/numbers.js'

// --warmup D: the first D seconds of load are kept apart. When they end, a
// mark copies what the run's stats hold then; at the end the summary's
// figures are the stats minus the mark (after the warm-up), and the mark
// itself is the warm-up's own block. Every figure of the stats is a sum
// except the maxima: a maximum after the warm-up is the run's when the
// run's is larger than the warm-up's, else the top of the highest bucket
// that gained requests after it (within the histogram's 3 %).

/**
 * What the run's stats and counters held when the warm-up ended.
 * @typedef {object} WarmupMark
 * @property {number} seconds       of load before the mark
 * @property {Float64Array} memory  the stats' numbers
 * @property {Map<string, number>} errors
 * @property {number} unexpectedFailures
 * @property {{ user: number, system: number }} cpu   the process's CPU time over the warm-up, µs
 * @property {number} reconnects
 * @property {number} skipped
 */

/**
 * @param {RequestStats} stats
 * @param {{ reconnects: number, skipped: number }} generator
 * @param {number} seconds
 * @param {{ user: number, system: number }} cpu   the process's CPU time since the load started
 * @returns {WarmupMark}
 */
export function markWarmup(stats, generator, seconds, cpu) {
  return {
    seconds,
    memory: Float64Array.from(stats.memory),
    errors: new Map(stats.errors.counts),
    unexpectedFailures: stats.unexpectedFailures,
    cpu,
    reconnects: generator.reconnects,
    skipped: generator.skipped
  }
}

/**
 * The warm-up's own stats: the mark as stats.
 * @param {RequestStats} stats  the run's (for its types)
 * @param {WarmupMark} mark
 */
export function warmupStats(stats, mark) {
  const during = new RequestStats(stats.types, Float64Array.from(mark.memory))
  during.errors.counts = new Map(mark.errors)
  during.unexpectedFailures = mark.unexpectedFailures
  return during
}

/**
 * The run's stats after the warm-up: the run's minus the mark.
 * @param {RequestStats} stats
 * @param {WarmupMark} mark
 */
export function statsAfterWarmup(stats, mark) {
  const memory = Float64Array.from(stats.memory, (value, i) => value - mark.memory[i])
  const after = new RequestStats(stats.types, memory)
  const before = new RequestStats(stats.types, mark.memory)
  for (let t = 0; t < stats.types.length; t++) {
    after.latency[t].max = maxAfter(after.latency[t], stats.latency[t].max, before.latency[t].max)
    after.maxUs[t] = after.latency[t].max
  }
  after.lag.max = maxAfter(after.lag, stats.lag.max, before.lag.max)
  after.errors = new ErrorMessageCounts(stats.errors.limit)
  for (const [message, n] of stats.errors.counts) {
    const left = n - (mark.errors.get(message) ?? 0)
    if (left > 0) after.errors.counts.set(message, left)
  }
  after.unexpectedFailures = stats.unexpectedFailures - mark.unexpectedFailures
  return after
}

/**
 * @param {import('../metrics/log-histogram.js').LogHistogram} after  its counts; its max is not known yet
 * @param {number} runMax
 * @param {number} warmupMax
 */
function maxAfter(after, runMax, warmupMax) {
  if (after.count <= 0) return 0
  if (runMax > warmupMax) return runMax
  // the highest bucket's top, never above what the run saw
  after.max = runMax
  return /** @type {number} */ (after.quantile(1))
}

/**
 * The summary's `warmup` block: what the left-out seconds did.
 * @param {RequestStats} stats   the warm-up's own (warmupStats)
 * @param {number} seconds
 * @param {Date | null} startedAt   when the load (and the warm-up) started
 */
export function warmupField(stats, seconds, startedAt) {
  /** @type {Record<string, object>} */
  const requests = {}
  let done = 0
  let failed = 0
  const latency = new LogHistogram()
  for (const h of stats.latency) latency.add(h)
  for (let i = 0; i < stats.types.length; i++) {
    done += stats.done[i]
    failed += stats.failed[i]
    requests[stats.types[i]] = {
      done: stats.done[i],
      failed: stats.failed[i],
      rate: roundOrNull(stats.done[i] / seconds, 1),
      latency_us: latencySummary(stats.latency[i])
    }
  }
  return {
    seconds: roundOrNull(seconds, 3),
    started_at: startedAt?.toISOString() ?? null,
    ended_at: startedAt ? new Date(startedAt.getTime() + seconds * 1000).toISOString() : null,
    done,
    failed,
    throughput: roundOrNull(done / seconds, 1),
    latency_us: latencySummary(latency),
    requests,
    errors: stats.errors.toJSON(),
    unexpected_failures: stats.unexpectedFailures
  }
}

/**
 * A summary's input with the warm-up taken out of its figures and put in a
 * block of its own; the input as it is without a mark.
 * @param {import('./summary.js').SummaryInput} input  the whole load's
 * @param {WarmupMark | null} mark
 * @returns {import('./summary.js').SummaryInput}
 */
export function withoutWarmup(input, mark) {
  if (!mark) return input
  const startedAt = input.startedAt ?? null
  let wholeRows = 0
  for (const rows of input.stats.rows) wholeRows += rows
  return {
    ...input,
    stats: statsAfterWarmup(input.stats, mark),
    elapsedS: Math.max(0, input.elapsedS - mark.seconds),
    // a load that ended in its warm-up is marked after the audit's work: none left, not less than none
    cpuUsage: {
      user: Math.max(0, input.cpuUsage.user - mark.cpu.user),
      system: Math.max(0, input.cpuUsage.system - mark.cpu.system)
    },
    reconnects: input.reconnects - mark.reconnects,
    openLoop: input.openLoop ? { ...input.openLoop, skipped: input.openLoop.skipped - mark.skipped } : null,
    ...(startedAt && { startedAt: new Date(startedAt.getTime() + mark.seconds * 1000) }),
    auditRows: wholeRows,
    warmup: warmupField(warmupStats(input.stats, mark), mark.seconds, startedAt)
  }
}
