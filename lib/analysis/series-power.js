// The change-point method measured against known answers (series-cases.js):
// per setting, the share of steady series with any change, the share of
// changed series where a change is found within NEAR points of a true one
// (the power: the oracle is told the moment, the method must find it), the
// oracle's power at the same false-positive rate, and of the changes of at
// least 30 % and five long-run standard errors, the share found within
// WITHIN points of their start.
import { findChangePoints } from './change-points.js'
import { drawCase, makeSeries, oracleThreshold, oracleZ, seeded, trueChanges } from './series-cases.js'

/** @typedef {import('./series-cases.js').Shape} Shape */

/**
 * @typedef {object} Setting
 * @property {Shape} shape
 * @property {number} n
 * @property {number} rho
 * @property {'gaussian' | 'lognormal'} noise
 * @property {number} spread
 * @property {number} size
 * @property {number} [at]     the moment of a step, fixed (else drawn)
 *
 * @typedef {object} SettingResult
 * @property {Setting} setting
 * @property {number} cases
 * @property {number} found          series with a change within NEAR points of a true one
 * @property {number} oracle         series where the oracle saw the change
 * @property {number} clear          changes of at least CLEAR_EFFECT and CLEAR_Z
 * @property {number} clearFound     of those, found within WITHIN points of their start
 * @property {number} lateness       median distance of the found changes to the truth, points
 */

/** A clear change found this close to its start counts. */
export const WITHIN = 5
/** For the power, a change found this close to a true one. */
export const NEAR = 10
export const CLEAR_EFFECT = 0.3
export const CLEAR_Z = 5

/** The shapes of the suite, with their sizes and lengths. */
export const SHAPES = Object.freeze([
  { shape: /** @type {Shape} */ ('step'), size: -0.3, n: 120 },
  { shape: /** @type {Shape} */ ('step'), size: -0.5, n: 120 },
  { shape: /** @type {Shape} */ ('step'), size: 0.5, n: 120 },
  { shape: /** @type {Shape} */ ('hole'), size: -0.5, n: 180 },
  { shape: /** @type {Shape} */ ('step-decline'), size: -0.55, n: 180 },
  { shape: /** @type {Shape} */ ('last-drop'), size: -0.3, n: 60 }
])
export const RHOS = Object.freeze([0, 0.3, 0.5, 0.7, 0.8])
export const NOISES = Object.freeze(/** @type {const} */ (['gaussian', 'lognormal']))
export const SPREADS = Object.freeze([0.2, 0.35])

/**
 * The share of steady series of a setting in which the method reports any change.
 * @param {Omit<Setting, 'shape' | 'size'>} setting
 * @param {number} cases
 * @param {number} seed
 * @param {import('./change-point-input.js').ChangePointOptions} [options]
 */
export function steadyRate(setting, cases, seed, options) {
  const rand = seeded(seed)
  let reported = 0
  for (let i = 0; i < cases; i++) {
    const c = drawCase({ ...setting, shape: 'steady', size: 0 }, rand)
    if (findChangePoints(makeSeries(c, rand), options).changes.length > 0) reported++
  }
  return reported / cases
}

/**
 * @param {Setting} setting
 * @param {number} cases
 * @param {number} seed
 * @param {number} falsePositiveRate   the oracle's
 * @param {import('./change-point-input.js').ChangePointOptions} [options]
 * @returns {SettingResult}
 */
export function powerOf(setting, cases, seed, falsePositiveRate, options) {
  const rand = seeded(seed)
  const threshold = oracleThreshold(falsePositiveRate)
  const result = { setting, cases, found: 0, oracle: 0, clear: 0, clearFound: 0, lateness: 0 }
  /** @type {number[]} */
  const distances = []
  for (let i = 0; i < cases; i++) {
    const c = drawCase(setting, rand)
    const values = makeSeries(c, rand)
    const truth = trueChanges(c)
    const found = findChangePoints(values, options).changes.map(change => change.index)
    const distance = Math.min(...truth.flatMap(t => found.map(f => Math.abs(f - t.index))))
    if (distance <= NEAR) {
      result.found++
      distances.push(distance)
    }
    if (Math.abs(oracleZ(c, values)) > threshold) result.oracle++
    if (Math.abs(truth[0].effect) >= CLEAR_EFFECT && truth[0].z >= CLEAR_Z) {
      result.clear++
      if (found.some(f => Math.abs(f - truth[0].index) <= WITHIN)) result.clearFound++
    }
  }
  distances.sort((a, b) => a - b)
  result.lateness = distances.length ? distances[Math.floor(distances.length / 2)] : NaN
  return result
}
