import { isNumber, roundOne } from '../results/numbers.js'
import { bootstrapMean, LEVEL, MIN_REPETITIONS, RESAMPLES, SEED } from '../results/bootstrap-interval.js'
import { intervalSide } from '../results/statistics.js'

// Each entry after the baseline against it, figure by figure: the ratio of
// their values, the 95 % bootstrap interval of the entry's per-repetition
// values (and of the baseline's) in units of the baseline's value, and a
// verdict only where the two intervals do not overlap, as the experiment
// report decides between variants (lib/results/bootstrap-interval.js,
// lib/results/statistics.js).

/**
 * @typedef {'better' | 'worse' | 'higher' | 'lower' | 'cannot tell apart' | 'no interval' | 'n/a'} VerdictWord
 *   higher / lower: apart, for a figure that is neither better nor worse higher (a count of work)
 */

/**
 * @typedef {object} FigureComparison
 * @property {number | null} ratio                    entry / baseline; null: either is n/a, or the baseline's is 0
 * @property {[number, number] | null} interval       the entry's interval / the baseline's value
 * @property {[number, number] | null} baseline_interval   the baseline's interval / its value
 * @property {number} repetitions                     of the entry with this figure
 * @property {number} baseline_repetitions
 * @property {VerdictWord} verdict
 */

export const VERDICT_METHOD = {
  ratio: "the entry's figure / the baseline's (A's)",
  interval:
    `${LEVEL * 100} % percentile bootstrap interval of the mean of an entry's per-repetition values ` +
    `(${RESAMPLES} resamples, seed ${SEED}: lib/results/bootstrap-interval.js), divided by the baseline's figure; ` +
    `it needs at least ${MIN_REPETITIONS} repetitions with the figure`,
  verdict:
    `better or worse only where the entry's interval and the baseline's do not overlap ` +
    `(higher or lower for a count that is neither better nor worse); "cannot tell apart" where they overlap; ` +
    `"no interval" where either has fewer than ${MIN_REPETITIONS} repetitions; "n/a" where either did not ` +
    `record the figure`
}

/**
 * @param {import('./figures.js').Figure[]} figures
 * @param {import('./figures.js').EntryFigures} baseline
 * @param {import('./figures.js').EntryFigures} entry
 * @returns {Record<string, FigureComparison>}
 */
export function compareFigures(figures, baseline, entry) {
  /** @type {Record<string, FigureComparison>} */
  const out = {}
  for (const figure of figures) {
    const a = baseline.values[figure.key] ?? null
    const b = entry.values[figure.key] ?? null
    const ia = bootstrapMean(baseline.repetitions[figure.key] ?? [])
    const ib = bootstrapMean(entry.repetitions[figure.key] ?? [])
    const scale = isNumber(a) && a !== 0 ? a : null
    /** @param {import('../results/bootstrap-interval.js').Interval | null} i */
    const scaled = i =>
      i && i.low !== null && i.high !== null && scale !== null
        ? /** @type {[number, number]} */ ([roundOne(i.low / scale, 4), roundOne(i.high / scale, 4)])
        : null
    out[figure.key] = {
      ratio: isNumber(b) && scale !== null ? roundOne(b / scale, 4) : null,
      interval: scaled(ib),
      baseline_interval: scaled(ia),
      repetitions: ib?.n ?? 0,
      baseline_repetitions: ia?.n ?? 0,
      verdict: verdict(figure, ia, ib)
    }
  }
  return out
}

/**
 * @param {import('./figures.js').Figure} figure
 * @param {import('../results/bootstrap-interval.js').Interval | null} a   the baseline's interval
 * @param {import('../results/bootstrap-interval.js').Interval | null} b   the entry's
 * @returns {VerdictWord}
 */
function verdict(figure, a, b) {
  if (!a || !b) return 'n/a'
  if (a.low === null || a.high === null || b.low === null || b.high === null) return 'no interval'
  const side = intervalSide([a.low, a.high], [b.low, b.high])
  if (side === null) return 'cannot tell apart'
  if (figure.better === null) return side === 'above' ? 'higher' : 'lower'
  return (side === 'above') === (figure.better === 'higher') ? 'better' : 'worse'
}
