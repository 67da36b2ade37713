import { SortedWindow, effectOf, levelOf } from './levels.js'
import { checkOptions, present } from './change-point-input.js'
import { normalTail, prewhiten, scanInterval, shiftZ } from './change-scan.js'
import { noiseOf } from './series-noise.js'
import { scanExcess } from './change-calibration.js'
import { mosumSplits } from './mosum.js'
import { MAX_INTERVAL, holeSplit } from './hole-scan.js'

export { DEFAULTS } from './change-point-input.js'
export { RHO_MAX } from './series-noise.js'

// When a run changed: one per-second series cut into segments of steady
// level. A series of positive figures is analysed in logarithms, where a
// drop by a third is the same shift at any level and a heavy-tailed p99 is
// nearly symmetric. Binary segmentation: each window is scanned for one
// shift of the mean in AR(1) noise (change-scan.js, the noise from
// series-noise.js), together with a fixed family of sub-intervals at
// halving lengths (seeded intervals, Kovács, Li, Bühlmann & Munk 2023) for
// short excursions; a split is kept when it is significant after a
// Bonferroni guard over every place tested and its effect is at least
// minEffect. The noise is fitted again around the segments found and the
// segmentation repeated once; neighbours that no longer differ are merged.
// docs/change-points.md.

/** @typedef {import('./levels.js').Level} Level */

/**
 * @typedef {object} ChangePoint
 * @property {number} index    first index of the new segment (in the input's indexing)
 * @property {Level} before    the segment before
 * @property {Level} after     the segment after
 * @property {number} effect   (after.median − before.median) / max(|before.median|, floor): signed
 * @property {number} pValue   adjusted for the places tested: significant below alpha
 */

/** @typedef {import('./change-point-input.js').ChangePointOptions} ChangePointOptions */

/** @typedef {import('./change-point-input.js').Series} Series */

/**
 * @typedef {object} Split
 * @property {number} at       first point of the new segment (in the non-missing indexing)
 * @property {number} pValue
 */

/** In logarithms, values below this share of the median count as that share. */
export const LOG_FLOOR = 0.05

/**
 * @param {ArrayLike<number | null | undefined>} values   one per second
 * @param {{ minSegment?: number, minEffect?: number, alpha?: number, floor?: number,
 *     maxChanges?: number }} [options]  defaults in change-point-input.js
 * @returns {{ changes: ChangePoint[], segments: Array<{ from: number, to: number, level: Level }> }}   changes in index
 *   order; segments cover [0, values.length) with `to` exclusive
 */
