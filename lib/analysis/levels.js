// The level of a stretch of a series: its median, with a distribution-free
// 95 % confidence interval taken from order statistics. For n values sorted
// x(1) ≤ … ≤ x(n), the interval [x(j), x(n+1−j)] covers the median with
// probability 1 − 2·P(B ≤ j−1), B ~ Binomial(n, ½); j is the largest rank
// for which that is at least 95 %. Below 6 values no j qualifies and the
// interval is [min, max].

/**
 * @typedef {object} Level
 * @property {number} median
 * @property {number} low      95 % interval of the median
 * @property {number} high
 * @property {number} n        points in the segment (non-missing)
 */

const TAIL = 0.025

/** @type {Map<number, number>} */
const rankCache = new Map()

/**
 * The 1-based rank j of the interval's lower end for n values; 0: none
 * qualifies (the interval is then [min, max]).
 * @param {number} n
 * @returns {number}
 */
export function intervalRank(n) {
  const cached = rankCache.get(n)
  if (cached !== undefined) return cached
  // P(B ≤ k) summed term by term in logarithms: 2^−n underflows past n ≈ 1070
  let logTerm = -n * Math.LN2
  let cdf = 0
  let j = 0
  for (let k = 0; k <= n; k++) {
    cdf += Math.exp(logTerm)
    if (cdf > TAIL) break
    j = k + 1
    logTerm += Math.log((n - k) / (k + 1))
  }
  if (rankCache.size < 4096) rankCache.set(n, j)
  return j
}

/**
 * The level of values already sorted ascending.
 * @param {ArrayLike<number>} sorted
 * @param {number} [from]   first index to use (default 0)
 * @param {number} [to]     exclusive (default sorted.length)
 * @returns {Level}
 */
export function levelOfSorted(sorted, from = 0, to = sorted.length) {
  const n = to - from
  if (n <= 0) return { median: NaN, low: NaN, high: NaN, n: 0 }
  const half = Math.floor(n / 2)
  const median = n % 2 === 1 ? sorted[from + half] : (sorted[from + half - 1] + sorted[from + half]) / 2
  const j = intervalRank(n)
  const low = j >= 1 ? sorted[from + j - 1] : sorted[from]
  const high = j >= 1 ? sorted[from + n - j] : sorted[to - 1]
  return { median, low, high, n }
}

/**
 * The level of values in any order.
 * @param {ArrayLike<number>} values
 * @param {number} [from]
 * @param {number} [to]
 * @returns {Level}
 */
export function levelOf(values, from = 0, to = values.length) {
  const sorted =
    values instanceof Float64Array
      ? values.slice(from, Math.max(from, to))
      : Float64Array.from({ length: Math.max(0, to - from) }, (_, i) => values[from + i])
  sorted.sort()
  return levelOfSorted(sorted)
}

/**
 * (after − before) / max(|before|, floor): signed.
 * @param {Level} before
 * @param {Level} after
 * @param {number} floor
 * @returns {number}
 */
export function effectOf(before, after, floor) {
  return (after.median - before.median) / Math.max(Math.abs(before.median), floor)
}

/**
 * Two levels apart: their relative difference at least minEffect, and their
 * intervals disjoint.
 * @param {Level} before
 * @param {Level} after
 * @param {number} minEffect
 * @param {number} floor
 * @returns {boolean}
 */
export function levelsDiffer(before, after, minEffect, floor) {
  if (before.n === 0 || after.n === 0) return false
  const disjoint = before.high < after.low || after.high < before.low
  return disjoint && Math.abs(effectOf(before, after, floor)) >= minEffect
}

/**
 * The values of a window sliding forward over a series, kept sorted as it
 * moves: the level of each window of a scan without sorting it afresh (a
 * value in and a value out cost a binary search and a shift each, where a
 * sort of the window costs w·log w). The series' values must be finite.
 */
export class SortedWindow {
  /**
   * @param {ArrayLike<number>} x
   * @param {number} capacity   the most values the window ever holds
   */
  constructor(x, capacity) {
    this.x = x
    this.sorted = new Float64Array(Math.max(0, capacity))
    this.size = 0
    this.from = 0
    this.to = 0
  }

  /**
   * Moves the window to x[from, to); neither end moves back.
   * @param {number} from
   * @param {number} to
   */
  moveTo(from, to) {
    while (this.from < from && this.from < this.to) this.remove(this.x[this.from++])
    if (this.from < from) this.from = this.to = from
    while (this.to < to) this.insert(this.x[this.to++])
  }

  /** @returns {Level} */
  level() {
    return levelOfSorted(this.sorted, 0, this.size)
  }

  median() {
    const half = this.size >> 1
    return this.size % 2 === 1 ? this.sorted[half] : (this.sorted[half - 1] + this.sorted[half]) / 2
  }

  /** @param {number} value */
  insert(value) {
    let low = 0
    let high = this.size
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.sorted[mid] <= value) low = mid + 1
      else high = mid
    }
    this.sorted.copyWithin(low + 1, low, this.size)
    this.sorted[low] = value
    this.size++
  }

  /** @param {number} value */
  remove(value) {
    let low = 0
    let high = this.size
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.sorted[mid] < value) low = mid + 1
      else high = mid
    }
    this.sorted.copyWithin(low, low + 1, this.size)
    this.size--
  }
}
