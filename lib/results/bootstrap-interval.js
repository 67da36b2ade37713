import { isNumber, meanOf } from './arithmetic.js'

// The confidence interval of a mean that the reports show per variant
// (statistics.js) and per entry compared (compare/verdicts.js). Their
// verdicts do not rest on it but on Welch's interval (t-interval.js): with
// 3 repetitions this interval is the min - max, and two of them miss each
// other in 10 % of cases with no difference.
//
// The interval is a percentile bootstrap of the mean: the repetitions'
// ratios (one per repetition, each measured within its own run) are
// resampled with replacement RESAMPLES times, each resample's mean is
// taken, and the interval runs from the 2.5th to the 97.5th percentile of
// those means. The generator is seeded (SEED), so the same data gives the
// same interval, in every report. Percentile bootstrap: it assumes no
// distribution for the ratios, and an interval of a ratio stays within
// the values seen. Its weakness is small samples: with n repetitions there
// are only C(2n − 1, n) distinct resamples (10 for n = 3), and with n = 3
// the chance that a resample is three times the smallest value is 1/27 =
// 3.7 %, above 2.5 %, so the 95 % interval is the min – max of the three
// ratios; its real coverage is below 95 %. Fewer than 3 repetitions give
// no interval at all. The min – max is reported beside it.

export const LEVEL = 0.95
export const RESAMPLES = 10000
export const SEED = 13
export const MIN_REPETITIONS = 3

/**
 * A small, fast, seeded generator (mulberry32): uniform in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of sorted values, interpolating linearly
 * between the closest ranks (R's type 7).
 * @param {number[]} sorted
 * @param {number} q
 */
export function quantile(sorted, q) {
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.ceil(h)
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo])
}

/**
 * Distinct resamples with replacement of n values (multisets): C(2n − 1, n).
 * @param {number} n
 */
export function distinctResamples(n) {
  let c = 1
  for (let k = 1; k <= n; k++) c = (c * (n - 1 + k)) / k
  return Math.round(c)
}

/**
 * @typedef {object} Interval
 * @property {number} n            values (repetitions) it is computed from
 * @property {number} mean
 * @property {number} min
 * @property {number} max
 * @property {number | null} low   null: fewer than MIN_REPETITIONS values
 * @property {number | null} high
 * @property {number} level
 * @property {number} resamples
 * @property {number} seed
 * @property {number} distinct_resamples
 * @property {string | null} note  why there is no interval, or why it is weak
 */

/**
 * Percentile bootstrap confidence interval of the mean of values (null and
 * non-finite left out); null when there is no value.
 * @param {(number | null | undefined)[]} values
 * @param {{ level?: number, resamples?: number, seed?: number, minimum?: number }} [options]
 * @returns {Interval | null}
 */
export function bootstrapMean(
  values,
  { level = LEVEL, resamples = RESAMPLES, seed = SEED, minimum = MIN_REPETITIONS } = {}
) {
  const xs = values.filter(isNumber)
  const n = xs.length
  if (n === 0) return null
  const mean = meanOf(xs)
  const base = {
    n,
    mean,
    min: Math.min(...xs),
    max: Math.max(...xs),
    level,
    resamples,
    seed,
    distinct_resamples: distinctResamples(n)
  }
  if (n < minimum) {
    return {
      ...base,
      low: null,
      high: null,
      note: `${n} repetition${n === 1 ? '' : 's'}: fewer than ${minimum}, no confidence interval`
    }
  }
  const next = mulberry32(seed)
  const means = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let i = 0; i < n; i++) sum += xs[Math.floor(next() * n)]
    means[r] = sum / n
  }
  means.sort()
  const sorted = Array.from(means)
  const low = quantile(sorted, (1 - level) / 2)
  const high = quantile(sorted, (1 + level) / 2)
  return {
    ...base,
    // a resample's mean may differ from the sample's, or from a value it
    // repeats, in the last bit (another order of the sum): kept within them
    low: Math.max(base.min, Math.min(low, mean)),
    high: Math.min(base.max, Math.max(high, mean)),
    note:
      n === 3
        ? 'with 3 repetitions only 10 distinct resamples: the interval is the min - max, and covers less than it says'
        : null
  }
}
