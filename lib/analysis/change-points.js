import { effectOf, levelOf } from './levels.js'
import { checkOptions, present } from './change-point-input.js'
import { normalTail, prewhiten, scanInterval, shiftZ } from './change-scan.js'
import { noiseOf } from './series-noise.js'
import { scanExcess, stretchExcess } from './change-calibration.js'
import { scanStretches, stretchCount, stretchZ } from './segment-scan.js'
import { mosumSplits } from './mosum.js'

export { DEFAULTS } from './change-point-input.js'
export { RHO_MAX } from './series-noise.js'

// When a run changed: one per-second series cut into segments of steady
// level. A series of positive figures is analysed in logarithms, where a
// drop by a third is the same shift at any level and a heavy-tailed p99 is
// nearly symmetric. Binary segmentation: each window is scanned for one
// shift of the mean in AR(1) noise (change-scan.js, the noise from
// series-noise.js), together with a fixed family of sub-intervals at
// halving lengths (seeded intervals, Kovács, Li, Bühlmann & Munk 2023) for
// short excursions, and for a stretch that leaves its level and comes back
// (segment-scan.js: holes); a split is kept when it is significant after a
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

/**
 * @typedef {object} Series
 * @property {Float64Array} x      the non-missing values, in order
 * @property {Float64Array} z      the same in the domain analysed (logarithms of positive series)
 * @property {Required<ChangePointOptions>} opts
 */

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
  for (let k = 0, i = 0; i < z.length; k++, i += stride) {
    residuals[k] = z[i] - levelOf(z, Math.max(0, i - half), Math.min(z.length, i + half + 1)).median
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
    /** @type {Array<{ found: Split[], from: number, to: number }>} */
    const found = []
    for (const [from, to] of windows) {
      if (to - from < 2 * minSegment) continue
      const best = bestSplit(series, whitened, from, to)
      if (best.length > 0) found.push({ found: best, from, to })
    }
    found.sort((a, b) => a.found[0].pValue - b.found[0].pValue || a.found[0].at - b.found[0].at)
    const taken = found.slice(0, maxChanges - splits.length)
    for (const window of taken) splits.push(...window.found)
    windows = taken.flatMap(({ found, from, to }) => {
      const edges = [from, ...found.map(split => split.at), to]
      return edges.slice(1).map((edge, k) => [edges[k], edge])
    })
  }
  splits.splice(maxChanges)
  return splits.sort((a, b) => a.at - b.at)
}

/** Candidates of a window tested again with the noise fitted around them, of each scan. */
const REFITTED = 4
/** The stretch scan's share of alpha; the scans for one shift share the rest. */
const STRETCH_SHARE = 1 / 3
/** The longest interval scanned for a stretch: the scan is quadratic in its length. */
const STRETCH_MAX = 360

/**
 * @typedef {object} Candidate
 * @property {'shift' | 'stretch'} kind
 * @property {number} at       the new level's first point
 * @property {number} end      a stretch's first point back; `to` for a shift
 * @property {number} pValue
 * @property {number} from     the interval scanned
 * @property {number} to
 * @property {number} places   the places of its family, over its share of alpha
 */

/**
 * The window's best split, or a stretch's two. The window itself is
 * scanned for one shift at a share of alpha; its sub-intervals (lengths
 * L/2, L/4 … down to 2·minSegment, at the k-th length 2^(k+1) − 1
 * intervals shifted by half a length) share as much again equally between
 * lengths, and the stretch scan has STRETCH_SHARE. Within a length,
 * Bonferroni over every place tested. The best candidates of each scan are
 * scanned again with the noise fitted around them (refit); of those then
 * significant, the first whose effect is at least minEffect (a stretch's
 * at both ends).
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @param {number} from
 * @param {number} to
 * @returns {Split[]}
 */
