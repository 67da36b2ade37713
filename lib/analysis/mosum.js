import { SortedWindow, levelOf, levelsDiffer } from './levels.js'
import { normalTail } from './change-scan.js'
import { RHO_MAX } from './series-noise.js'

// Short changes that binary segmentation misses: a hole of 12 s in a run of
// minutes (a table locked, a burst of checkpoints) moves the level of the
// whole window too little for a single split to stand out, and a rank test
// on a few points cannot see that the hole lies far outside the noise. A
// moving-sum (MOSUM) scan looks at each point with a window of `bandwidth`
// points on either side (Eichinger & Kirch 2018) and keeps a point where
// the two windows' medians differ by minEffect with disjoint intervals and
// either every value of one window lies beyond every value of the other
// and one median is a fifth of the other or less, or they differ by at least
// NOISE_MULTIPLE times the series' noise: the scale of its
// residuals around a running median (1.4826 × their median absolute value,
// robust to the steps themselves and to outliers), inflated for the lag-1
// autocorrelation of those residuals. Of a run of such points, the one with
// the largest difference is kept. Bandwidths minSegment and 2·minSegment;
// the candidates join binary segmentation's before the merging pass
// (change-points.js prune), which keeps only those its scan confirms.

// A difference of medians of `bandwidth` points each is kept beyond this
// many noise scales (see docs/change-points.md for the false-positive rates).
export const NOISE_MULTIPLE = 5

/**
 * @param {{ x: Float64Array, opts: { minSegment: number, minEffect: number, alpha: number, floor: number } }} series
 * @returns {Array<{ at: number, pValue: number }>}   in index order
 */
export function mosumSplits(series) {
  const {
    x,
    opts: { minSegment, minEffect, floor }
  } = series
  if (x.length < 2 * minSegment) return []
  const noise = noiseScale(x, minSegment)
  /** @type {Array<{ at: number, pValue: number, z: number }>} */
  const found = []
  for (const bandwidth of [minSegment, 2 * minSegment]) {
    if (2 * bandwidth > x.length) break
    // the spread of a difference of two medians of `bandwidth` points
    const spread = noise * Math.sqrt(2 / bandwidth) * 1.2533
    /** @type {{ at: number, pValue: number, z: number } | null} */
    let run = null
    const beforeWindow = new SortedWindow(x, bandwidth)
    const afterWindow = new SortedWindow(x, bandwidth)
    for (let t = bandwidth; t + bandwidth <= x.length; t++) {
      let candidate = null
      beforeWindow.moveTo(t - bandwidth, t)
      afterWindow.moveTo(t, t + bandwidth)
      const before = beforeWindow.level()
      const after = afterWindow.level()
      const z = spread > 0 ? Math.abs(after.median - before.median) / spread : Infinity
      // Beyond the noise, or, where the noise is high (a loaded machine),
      // a window wholly above the other with medians COLLAPSE_RATIO times
      // apart: throughput that falls to 0 while a table is locked.
      const apart =
        z >= NOISE_MULTIPLE || (separated(x, t - bandwidth, t, t + bandwidth) && collapsed(before.median, after.median))
      if (apart && levelsDiffer(before, after, minEffect, floor)) {
        candidate = { at: t, pValue: Math.min(1, 2 * normalTail(z)), z }
      }
      if (candidate && run && candidate.at - run.at <= bandwidth) {
        if (candidate.z > run.z) run = candidate
      } else if (candidate) {
        if (run) found.push(run)
        run = candidate
      } else if (run && t - run.at > bandwidth) {
        found.push(run)
        run = null
      }
    }
    if (run) found.push(run)
  }
  // one candidate per neighbourhood, the strongest
  found.sort((a, b) => b.z - a.z)
  /** @type {Array<{ at: number, pValue: number }>} */
  const kept = []
  for (const c of found) {
    const at = refine(x, c.at, minSegment)
    if (kept.every(k => Math.abs(k.at - at) >= minSegment)) kept.push({ at, pValue: c.pValue })
  }
  return kept.sort((a, b) => a.at - b.at)
}

