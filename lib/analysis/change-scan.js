import { medianOf } from './series-noise.js'

// The test behind each split of findChangePoints (change-points.js): a
// likelihood-ratio scan for one shift of the mean in AR(1) noise. The
// series (in the domain change-points.js chose) is prewhitened with the
// fitted autocorrelation ρ: y_t = z_t − ρ·z_(t−1). A shift of the mean by
// d at τ then shows in y as d at τ and (1 − ρ)·d after it; the regression
// of y on that pattern g (0 before τ, 1 at τ, 1 − ρ after) and a constant
// gives the shift's z = Σ(g − ḡ)·y / (s·√Σ(g − ḡ)²), s the innovations'
// scale (series-noise.js). Under strong autocorrelation most of the
// evidence is the jump at τ itself, which a test of the two sides' means
// discards. Every candidate τ of an interval is scored in O(1) from
// prefix sums.

/**
 * @typedef {object} Prewhitened
 * @property {Float64Array} prefix   prefix[i] = Σ y_t for t < i (y_0 = 0)
 * @property {Float64Array} y        the innovations, clipped (y_0 unused)
 * @property {number} rho
 * @property {number} scale          the innovations' standard deviation
 */

/** Innovations further than this many scales from their median are clipped. */
export const CLIP_SCALES = 4

/**
 * @param {Float64Array} z
 * @param {number} rho
 * @param {number} scale
 * @returns {Prewhitened}
 */
export function prewhiten(z, rho, scale) {
  const n = z.length
  const y = new Float64Array(n)
  for (let t = 1; t < n; t++) y[t] = z[t] - rho * z[t - 1]
  const centre = medianOf(y.subarray(1))
  const limit = CLIP_SCALES * scale
  const prefix = new Float64Array(n + 1)
  for (let t = 1; t < n; t++) {
    y[t] = centre + Math.max(-limit, Math.min(limit, y[t] - centre))
    prefix[t + 1] = prefix[t] + y[t]
  }
  return { prefix, y, rho, scale }
}

/**
 * The shift's z at `at` within z[from, to).
 * @param {Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} at
 */
export function shiftZ(p, from, to, at) {
  const { prefix, y, rho, scale } = p
  const count = to - from - 1
  if (count < 2 || scale <= 0 || at <= from || at >= to) return 0
  const keep = 1 - rho
  const after = to - 1 - at
  const sumG = 1 + keep * after
  const spread = 1 + keep * keep * after - (sumG * sumG) / count
  if (spread <= 0) return 0
  const sumGY = y[at] + keep * (prefix[to] - prefix[at + 1])
  return (sumGY - (sumG * (prefix[to] - prefix[from + 1])) / count) / (scale * Math.sqrt(spread))
}

/**
 * The best shift of z[from, to), at least `margin` points on each side.
 * @param {Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} margin
 * @returns {{ at: number, z: number } | null}
 */
export function scanInterval(p, from, to, margin) {
  let best = null
  let bestAbs = -1
  for (let at = from + margin; at <= to - margin; at++) {
    const z = shiftZ(p, from, to, at)
    if (Math.abs(z) > bestAbs) {
      bestAbs = Math.abs(z)
      best = { at, z }
    }
  }
  return best
}

/**
 * P(Z > z) of the standard normal (Abramowitz & Stegun 26.2.17, error below 7.5e-8).
 * @param {number} z
 * @returns {number}
 */
export function normalTail(z) {
  if (z < 0) return 1 - normalTail(-z)
  const t = 1 / (1 + 0.2316419 * z)
  const density = Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI)
  return density * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
}

/**
 * The z whose upper tail is p, by bisection.
 * @param {number} p   in (0, 0.5]
 */
export function criticalZ(p) {
  let low = 0
  let high = 40
  for (let k = 0; k < 60; k++) {
    const mid = (low + high) / 2
    if (normalTail(mid) > p) low = mid
    else high = mid
  }
  return (low + high) / 2
}
