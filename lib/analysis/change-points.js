import { effectOf, levelOf, levelOfSorted, levelsDiffer } from './levels.js'
import { checkOptions, denseRanks, present } from './change-point-input.js'
import { mosumSplits } from './mosum.js'

export { DEFAULTS } from './change-point-input.js'

// When a run changed: one per-second series cut into segments of steady
// level. Binary segmentation with Pettitt's rank test (Pettitt 1979), made
// deterministic and fit for short changes by testing, in each window, a
// fixed family of sub-intervals at halving lengths (seeded intervals,
// Kovács, Li, Bühlmann & Munk 2023); the test's statistic shrunk for the
// series' lag-1 autocorrelation; a split kept only when it is significant,
// large (minEffect) and the two medians' intervals are disjoint; neighbours
// merged afterwards when they no longer differ. docs/change-points.md.

/** @typedef {import('./levels.js').Level} Level */

/**
 * @typedef {object} ChangePoint
 * @property {number} index    first index of the new segment (in the input's indexing)
 * @property {Level} before    the segment before
 * @property {Level} after     the segment after
 * @property {number} effect   (after.median − before.median) / max(|before.median|, floor): signed
 * @property {number} pValue
 */

/** @typedef {import('./change-point-input.js').ChangePointOptions} ChangePointOptions */

/** The autocorrelation used is clipped to [0, RHO_MAX]. */
export const RHO_MAX = 0.95

/**
 * @typedef {object} Series
 * @property {Float64Array} x      the non-missing values, in order
 * @property {Int32Array} dense    each value's rank among the distinct values (0-based)
 * @property {Required<ChangePointOptions>} opts
 */

/**
 * @typedef {object} Split
 * @property {number} at       first point of the new segment (in the non-missing indexing)
 * @property {number} pValue
 */

/**
 * @param {ArrayLike<number | null | undefined>} values   one per second
 * @param {{ minSegment?: number, minEffect?: number, alpha?: number, floor?: number,
 *     maxChanges?: number }} [options]  defaults 10, 0.2, 0.001, 1e-9, 20
 * @returns {{ changes: ChangePoint[], segments: Array<{ from: number, to: number, level: Level }> }}   changes in index
 *   order; segments cover [0, values.length) with `to` exclusive
 */
export function findChangePoints(values, options) {
  const opts = checkOptions(options)
  const { x, positions } = present(values)
  const series = { x, dense: denseRanks(x), opts }
  const splits = joinSplits(
    segment(series),
    mosumSplits(series, (...args) => correctedAutocorrelation(lagOneAutocorrelation(...args), 2 * opts.minSegment)),
    opts.minSegment
  )
  const kept = prune(series, splits)

  /** @type {Level[]} */
  const levels = []
  const bounds = [0, ...kept.map(split => split.at), x.length]
  for (let i = 0; i + 1 < bounds.length; i++) levels.push(levelOf(x, bounds[i], bounds[i + 1]))
  const edges = [0, ...kept.map(split => positions[split.at]), values.length]
  const segments = values.length === 0 ? [] : levels.map((level, i) => ({ from: edges[i], to: edges[i + 1], level }))
  const changes = kept.map((split, i) => ({
    index: positions[split.at],
    before: levels[i],
    after: levels[i + 1],
    effect: effectOf(levels[i], levels[i + 1], opts.floor),
    pValue: split.pValue
  }))
  return { changes, segments }
}

/**
 * Binary segmentation, depth by depth: every window of a depth is tested, the
 * splits found are kept (the most significant first while maxChanges allows)
 * and their two sides are the next depth's windows.
 * @param {Series} series
 * @returns {Split[]}   in index order
 */
function segment(series) {
  const { minSegment, maxChanges } = series.opts
  /** @type {Split[]} */
  const splits = []
  let windows = [[0, series.x.length]]
  while (windows.length > 0 && splits.length < maxChanges) {
    const testable = windows.filter(([from, to]) => to - from >= 2 * minSegment)
    /** @type {Array<Split & { from: number, to: number }>} */
    const found = []
    for (const [from, to] of testable) {
      const split = bestSplit(series, from, to, testable.length)
      if (split) found.push({ ...split, from, to })
    }
    found.sort((a, b) => a.pValue - b.pValue || a.at - b.at)
    const taken = found.slice(0, maxChanges - splits.length)
    for (const { at, pValue } of taken) splits.push({ at, pValue })
    windows = taken.flatMap(({ from, at, to }) => [
      [from, at],
      [at, to]
    ])
  }
  return splits.sort((a, b) => a.at - b.at)
}

/**
 * The window's best split: over the window and its seeded sub-intervals
 * (lengths L, L/2, L/4 … down to 2·minSegment; at each length 2^(k+1) − 1
 * intervals shifted by half a length, the first starting at the window's
 * start and the last ending at its end), the accepted candidate with the
 * smallest p-value. An interval of a length with c intervals is tested at
 * alpha / (c · windows at this depth).
 * @param {Series} series
 * @param {number} from
 * @param {number} to
 * @param {number} windows   testable windows at this depth
 * @returns {Split | null}
 */
function bestSplit(series, from, to, windows) {
  const { minSegment, alpha } = series.opts
  const size = to - from
  /** @type {Split & { length: number } | null} */
  let best = null
  for (let k = 0; Math.floor(size / 2 ** k) >= 2 * minSegment; k++) {
    const length = Math.floor(size / 2 ** k)
    const count = 2 ** (k + 1) - 1
    const threshold = alpha / (count * windows)
    let previous = -1
    for (let j = 0; j < count; j++) {
      const start = from + (count === 1 ? 0 : Math.round((j * (size - length)) / (count - 1)))
      if (start === previous) continue
      previous = start
      const split = testInterval(series, start, start + length, threshold)
      if (split && (!best || split.pValue < best.pValue || (split.pValue === best.pValue && length > best.length))) {
        best = { ...split, length }
      }
    }
  }
  return best && { at: best.at, pValue: best.pValue }
}

