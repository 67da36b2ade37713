import { LEVEL, MIN_REPETITIONS } from './bootstrap-interval.js'
import { round } from '../helpers/numbers.js'
import { studentQuantile } from './student-t.js'

// Intervals from Student's t: how far a figure of one variant (or run) is
// from another's, or from a fixed value. The experiment's answer
// (lib/report/answer-lead.js) and the verdicts between variants
// (statistics.js) and between runs (lib/compare/verdicts.js) rest on them.
//
// Two samples: when every value is above 0, Welch's interval of the
// difference of the mean logs, given back as a ratio of geometric means
// (0.72: the first sample's figure is 28 % lower); a figure that may be 0
// (pages frozen early, on a major that freezes none) gets Welch's interval
// of the difference of the means, in the figure's unit. One sample against
// a fixed value: the t interval of its mean. Welch's interval, not the
// reports' bootstrap (bootstrap-interval.js): with 3 repetitions a
// percentile bootstrap's 95 % interval is their min - max, and covers far
// less than 95 %; t's is wider and keeps its level (the known-answer suite,
// benchmarks/known-answers/plans.js, measures it on generated data). The
// level and the fewest values on each side are the reports' intervals'.

/**
 * @typedef {object} Effect
 * @property {'ratio' | 'difference' | 'mean'} kind   ratio of geometric means, difference of means, or a mean
 * @property {number} estimate
 * @property {number | null} low     null: too few values for an interval
 * @property {number | null} high
 * @property {number} none           the value of no effect: 1 for a ratio, 0 for a difference, the fixed value
 * @property {number[]} n            values on each side
 */

/** @param {number[]} xs */
function mean(xs) {
  return xs.reduce((sum, x) => sum + x, 0) / xs.length
}

/** @param {number[]} xs */
function variance(xs) {
  const m = mean(xs)
  return xs.reduce((sum, x) => sum + (x - m) ** 2, 0) / (xs.length - 1)
}

/**
 * Welch's interval of mean(a) - mean(b).
 * @param {number[]} a
 * @param {number[]} b
 * @param {number} level
 * @returns {{ estimate: number, low: number | null, high: number | null }}
 */
export function welch(a, b, level = LEVEL) {
  const estimate = mean(a) - mean(b)
  if (a.length < MIN_REPETITIONS || b.length < MIN_REPETITIONS) return { estimate, low: null, high: null }
  const va = variance(a) / a.length
  const vb = variance(b) / b.length
  const se = Math.sqrt(va + vb)
  if (se === 0) return { estimate, low: estimate, high: estimate }
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1))
  const half = studentQuantile((1 + level) / 2, df) * se
  return { estimate, low: estimate - half, high: estimate + half }
}

/**
 * A sample's figure against another's.
 * @param {number[]} a  the sample's values (a variant's)
 * @param {number[]} b  the other's
 * @param {number} [level]
 * @returns {Effect}
 */
export function twoSampleEffect(a, b, level = LEVEL) {
  const n = [a.length, b.length]
  if ([...a, ...b].every(x => x > 0)) {
    const { estimate, low, high } = welch(a.map(Math.log), b.map(Math.log), level)
    return {
      kind: 'ratio',
      estimate: Math.exp(estimate),
      low: low === null ? null : Math.exp(low),
      high: high === null ? null : Math.exp(high),
      none: 1,
      n
    }
  }
  return { kind: 'difference', ...welch(a, b, level), none: 0, n }
}

/**
 * A sample's figure against a fixed value: the t interval of its mean.
 * @param {number[]} a
 * @param {number} than
 * @param {number} [level]
 * @returns {Effect}
 */
export function oneSampleEffect(a, than, level = LEVEL) {
  const estimate = mean(a)
  const base = { kind: /** @type {const} */ ('mean'), estimate, none: than, n: [a.length] }
  if (a.length < MIN_REPETITIONS) return { ...base, low: null, high: null }
  const half = studentQuantile((1 + level) / 2, a.length - 1) * Math.sqrt(variance(a) / a.length)
  return { ...base, low: estimate - half, high: estimate + half }
}

/**
 * The effect with its estimate and ends rounded to digits decimals.
 * @param {Effect} effect
 * @param {number} digits
 * @returns {Effect}
 */
export function roundEffect(effect, digits) {
  return {
    ...effect,
    estimate: round(effect.estimate, digits),
    low: effect.low === null ? null : round(effect.low, digits),
    high: effect.high === null ? null : round(effect.high, digits)
  }
}

/**
 * Where an effect's interval lies against no effect: wholly above it,
 * wholly below it, or null when it holds it or there is no interval (the
 * data cannot tell the effect from none: a two-sided test at 1 - level).
 * @param {Effect} effect
 * @returns {'above' | 'below' | null}
 */
export function effectSide(effect) {
  if (effect.low === null || effect.high === null) return null
  if (effect.low > effect.none) return 'above'
  if (effect.high < effect.none) return 'below'
  return null
}

/**
 * Whether the effect appeared in the expected direction: its interval
 * excludes no effect on that side.
 * @param {Effect} effect
 * @param {'lower' | 'higher'} direction
 * @returns {'appeared' | 'opposite' | 'not shown' | 'no interval'}
 */
export function effectVerdict(effect, direction) {
  if (effect.low === null || effect.high === null) return 'no interval'
  const side = effectSide(effect)
  if (side === null) return 'not shown'
  return (side === 'below') === (direction === 'lower') ? 'appeared' : 'opposite'
}
