import { LogHistogram } from '../metrics/log-histogram.js'
import { keeps } from './objective.js'

// What one step of a capacity search measured, from the run's request
// statistics as they were when its measured part began and as they are at
// its end: copies of the bucket counts, off the hot path, as the progress
// line takes them (lib/metrics/period-stats.js), but per request type too,
// since an objective may name one.

/** @typedef {import('./objective.js').Objective} Objective */
/** @typedef {import('../metrics/request-stats.js').RequestStats} RequestStats */

/**
 * @typedef {object} StepMark
 * @property {number} atMs
 * @property {Float64Array[]} latency   per type
 * @property {Float64Array} lag
 * @property {number} done
 * @property {number} failed
 * @property {number} unexpected
 * @property {number} rows       written and acknowledged
 */

/**
 * @typedef {object} StepFigures
 * @property {number} rate          asked, requests per second
 * @property {number} seconds       measured
 * @property {number} achieved      requests ended per second in it
 * @property {number} done
 * @property {number} unexpected    failures no request type expects
 * @property {number} rowsPerS      rows written and acknowledged per second (a batch workload's real rate)
 * @property {number | null} p50Us  every type together
 * @property {number | null} p99Us
 * @property {number | null} lagP99Us  how late requests started after their intended time
 * @property {number | null} latenessP99Us  how late the generator's own timers fired (lateness.js); null: not measured
 * @property {Array<{ objective: string, valueUs: number | null, kept: boolean }>} objectives
 * @property {boolean} keptPace     ended at least MIN_PACE of the arrivals asked, less 3 Poisson standard deviations
 * @property {boolean} held         every objective kept, the pace kept, and no more than MAX_UNEXPECTED of the requests
 *   failed unexpectedly
 */

/**
 * One step of a search: its figures, its number and the search's phase.
 * @typedef {StepFigures & { step: number, phase: import('./search.js').Trial['phase'] }} CapacityStep
 */

// A step whose clients end well under the rate asked is not holding it even
// when the latencies it did measure look fine (too few clients, or the
// generator out of CPU): a fifth under, and three standard deviations of
// the Poisson count of arrivals below that, so that a short step at a low
// rate is not called behind by chance.
export const MIN_PACE = 0.8
// A server that answers fast with errors is not keeping up either.
export const MAX_UNEXPECTED = 0.01

/** @param {Float64Array} values */
const sum = values => values.reduce((a, b) => a + b, 0)

/**
 * @param {RequestStats} stats
 * @param {number} nowMs   performance.now()
 * @returns {StepMark}
 */
export function markStep(stats, nowMs) {
  return {
    atMs: nowMs,
    latency: stats.latency.map(h => Float64Array.from(h.counts)),
    lag: Float64Array.from(stats.lag.counts),
    done: sum(stats.done),
    failed: sum(stats.failed),
    unexpected: stats.unexpectedFailures,
    rows: sum(stats.rows)
  }
}

/**
 * The step from `mark` to now, judged against the objectives.
 * @param {RequestStats} stats
 * @param {StepMark} mark
 * @param {number} nowMs
 * @param {number} rate
 * @param {Objective[]} objectives
 * @param {number | null} [latenessP99Us]  the generator's own lateness in the step (lateness.js)
 * @returns {StepFigures}
 */
export function measureStep(stats, mark, nowMs, rate, objectives, latenessP99Us = null) {
  const seconds = Math.max(0.001, (nowMs - mark.atMs) / 1000)
  const now = new LogHistogram()
  const before = new LogHistogram()
  stats.latency.forEach((h, t) => {
    now.add(h)
    before.counts.forEach((_, i) => {
      before.counts[i] += mark.latency[t][i]
    })
  })
  /** @param {Objective} o */
  const figure = o => {
    if (o.figure === 'lag') return stats.lag.quantileSince(mark.lag, o.quantile)
    if (o.type === null) return now.quantileSince(before.counts, o.quantile)
    const t = stats.types.indexOf(o.type)
    return stats.latency[t].quantileSince(mark.latency[t], o.quantile)
  }
  const done = sum(stats.done) - mark.done
  const unexpected = stats.unexpectedFailures - mark.unexpected
  const achieved = done / seconds
  const judged = objectives.map(o => {
    const valueUs = figure(o)
    return { objective: o.text, valueUs, kept: keeps(o, valueUs) }
  })
  const expected = rate * seconds
  const keptPace = done >= MIN_PACE * expected - 3 * Math.sqrt(expected)
  return {
    rate,
    seconds,
    achieved,
    done,
    unexpected,
    rowsPerS: (sum(stats.rows) - mark.rows) / seconds,
    p50Us: now.quantileSince(before.counts, 0.5),
    p99Us: now.quantileSince(before.counts, 0.99),
    lagP99Us: stats.lag.quantileSince(mark.lag, 0.99),
    latenessP99Us,
    objectives: judged,
    keptPace,
    held: keptPace && judged.every(j => j.kept) && unexpected <= MAX_UNEXPECTED * Math.max(1, done)
  }
}