function bestSplit(series, whitened, from, to) {
  const { alpha } = series.opts
  const best = (/** @type {Candidate[]} */ list) =>
    list.sort((a, b) => a.pValue - b.pValue || b.to - b.from - (a.to - a.from) || a.at - b.at).slice(0, REFITTED)
  const refitted = [
    ...best(shiftCandidates(series, whitened, from, to)),
    ...best(stretchCandidates(series, whitened, from, to))
  ]
    .map(c => refit(series, from, to, c))
    .filter(c => c.pValue < alpha)
    .sort((a, b) => a.pValue - b.pValue || a.at - b.at)
  for (const c of refitted) {
    if (!differs(series, c.from, c.at, c.end)) continue
    if (c.end < c.to && !differs(series, c.at, c.end, c.to)) continue
    return (c.end < c.to ? [c.at, c.end] : [c.at]).map(at => ({ at, pValue: c.pValue }))
  }
  return []
}

/**
 * Whether the medians of x[from, at) and x[at, to) differ by minEffect.
 * @param {Series} series
 * @param {number} from
 * @param {number} at
 * @param {number} to
 */
function differs(series, from, at, to) {
  const { x, opts } = series
  return Math.abs(effectOf(levelOf(x, from, at), levelOf(x, at, to), opts.floor)) >= opts.minEffect
}

/**
 * The seeded intervals of a window: for each length L/2^k down to
 * 2·minSegment, 2^(k+1) − 1 intervals shifted by half a length.
 * @param {number} from
 * @param {number} to
 * @param {number} minSegment
 * @returns {Array<{ length: number, starts: number[] }>}   longest first
 */
function seededIntervals(from, to, minSegment) {
  const size = to - from
  const family = []
  for (let k = 0; k === 0 || Math.floor(size / 2 ** k) >= 2 * minSegment; k++) {
    const length = Math.floor(size / 2 ** k)
    const count = 2 ** (k + 1) - 1
    const starts = [
      ...new Set(
        Array.from(
          { length: count },
          (_, j) => from + (count === 1 ? 0 : Math.round((j * (size - length)) / (count - 1)))
        )
      )
    ]
    family.push({ length, starts })
  }
  return family
}

/**
 * Scans for one shift over the window and its seeded intervals.
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @param {number} from
 * @param {number} to
 * @returns {Candidate[]}
 */
function shiftCandidates(series, whitened, from, to) {
  const { minSegment } = series.opts
  const family = seededIntervals(from, to, minSegment)
  const lengths = family.length - 1
  /** @type {Candidate[]} */
  const candidates = []
  family.forEach(({ length, starts }, k) => {
    const share = (1 - STRETCH_SHARE) * (lengths === 0 ? 1 : k === 0 ? 0.5 : 0.5 / lengths)
    const places = ((2 ** (k + 1) - 1) * (length - 2 * minSegment + 1)) / share
    for (const start of starts) {
      const found = scanInterval(whitened, start, start + length, minSegment)
      if (!found) continue
      const pValue = adjusted(found.z, places)
      candidates.push({
        kind: 'shift',
        at: found.at,
        end: start + length,
        pValue,
        from: start,
        to: start + length,
        places
      })
    }
  })
  return candidates
}

/**
 * Scans for a stretch that leaves and comes back: over the window when it
 * is at most STRETCH_MAX long, else over its seeded intervals of the
 * longest length within that.
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @param {number} from
 * @param {number} to
 * @returns {Candidate[]}
 */
function stretchCandidates(series, whitened, from, to) {
  const { minSegment } = series.opts
  const family = seededIntervals(from, to, minSegment)
  const k = family.findIndex(f => f.length <= STRETCH_MAX)
  if (k < 0) return []
  const { length, starts } = family[k]
  const places = ((2 ** (k + 1) - 1) * stretchCount(length, minSegment)) / STRETCH_SHARE
  /** @type {Candidate[]} */
  const candidates = []
  for (const start of starts) {
    const found = scanStretches(whitened, start, start + length, minSegment)
    if (!found) continue
    const pValue = adjusted(found.z, places)
    candidates.push({ kind: 'stretch', at: found.a, end: found.b, pValue, from: start, to: start + length, places })
  }
  return candidates
}

/**
 * A candidate scanned again, the noise of its neighbourhood in the window
 * fitted around the candidate's interval and split (or stretch). Fitted
 * around a stretch's three levels, steady noise's slow swing looks less
 * autocorrelated than it is, so a stretch's threshold is that of the larger
 * of that ρ and the ρ fitted around one level.
 * @param {Series} series
 * @param {number} window   the window's first point
 * @param {number} end      the window's end
 * @param {Candidate} c
 * @returns {Candidate}
 */