/**
 * Pettitt's test on x[from, to): the split t maximising |U_t|, where
 * U_t = 2·(sum of the first t mid-ranks) − t·(n + 1), accepted when its
 * p-value, after the autocorrelation correction, is below threshold, its
 * effect at least minEffect and the two sides' median intervals disjoint.
 * @param {Series} series
 * @param {number} from
 * @param {number} to
 * @param {number} threshold
 * @returns {Split | null}
 */
export function testInterval(series, from, to, threshold) {
  const {
    x,
    dense,
    opts: { minSegment, minEffect, floor }
  } = series
  const n = to - from
  // the interval's order from the series' dense ranks: one numeric sort of rank·n + offset
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) keys[i] = dense[from + i] * n + i
  keys.sort()
  const order = new Int32Array(n)
  const rank = new Float64Array(n)
  for (let j = 0; j < n;) {
    const group = Math.floor(keys[j] / n)
    let k = j + 1
    while (k < n && Math.floor(keys[k] / n) === group) k++
    const mid = (j + 1 + k) / 2
    for (let q = j; q < k; q++) {
      const i = keys[q] - group * n
      order[q] = i
      rank[i] = mid
    }
    j = k
  }

  let sum = 0
  let t = -1
  let K = -1
  for (let s = 1; s <= n - minSegment; s++) {
    sum += rank[s - 1]
    if (s < minSegment) continue
    const u = Math.abs(2 * sum - s * (n + 1))
    if (u > K) {
      K = u
      t = s
    }
  }
  if (t < 0 || pettitt(K, n) >= threshold) return null

  const left = new Float64Array(t)
  const right = new Float64Array(n - t)
  for (let q = 0, l = 0, r = 0; q < n; q++) {
    const i = order[q]
    if (i < t) left[l++] = x[from + i]
    else right[r++] = x[from + i]
  }
  const before = levelOfSorted(left)
  const after = levelOfSorted(right)
  if (!levelsDiffer(before, after, minEffect, floor)) return null

  const rho = correctedAutocorrelation(lagOneAutocorrelation(x, from, to, from + t, before.median, after.median), n)
  const pValue = pettitt(K * Math.sqrt((1 - rho) / (1 + rho)), n)
  if (pValue >= threshold) return null
  return { at: from + t, pValue }
}

/**
 * Pettitt's approximate p-value of K = max |U_t| over n points.
 * @param {number} K
 * @param {number} n
 * @returns {number}
 */
export function pettitt(K, n) {
  return Math.min(1, 2 * Math.exp((-6 * K * K) / (n * n * n + n * n)))
}

/** Levels fitted before the autocorrelation is estimated: one each side. */
const FITTED_LEVELS = 2

/**
 * The estimate's small-sample bias undone, then clipped to [0, RHO_MAX]: a
 * lag-1 autocorrelation estimated around a fitted level falls short by about
 * (1 + 3ρ)/n (Marriott & Pope 1954), once for each level fitted.
 * @param {number} rho   as estimated
 * @param {number} n     points it was estimated from
 * @returns {number}
 */
export function correctedAutocorrelation(rho, n) {
  const corrected = rho + (FITTED_LEVELS * (1 + 3 * rho)) / n
  return Math.min(RHO_MAX, Math.max(0, corrected))
}

/**
 * The lag-1 autocorrelation of x[from, to) less its side's median (before
 * `at`, after it), as estimated: Σ r_i·r_(i+1) / Σ r_i².
 * @param {Float64Array} x
 * @param {number} from
 * @param {number} to
 * @param {number} at
 * @param {number} before
 * @param {number} after
 * @returns {number}
 */
export function lagOneAutocorrelation(x, from, to, at, before, after) {
  let squares = 0
  let products = 0
  let previous = NaN
  for (let i = from; i < to; i++) {
    const residual = x[i] - (i < at ? before : after)
    squares += residual * residual
    if (i > from) products += residual * previous
    previous = residual
  }
  return squares > 0 ? products / squares : 0
}

/**
 * Binary segmentation's splits and the scan's, one per neighbourhood of
 * minSegment points: the more significant.
 * @param {Split[]} binary
 * @param {Split[]} scanned
 * @param {number} minSegment
 * @returns {Split[]} in index order
 */
function joinSplits(binary, scanned, minSegment) {
  /** @type {Split[]} */
  const kept = []
  for (const split of [...binary, ...scanned].sort((a, b) => a.pValue - b.pValue || a.at - b.at)) {
    if (kept.every(k => Math.abs(k.at - split.at) >= minSegment)) kept.push(split)
  }
  return kept.sort((a, b) => a.at - b.at)
}

/**
 * Merges neighbouring segments that no longer differ, until every pair of
 * neighbours does.
 * @param {Series} series
 * @param {Split[]} splits   in index order
 * @returns {Split[]}
 */
function prune(series, splits) {
  const {
    x,
    opts: { minEffect, floor }
  } = series
  const bounds = [0, ...splits.map(split => split.at), x.length]
  const kept = [...splits]
  const levels = kept.length === 0 ? [] : bounds.slice(0, -1).map((from, i) => levelOf(x, from, bounds[i + 1]))
  let i = 0
  while (i < kept.length) {
    if (levelsDiffer(levels[i], levels[i + 1], minEffect, floor)) {
      i++
      continue
    }
    kept.splice(i, 1)
    bounds.splice(i + 1, 1)
    levels.splice(i, 2, levelOf(x, bounds[i], bounds[i + 1]))
    if (i > 0) i--
  }
  return kept
}