/**
 * Where exactly the level moves near `at`: the split of x[at − w, at + w)
 * that fits two medians best (least absolute deviations), w = minSegment.
 * The difference of medians is flat for a few points around a step; this
 * cost is not.
 * @param {Float64Array} x @param {number} at @param {number} w
 */
function refine(x, at, w) {
  const from = Math.max(0, at - w)
  const to = Math.min(x.length, at + w)
  let best = at
  let bestCost = Infinity
  for (let t = from + 1; t < to; t++) {
    const cost = deviations(x, from, t) + deviations(x, t, to)
    if (cost < bestCost) {
      bestCost = cost
      best = t
    }
  }
  return best
}

/** @param {Float64Array} x @param {number} from @param {number} to */
function deviations(x, from, to) {
  const median = levelOf(x, from, to).median
  let sum = 0
  for (let i = from; i < to; i++) sum += Math.abs(x[i] - median)
  return sum
}

// How far apart two levels must be for a collapse (or its end): a fifth
// of the other, or less.
export const COLLAPSE_RATIO = 5

/** @param {number} a @param {number} b */
function collapsed(a, b) {
  const low = Math.min(Math.abs(a), Math.abs(b))
  const high = Math.max(Math.abs(a), Math.abs(b))
  return high > 0 && low * COLLAPSE_RATIO <= high
}

/**
 * Every value of x[from, at) below every value of x[at, to), or above.
 * @param {Float64Array} x @param {number} from @param {number} at @param {number} to
 */
function separated(x, from, at, to) {
  let lowBefore = Infinity
  let highBefore = -Infinity
  for (let i = from; i < at; i++) {
    lowBefore = Math.min(lowBefore, x[i])
    highBefore = Math.max(highBefore, x[i])
  }
  let lowAfter = Infinity
  let highAfter = -Infinity
  for (let i = at; i < to; i++) {
    lowAfter = Math.min(lowAfter, x[i])
    highAfter = Math.max(highAfter, x[i])
  }
  return highBefore < lowAfter || highAfter < lowBefore
}

/**
 * The series' noise: 1.4826 × the median absolute residual around a running
 * median of 2·half + 1 points, times sqrt((1 + ρ)/(1 − ρ)) for the
 * residuals' lag-1 autocorrelation (the spread of a mean of correlated
 * points).
 * @param {Float64Array} x
 * @param {number} half
 */
function noiseScale(x, half) {
  const residuals = new Float64Array(x.length)
  const window = new SortedWindow(x, 2 * half + 1)
  for (let i = 0; i < x.length; i++) {
    window.moveTo(Math.max(0, i - half), Math.min(x.length, i + half + 1))
    residuals[i] = x[i] - window.median()
  }
  const absolute = Float64Array.from(residuals, Math.abs).sort()
  const mad = absolute[Math.floor(absolute.length / 2)]
  // the autocorrelation of the residuals clipped at three scales, so that
  // the change itself (many large residuals in a row) does not count as noise
  const limit = 3 * 1.4826 * mad
  const clipped = Float64Array.from(residuals, r => Math.max(-limit, Math.min(limit, r)))
  const rho = lagOne(clipped)
  return 1.4826 * mad * Math.sqrt((1 + rho) / (1 - rho))
}

/**
 * The lag-1 autocorrelation of residuals, its shortfall of about
 * 2(1 + 3ρ)/n undone (Marriott & Pope 1954), clipped to [0, RHO_MAX].
 * @param {Float64Array} r
 */
function lagOne(r) {
  let squares = 0
  let products = 0
  for (let i = 0; i < r.length; i++) {
    squares += r[i] * r[i]
    if (i > 0) products += r[i] * r[i - 1]
  }
  const rho = squares > 0 ? products / squares : 0
  return Math.min(RHO_MAX, Math.max(0, rho + (2 * (1 + 3 * rho)) / Math.max(1, r.length)))
}
