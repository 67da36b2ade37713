import { effectOf, levelOf } from './levels.js'
import { normalTail, prewhiten } from './change-scan.js'
import { noiseOf } from './series-noise.js'
import { holeExcess } from './hole-calibration.js'

// A hole (or a bump): the mean shifted by d over [a, b) and back, with
// level ground on both sides. A scan for one shift sees each edge against a
// side that holds the other edge's level too, and misses a hole of 10 to 40
// points at −50 % in 180 (the suite's clear holes: 136 of 332 found nothing).
// Here the alternative is the hole itself: in the prewhitened series
// (change-scan.js) the shift shows as d at a, (1 − ρ)·d inside, −ρ·d at b and
// nothing after, and the regression of y on that pattern and a constant gives
// z(a, b) in O(1) from the same prefix sums. Every pair with at least `margin`
// points in the hole and on each side is scored: O(L²) for an interval of L
// points, so a window longer than MAX_INTERVAL is scanned in intervals of
// that length overlapping by half (every hole of up to half that length lies
// whole in one of them; a longer one has sides long enough for the
// single-shift scan). The best pair is scanned again with the noise
// fitted around it until it stays (refittedHole), held to the calibrated
// excess of a hole scan of
// its length and ρ (hole-calibration.js), and Bonferroni over every pair tested.

/** @typedef {import('./change-point-input.js').Series} Series */

/** The longest interval whose pairs are all scored. */
export const MAX_INTERVAL = 240

/**
 * The hole's z for [a, b) within z[from, to): a > from, b < to.
 * @param {import('./change-scan.js').Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} a   the hole's first point
 * @param {number} b   the first point after it
 */
export function holeZ(p, from, to, a, b) {
  const { prefix, y, rho, scale } = p
  const count = to - from - 1
  if (count < 3 || scale <= 0 || a <= from || b >= to || b <= a) return 0
  const keep = 1 - rho
  const inside = b - a - 1
  const sumG = 1 + keep * inside - rho
  const spread = 1 + keep * keep * inside + rho * rho - (sumG * sumG) / count
  if (spread <= 0) return 0
  const sumGY = y[a] + keep * (prefix[b] - prefix[a + 1]) - rho * y[b]
  return (sumGY - (sumG * (prefix[to] - prefix[from + 1])) / count) / (scale * Math.sqrt(spread))
}

/**
 * The best hole of z[from, to), at least `margin` points in it and on each side.
 * @param {import('./change-scan.js').Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} margin
 * @returns {{ a: number, b: number, z: number, pairs: number } | null}
 */
export function scanHoles(p, from, to, margin) {
  let best = null
  let bestAbs = -1
  let pairs = 0
  for (let a = from + margin; a + 2 * margin <= to; a++) {
    for (let b = a + margin; b + margin <= to; b++) {
      pairs++
      const z = holeZ(p, from, to, a, b)
      if (Math.abs(z) > bestAbs) {
        bestAbs = Math.abs(z)
        best = { a, b, z, pairs: 0 }
      }
    }
  }
  return best && { ...best, pairs }
}

/**
 * The intervals a window's holes are scanned in: the window itself up to
 * MAX_INTERVAL points, else intervals of MAX_INTERVAL points every half of
 * that, the last one ending with the window: every hole of up to
 * MAX_INTERVAL / 2 points lies whole in one of them.
 * @param {number} from
 * @param {number} to
 * @returns {[number, number][]}
 */
export function holeIntervals(from, to) {
  if (to - from <= MAX_INTERVAL) return [[from, to]]
  /** @type {[number, number][]} */
  const intervals = []
  for (let start = from; start + MAX_INTERVAL < to; start += MAX_INTERVAL / 2) {
    intervals.push([start, start + MAX_INTERVAL])
  }
  intervals.push([to - MAX_INTERVAL, to])
  return intervals
}

/**
 * The window's most significant hole whose level differs from the ground on
 * both sides by minEffect: its two edges, or null.
 * @param {Series} series
 * @param {import('./change-scan.js').Prewhitened} whitened
 * @param {number} from
 * @param {number} to
 * @param {number} share   of alpha
 * @returns {{ at: number, end: number, pValue: number } | null}
 */
export function holeSplit(series, whitened, from, to, share) {
  const { minSegment, alpha } = series.opts
  let places = 0
  /** @type {{ a: number, b: number, z: number, from: number, to: number } | null} */
  let best = null
  for (const [start, end] of holeIntervals(from, to)) {
    const found = scanHoles(whitened, start, end, minSegment)
    if (!found) continue
    places += found.pairs
    if (!best || Math.abs(found.z) > Math.abs(best.z)) best = { ...found, from: start, to: end }
  }
  if (!best) return null
  const refitted = refitHole(series, best)
  const pValue = Math.min(1, (2 * normalTail(refitted.z) * places) / share)
  if (pValue >= alpha || !differs(series, refitted, best)) return null
  return { at: refitted.a, end: refitted.b, pValue }
}

/** Refits of a hole's noise at most, each around the best hole of the one before. */
export const REFITS = 3

/**
 * The best hole of z (an interval's points), the noise fitted around the
 * hole found and the scan repeated until the hole stays (at most REFITS
 * times): fitted around one level, a hole makes the noise look strongly
 * autocorrelated, and fitted around part of the hole, still too much.
 * @param {Float64Array} z
 * @param {{ a: number, b: number }} first   the hole found with the window's noise
 * @param {number} margin
 * @returns {{ a: number, b: number, z: number, rho: number }}
 */
export function refittedHole(z, first, margin) {
  let hole = { ...first, z: 0, rho: 0 }
  for (let k = 0; k < REFITS; k++) {
    const { rho, scale } = noiseOf(z, [0, hole.a, hole.b, z.length])
    const found = scanHoles(prewhiten(z, rho, scale), 0, z.length, margin)
    if (!found) break
    const same = found.a === hole.a && found.b === hole.b
    hole = { a: found.a, b: found.b, z: Math.abs(found.z), rho }
    if (same) break
  }
  return hole
}

/**
 * The hole refitted in its interval (refittedHole); its |z| less the
 * calibrated excess of a hole scan of that length and ρ.
 * @param {Series} series
 * @param {{ a: number, b: number, from: number, to: number }} hole
 */
function refitHole(series, { a, b, from, to }) {
  const margin = series.opts.minSegment
  const z = series.z.subarray(from, to)
  const found = refittedHole(z, { a: a - from, b: b - from }, margin)
  // Fitted around the best hole, ρ falls short most where a slow swing was
  // taken for the hole: the threshold is that of the larger of it and ρ fitted
  // around one level, which no hole lowers.
  const rho = Math.max(found.rho, noiseOf(z, [0, z.length]).rho)
  const excess = holeExcess(to - from, rho, margin)
  return { a: found.a + from, b: found.b + from, z: found.z - excess }
}

/**
 * The hole's median differs from each side's by minEffect.
 * @param {Series} series
 * @param {{ a: number, b: number }} hole
 * @param {{ from: number, to: number }} interval
 */
function differs(series, { a, b }, { from, to }) {
  const { minEffect, floor } = series.opts
  const inside = levelOf(series.x, a, b)
  return [levelOf(series.x, from, a), levelOf(series.x, b, to)].every(
    side => Math.abs(effectOf(side, inside, floor)) >= minEffect
  )
}
