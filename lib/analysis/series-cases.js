import { criticalZ } from './change-scan.js'

// Known-answer series for the change-point method: seeded per-second
// figures with a change of known place and size, and the oracle that knows
// where the change is. No server: the tests (test/unit/change-points-power.test.js)
// and the known-answer bench (benchmarks/known-answers/change-points.js)
// draw the same cases from the same seeds. docs/change-points.md.

/**
 * @typedef {'steady' | 'step' | 'hole' | 'step-decline' | 'last-drop'} Shape
 *
 * @typedef {object} SeriesCase
 * @property {Shape} shape
 * @property {number} n          points (seconds)
 * @property {number} rho        lag-1 autocorrelation of the noise (AR(1))
 * @property {'gaussian' | 'lognormal'} noise
 * @property {number} spread     the noise's standard deviation relative to the level (0.2 = 20 %)
 * @property {number} size       relative change of the level (−0.3: a drop by 30 %); 0 when steady
 * @property {number} start      first point of the changed level
 * @property {number} end        first point after it (n when it lasts to the end)
 * @property {number} decline    after the step, the level falls by this share of the first level per second
 *
 * @typedef {object} TrueChange
 * @property {number} index      first point of the new level
 * @property {number} effect     relative change of the mean level across it
 * @property {number} z          the change in long-run standard errors: what the oracle expects to see
 */

/** The level of a series before any change. */
export const BASE = 1000

/**
 * mulberry32: a small seeded generator of uniform numbers in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function seeded(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A standard normal number (Box–Muller).
 * @param {() => number} rand
 */
export function normal(rand) {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
}

/**
 * The true mean level at each point.
 * @param {SeriesCase} c
 * @returns {Float64Array}
 */
export function trueLevels(c) {
  const level = new Float64Array(c.n)
  for (let i = 0; i < c.n; i++) {
    const inside = i >= c.start && i < c.end
    const declined = inside && c.shape === 'step-decline' ? c.decline * (i - c.start) : 0
    level[i] = BASE * (inside ? Math.max(0.01, 1 + c.size - declined) : 1)
  }
  return level
}

/**
 * The series: the true levels times AR(1) noise of unit variance, either
 * 1 + spread·e (gaussian) or exp(σe − σ²/2) with σ² = ln(1 + spread²)
 * (log-normal, the same mean and spread).
 * @param {SeriesCase} c
 * @param {() => number} rand
 * @returns {number[]}
 */
export function makeSeries(c, rand) {
  const level = trueLevels(c)
  const sigma = Math.sqrt(Math.log(1 + c.spread * c.spread))
  const innovation = Math.sqrt(1 - c.rho * c.rho)
  let e = normal(rand)
  const values = []
  for (let i = 0; i < c.n; i++) {
    if (i > 0) e = c.rho * e + innovation * normal(rand)
    const factor = c.noise === 'gaussian' ? 1 + c.spread * e : Math.exp(sigma * e - (sigma * sigma) / 2)
    values.push(level[i] * factor)
  }
  return values
}

/**
 * The changes a case holds: where the level moves, by how much, and how many
 * long-run standard errors the move is (see oracleZ).
 * @param {SeriesCase} c
 * @returns {TrueChange[]}
 */
export function trueChanges(c) {
  if (c.shape === 'steady') return []
  const level = trueLevels(c)
  const inside = meanOf(level, c.start, c.end)
  const outside = c.start > 0 ? meanOf(level, 0, c.start) : meanOf(level, c.end, c.n)
  const z = Math.abs(inside - outside) / standardError(c, level)
  /** @type {TrueChange[]} */
  const changes = [{ index: c.start, effect: inside / outside - 1, z }]
  if (c.end < c.n) changes.push({ index: c.end, effect: outside / level[c.end - 1] - 1, z })
  return changes
}

/**
 * The oracle's statistic: it knows where the changed stretch is and the
 * noise, and compares the mean inside it with the mean outside by a
 * two-sample z, each mean's variance the noise's long-run variance
 * σ²(1 + ρ)/(1 − ρ) over its points (σ the spread times the true level).
 * @param {SeriesCase} c
 * @param {ArrayLike<number>} values
 * @returns {number}   signed: inside minus outside
 */
export function oracleZ(c, values) {
  const level = trueLevels(c)
  const inside = meanOf(values, c.start, c.end)
  const outside = (meanOf(values, 0, c.start) * c.start + meanOf(values, c.end, c.n) * (c.n - c.end)) / outsideCount(c)
  return (inside - outside) / standardError(c, level)
}

/**
 * Two-sided: the oracle reports a change when |z| exceeds the normal
 * quantile of its false-positive rate.
 * @param {number} falsePositiveRate
 */
export function oracleThreshold(falsePositiveRate) {
  return criticalZ(falsePositiveRate / 2)
}

/**
 * The standard error of inside − outside under the long-run variance.
 * @param {SeriesCase} c
 * @param {Float64Array} level
 */
function standardError(c, level) {
  const factor = (1 + c.rho) / (1 - c.rho)
  const insideSd = c.spread * meanOf(level, c.start, c.end)
  const outsideSd = c.spread * BASE
  const inside = c.end - c.start
  return Math.sqrt(factor * ((insideSd * insideSd) / inside + (outsideSd * outsideSd) / outsideCount(c)))
}

/** @param {SeriesCase} c */
function outsideCount(c) {
  return c.start + (c.n - c.end)
}

/**
 * @param {ArrayLike<number>} values
 * @param {number} from
 * @param {number} to
 */
function meanOf(values, from, to) {
  if (to <= from) return 0
  let sum = 0
  for (let i = from; i < to; i++) sum += values[i]
  return sum / (to - from)
}

/**
 * A case of a shape with its moment and length drawn from `rand`: a step at
 * a moment in the middle 60 % of the run; a hole of 10–40 s starting in the
 * middle half; a step then a decline of 0.1–0.3 % of the level a second;
 * the last 20 s of the run.
 * A given `at` fixes the moment instead (held-out shapes: mid-run).
 * @param {{ shape: Shape, n: number, rho: number, noise: 'gaussian' | 'lognormal', spread: number, size: number,
 *     at?: number }} setting
 * @param {() => number} rand
 * @returns {SeriesCase}
 */
export function drawCase(setting, rand) {
  const { shape, n } = setting
  const base = { ...setting, start: n, end: n, decline: 0 }
  if (shape === 'steady') return { ...base, size: 0 }
  if (shape === 'last-drop') return { ...base, start: n - 20 }
  if (shape === 'hole') {
    const length = 10 + Math.floor(rand() * 31)
    const start = Math.floor(n / 4 + rand() * (n / 2 - length))
    return { ...base, start, end: start + length }
  }
  const start = setting.at ?? Math.floor(n * (0.2 + 0.6 * rand()))
  if (shape === 'step') return { ...base, start }
  return { ...base, start, decline: 0.001 + 0.002 * rand() }
}
