import { studentQuantile } from './student-t.js'

// The interval behind an experiment's answer (answer-lead.js): how far a
// figure of one variant is from another's, or from a fixed value, with a
// confidence interval from Student's t.
//
// Two variants: when every value is above 0, Welch's interval of the
// difference of the mean logs, given back as a ratio of geometric means
// (0.72: the variant's figure is 28 % lower); a figure that may be 0 (pages
// frozen early, on a major that freezes none) gets Welch's interval of the
// difference of the means, in the figure's unit. One variant against a
// fixed value: the t interval of its mean. Welch's interval, not the
// reports' bootstrap: with 3 repetitions a percentile bootstrap's 95 %
// interval is their min - max, and covers far less than 95 %; t's is wider
// and keeps its level (answer-method.js states the coverage measured on
// generated data).

export const ANSWER_LEVEL = 0.95
// the fewest values on each side an interval is computed from, as for the reports' intervals
export const MIN_VALUES = 3

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
export function welch(a, b, level = ANSWER_LEVEL) {
  const estimate = mean(a) - mean(b)
  if (a.length < MIN_VALUES || b.length < MIN_VALUES) return { estimate, low: null, high: null }
  const va = variance(a) / a.length
  const vb = variance(b) / b.length
  const se = Math.sqrt(va + vb)
  if (se === 0) return { estimate, low: estimate, high: estimate }
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1))
  const half = studentQuantile((1 + level) / 2, df) * se
  return { estimate, low: estimate - half, high: estimate + half }
}

/**
 * A variant's figure against another's.
 * @param {number[]} a  the variant's values
 * @param {number[]} b  the other's
 * @param {number} [level]
 * @returns {Effect}
 */
export function twoSampleEffect(a, b, level = ANSWER_LEVEL) {
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
 * A variant's figure against a fixed value: the t interval of its mean.
 * @param {number[]} a
 * @param {number} than
 * @param {number} [level]
 * @returns {Effect}
 */
export function oneSampleEffect(a, than, level = ANSWER_LEVEL) {
  const estimate = mean(a)
  const base = { kind: /** @type {const} */ ('mean'), estimate, none: than, n: [a.length] }
  if (a.length < MIN_VALUES) return { ...base, low: null, high: null }
  const half = studentQuantile((1 + level) / 2, a.length - 1) * Math.sqrt(variance(a) / a.length)
  return { ...base, low: estimate - half, high: estimate + half }
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
  const below = effect.high < effect.none
  const above = effect.low > effect.none
  if (direction === 'lower' ? below : above) return 'appeared'
  if (direction === 'lower' ? above : below) return 'opposite'
  return 'not shown'
}