function refit(series, window, end, c) {
  // the noise of a short interval's neighbourhood: the interval and as much again each side
  const { minSegment } = series.opts
  const length = c.to - c.from
  const from = Math.max(window, c.from - length)
  const to = Math.min(end, c.to + length)
  const z = series.z.subarray(from, to)
  const bounds = [...new Set([0, c.from - from, c.at - from, c.end - from, c.to - from, to - from])].sort(
    (a, b) => a - b
  )
  const { rho, scale } = noiseOf(z, bounds)
  const whitened = prewhiten(z, rho, scale)
  if (c.kind === 'shift') {
    const best = scanInterval(whitened, c.from - from, c.to - from, minSegment)
    if (!best) return { ...c, pValue: 1 }
    const excess = scanExcess(length, rho, minSegment)
    return { ...c, at: best.at + from, pValue: adjusted(Math.abs(best.z) - excess, c.places) }
  }
  const best = scanStretches(whitened, c.from - from, c.to - from, minSegment)
  if (!best) return { ...c, pValue: 1 }
  const excess = stretchExcess(length, Math.max(rho, noiseOf(z, [0, to - from]).rho), minSegment)
  return { ...c, at: best.a + from, end: best.b + from, pValue: adjusted(Math.abs(best.z) - excess, c.places) }
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
 * differ by minEffect; or when a segment it bounds, tested as a stretch
 * against its two neighbours, is significant so and differs by minEffect
 * from each of them.
 * @param {Series} series
 * @param {Split[]} splits   in index order
 * @returns {Split[]}
 */
function prune(series, splits) {
  const kept = [...splits]
  let i = 0
  while (i < kept.length) {
    const edges = [0, ...kept.map(split => split.at), series.x.length]
    // boundary i is edges[i + 1]
    const holds =
      shiftHolds(series, edges[i], edges[i + 1], edges[i + 2]) ||
      (i + 3 < edges.length && stretchHolds(series, edges[i], edges[i + 1], edges[i + 2], edges[i + 3])) ||
      (i > 0 && stretchHolds(series, edges[i - 1], edges[i], edges[i + 1], edges[i + 2]))
    if (holds) {
      i++
      continue
    }
    kept.splice(i, 1)
    if (i > 0) i--
  }
  return kept
}

/**
 * Whether a shift at `at` within [from, to) holds, at half of alpha over
 * the places of that window.
 * @param {Series} series
 * @param {number} from
 * @param {number} at
 * @param {number} to
 */
function shiftHolds(series, from, at, to) {
  const { opts } = series
  const z = series.z.subarray(from, to)
  const { rho, scale } = noiseOf(z, [0, at - from, to - from])
  const places = Math.max(1, to - from - 2 * opts.minSegment + 1) / 0.5
  const excess = scanExcess(to - from, rho, opts.minSegment)
  const pValue = adjusted(Math.abs(shiftZ(prewhiten(z, rho, scale), 0, to - from, at - from)) - excess, places)
  return pValue < opts.alpha && differs(series, from, at, to)
}

/**
 * Whether the stretch [a, b) within [from, to) holds, at the stretch
 * scan's share of half of alpha over the stretches of that window.
 * @param {Series} series
 * @param {number} from
 * @param {number} a
 * @param {number} b
 * @param {number} to
 */
function stretchHolds(series, from, a, b, to) {
  const { opts } = series
  const z = series.z.subarray(from, to)
  const { rho, scale } = noiseOf(z, [0, a - from, b - from, to - from])
  const places = stretchCount(to - from, opts.minSegment) / (0.5 * STRETCH_SHARE)
  const excess = stretchExcess(to - from, Math.max(rho, noiseOf(z, [0, to - from]).rho), opts.minSegment)
  const pValue = adjusted(
    Math.abs(stretchZ(prewhiten(z, rho, scale), 0, to - from, a - from, b - from)) - excess,
    places
  )
  return pValue < opts.alpha && differs(series, from, a, b) && differs(series, a, b, to)
}