export function findChangePoints(values, options) {
  const opts = checkOptions(options)
  const { x, positions } = present(values)
  const series = { x, z: domainOf(x, opts.minSegment), opts }
  let kept = /** @type {Split[]} */ ([])
  if (x.length >= 2 * opts.minSegment && opts.maxChanges > 0) {
    kept = segmentWith(series, [0, x.length])
    if (kept.length > 0) kept = segmentWith(series, [0, ...kept.map(s => s.at), x.length])
  }

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
 * Logarithms when every value is at least 0, the median above 0 and the
 * noise no more lopsided in logarithms than as it is (multiplicative,
 * heavy-tailed noise becomes nearly symmetric in logarithms; noise that
 * is symmetric as it is would gain a long lower tail); the values
 * themselves otherwise.
 * @param {Float64Array} x
 * @param {number} half    the running median's half-width
 * @returns {Float64Array}
 */
export function domainOf(x, half) {
  if (x.length === 0) return x
  const sorted = x.slice().sort()
  const median = sorted[Math.floor(sorted.length / 2)]
  if (sorted[0] < 0 || !(median > 0)) return x
  const low = LOG_FLOOR * median
  const logs = x.map(v => Math.log(Math.max(v, low)))
  return Math.abs(lopsided(logs, half)) <= Math.abs(lopsided(x, half)) ? logs : x
}

/** At most this many residuals (evenly spaced) judge the noise's symmetry. */
const LOPSIDED_POINTS = 4000

/**
 * The quantile skewness (q95 + q05 − 2·q50) / (q95 − q05) of the residuals
 * around a running median of 2·half + 1 points: 0 for symmetric noise.
 * @param {Float64Array} z
 * @param {number} half
 */
function lopsided(z, half) {
  const stride = Math.ceil(z.length / LOPSIDED_POINTS)
  const residuals = new Float64Array(Math.ceil(z.length / stride))
  const window = new SortedWindow(z, 2 * half + 1)
  for (let k = 0, i = 0; i < z.length; k++, i += stride) {
    window.moveTo(Math.max(0, i - half), Math.min(z.length, i + half + 1))
    residuals[k] = z[i] - window.median()
  }
  residuals.sort()
  const at = (/** @type {number} */ q) => residuals[Math.min(residuals.length - 1, Math.floor(q * residuals.length))]
  const spread = at(0.95) - at(0.05)
  return spread > 0 ? (at(0.95) + at(0.05) - 2 * at(0.5)) / spread : 0
}

/**
 * The segmentation with the noise fitted around the segments `bounds`.
 * @param {Series} series
 * @param {number[]} bounds
 * @returns {Split[]}
 */
function segmentWith(series, bounds) {
  const { rho, scale } = noiseOf(series.z, bounds)
  const whitened = prewhiten(series.z, rho, scale)
  return prune(series, joinSplits(segment(series, whitened), mosumSplits(series), series.opts.minSegment))
}

/**
 * Binary segmentation, depth by depth: every window of a depth is tested, the
 * splits found are kept (the most significant first while maxChanges allows)
 * and their two sides are the next depth's windows.
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @returns {Split[]}   in index order
 */
function segment(series, whitened) {
  const { minSegment, maxChanges } = series.opts
  /** @type {Split[]} */
  const splits = []
  let windows = [[0, series.x.length]]
  while (windows.length > 0 && splits.length < maxChanges) {
    /** @type {Array<WindowSplit & { from: number, to: number }>} */
    const found = []
    for (const [from, to] of windows) {
      if (to - from < 2 * minSegment) continue
      const split = bestSplit(series, whitened, from, to)
      if (split) found.push({ ...split, from, to })
    }
    found.sort((a, b) => a.pValue - b.pValue || a.at - b.at)
    const taken = found.slice(0, maxChanges - splits.length)
    for (const { at, end, pValue } of taken) {
      splits.push({ at, pValue })
      if (end !== undefined) splits.push({ at: end, pValue })
    }
    // a hole's edges make three windows
    windows = taken.flatMap(({ from, at, end, to }) => {
      const edges = [from, at, ...(end === undefined ? [] : [end]), to]
      return edges.slice(1).map((edge, i) => [edges[i], edge])
    })
  }
  return splits.sort((a, b) => a.at - b.at).slice(0, maxChanges)
}

/**
 * A window's split: one edge, or a hole's two (`end`, its first point after).
 * @typedef {Split & { end?: number }} WindowSplit
 */

/** Candidates of a window tested again with the noise fitted around them. */
const REFITTED = 4

/**
 * The window's best split. The window itself is scanned at half of alpha;
 * its sub-intervals (lengths L/2, L/4 … down to 2·minSegment, at the k-th
 * length 2^(k+1) − 1 intervals shifted by half a length) share the other
 * half equally between lengths. Within a length, Bonferroni over every
 * place tested. The best candidates are scanned again with the noise
 * fitted around their split (refit); of those then significant, the first
 * whose effect is at least minEffect.
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @param {number} from
 * @param {number} to
 * @returns {WindowSplit | null}
 */
function bestSplit(series, whitened, from, to) {
  const { minSegment, alpha, minEffect, floor } = series.opts
  const size = to - from
  let lengths = 0
  while (Math.floor(size / 2 ** (lengths + 1)) >= 2 * minSegment) lengths++
  /** @type {Array<Split & { from: number, to: number, places: number }>} */
  const candidates = []
  for (let k = 0; k <= lengths; k++) {
    const length = Math.floor(size / 2 ** k)
    const count = 2 ** (k + 1) - 1
    const share = lengths === 0 ? 1 : k === 0 ? 0.5 : 0.5 / lengths
    const places = (count * (length - 2 * minSegment + 1)) / share
    let previous = -1
    for (let j = 0; j < count; j++) {
      const start = from + (count === 1 ? 0 : Math.round((j * (size - length)) / (count - 1)))
      if (start === previous) continue
      previous = start
      const best = scanInterval(whitened, start, start + length, minSegment)
      if (best)
        candidates.push({ at: best.at, pValue: adjusted(best.z, places), from: start, to: start + length, places })
    }
  }
  candidates.sort((a, b) => a.pValue - b.pValue || b.to - b.from - (a.to - a.from) || a.at - b.at)
  const refitted = candidates
    .slice(0, REFITTED)
    .map(c => refit(series, from, to, c))
    .filter(c => c.pValue < alpha)
    .sort((a, b) => a.pValue - b.pValue || a.at - b.at)
  const step = refitted.find(
    c => Math.abs(effectOf(levelOf(series.x, c.from, c.at), levelOf(series.x, c.at, c.to), floor)) >= minEffect
  )
  // A hole or a bump, at half of alpha over every pair (hole-scan.js): the
  // more significant of the two. A long window with a step is split first:
  // the hole is scanned there once its windows are short.
  if (step && to - from > HOLE_BESIDE_STEP) return { at: step.at, pValue: step.pValue }
  const hole = holeSplit(series, whitened, from, to, HOLE_SHARE)
  if (hole && (!step || hole.pValue < step.pValue)) return hole
  return step ? { at: step.at, pValue: step.pValue } : null
}

/** The share of alpha of a window's hole scan. */
const HOLE_SHARE = 0.5
/** The longest window whose hole is weighed against its step. */
const HOLE_BESIDE_STEP = 4 * MAX_INTERVAL

/**
 * A candidate scanned again, the noise of its neighbourhood in the window
 * fitted around the candidate's interval and split.
 * @param {Series} series
 * @param {number} window   the window's first point
 * @param {number} end      the window's end
 * @param {Split & { from: number, to: number, places: number }} c
 * @returns {Split & { from: number, to: number }}
 */
function refit(series, window, end, c) {
  // the noise of a short interval's neighbourhood: the interval and as much again each side
  const length = c.to - c.from
  const from = Math.max(window, c.from - length)
  const to = Math.min(end, c.to + length)
  const z = series.z.subarray(from, to)
  const bounds = [...new Set([0, c.from - from, c.at - from, c.to - from, to - from])].sort((a, b) => a - b)
  const { rho, scale } = noiseOf(z, bounds)
  const best = scanInterval(prewhiten(z, rho, scale), c.from - from, c.to - from, series.opts.minSegment)
  if (!best) return { ...c, pValue: 1 }
  const excess = scanExcess(c.to - c.from, rho, series.opts.minSegment)
  return { at: best.at + from, pValue: adjusted(Math.abs(best.z) - excess, c.places), from: c.from, to: c.to }
}

/**
 * A two-sided p-value times the places of its family (Bonferroni).
 * @param {number} z
 * @param {number} places
 */
function adjusted(z, places) {
  return Math.min(1, 2 * normalTail(Math.abs(z)) * places)
}

/**
 * Binary segmentation's splits and the moving-sum scan's (mosum.js: short
 * collapses), one per neighbourhood of minSegment points: the more
 * significant.
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
 * Merges neighbouring segments that no longer differ: a boundary stays when
 * the scan of its two segments together finds it significant there, at
 * half of alpha over the places of that window, and the segments' medians
 * differ by minEffect.
 * @param {Series} series
 * @param {Split[]} splits   in index order
 * @returns {Split[]}
 */
function prune(series, splits) {
  const { x, opts } = series
  const kept = [...splits]
  let i = 0
  while (i < kept.length) {
    const from = i > 0 ? kept[i - 1].at : 0
    const to = i + 1 < kept.length ? kept[i + 1].at : x.length
    const { at } = kept[i]
    const z = series.z.subarray(from, to)
    const { rho, scale } = noiseOf(z, [0, at - from, to - from])
    const places = Math.max(1, to - from - 2 * opts.minSegment + 1) / 0.5
    const excess = scanExcess(to - from, rho, opts.minSegment)
    const pValue = adjusted(Math.abs(shiftZ(prewhiten(z, rho, scale), 0, to - from, at - from)) - excess, places)
    const effect = effectOf(levelOf(x, from, at), levelOf(x, at, to), opts.floor)
    if (pValue < opts.alpha && Math.abs(effect) >= opts.minEffect) {
      i++
      continue
    }
    kept.splice(i, 1)
    if (i > 0) i--
  }
  return kept
}
