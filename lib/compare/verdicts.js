import { isNumber } from '../results/arithmetic.js'
import { round } from '../helpers/numbers.js'
import { bootstrapMean, LEVEL, MIN_REPETITIONS, RESAMPLES, SEED } from '../results/bootstrap-interval.js'
import { effectSide, roundEffect, twoSampleEffect } from '../results/t-interval.js'

// Each entry after the baseline against it, figure by figure: the ratio of
// their values, the 95 % bootstrap interval of the entry's per-repetition
// values (and of the baseline's) in units of the baseline's value, shown
// as they are, and a verdict only where Welch's interval of the entry's
// per-repetition values against the baseline's excludes no difference, as
// the experiment report decides between variants (lib/results/t-interval.js,
// lib/results/statistics.js). Not whether the two bootstrap intervals
// overlap: with 3 repetitions each is the min - max of the three values, and
// two such ranges of values drawn alike miss each other in 10 % of cases.

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
 * @property {import('../results/t-interval.js').Effect | null} effect   the entry against the baseline: Welch's
 *   interval of the ratio of their geometric means (of the difference of their means where a value is 0) the
 *   verdict rests on; null: no interval
 * @property {VerdictWord} verdict
 */

export const VERDICT_METHOD = {
  ratio: "the entry's figure / the baseline's (A's)",
  interval: `${LEVEL * 100} % percentile bootstrap interval of the mean of an entry's per-repetition values (${RESAMPLES} resamples, seed ${SEED}: lib/results/bootstrap-interval.js), divided by the baseline's figure; it needs at least ${MIN_REPETITIONS} repetitions with the figure`,
  verdict: `better or worse only where Welch's ${LEVEL * 100} % interval of the entry's per-repetition values against the baseline's (the ratio of their geometric means; the difference of their means where a value is 0) excludes no difference, a two-sided test at ${round((1 - LEVEL) * 100, 1)} % (higher or lower for a count that is neither better nor worse); "cannot tell apart" where it holds none; "no interval" where either has fewer than ${MIN_REPETITIONS} repetitions; "n/a" where either did not record the figure. Not whether the bootstrap intervals overlap: with 3 repetitions each is the min - max of the three values, and two such ranges of values drawn alike miss each other in 10 % of cases`
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
    const xa = (baseline.repetitions[figure.key] ?? []).filter(isNumber)
    const xb = (entry.repetitions[figure.key] ?? []).filter(isNumber)
    const ia = bootstrapMean(xa)
    const ib = bootstrapMean(xb)
    const effect = ia && ib && ia.low !== null && ib.low !== null ? roundEffect(twoSampleEffect(xb, xa), 4) : null
    const scale = isNumber(a) && a !== 0 ? a : null
    /** @param {import('../results/bootstrap-interval.js').Interval | null} i */
    const scaled = i =>
      i && i.low !== null && i.high !== null && scale !== null
        ? /** @type {[number, number]} */ ([round(i.low / scale, 4), round(i.high / scale, 4)])
        : null
    out[figure.key] = {
      ratio: isNumber(b) && scale !== null ? round(b / scale, 4) : null,
      interval: scaled(ib),
      baseline_interval: scaled(ia),
      repetitions: ib?.n ?? 0,
      baseline_repetitions: ia?.n ?? 0,
      effect,
      verdict: verdict(figure, ia, ib, effect)
    }
  }
  return out
}

/**
 * @param {import('./figures.js').Figure} figure
 * @param {import('../results/bootstrap-interval.js').Interval | null} a   the baseline's interval
 * @param {import('../results/bootstrap-interval.js').Interval | null} b   the entry's
 * @param {import('../results/t-interval.js').Effect | null} effect       the entry against the baseline
 * @returns {VerdictWord}
 */
function verdict(figure, a, b, effect) {
  if (!a || !b) return 'n/a'
  if (!effect) return 'no interval'
  const side = effectSide(effect)
  if (side === null) return 'cannot tell apart'
  if (figure.better === null) return side === 'above' ? 'higher' : 'lower'
  return (side === 'above') === (figure.better === 'higher') ? 'better' : 'worse'
}
