import { findChangePoints } from './change-points.js'
import { normal, seeded } from './series-cases.js'
import { MIN_EFFECT } from './explain.js'
import { select } from './series-noise.js'

// Known-answer series for a request type's p99: a steady load whose requests
// draw their latencies from one heavy-tailed distribution, and each point
// of the series the p99 of `requests` of them, as the recorder reads it
// (the nearest rank). Nothing changes, so any change found is false. It
// measures the rule that a p99 is read over windows of at least 500
// requests (lib/recorder/p99-windows.js): per-second p99s of a type with a
// hundred requests a second report changes of steady runs, its windows do
// not. docs/change-points.md.

/**
 * @typedef {object} TailSetting
 * @property {number} requests    per point
 * @property {number} points
 * @property {number} tailShare   the share of requests that are slow (0.01: 1 %)
 * @property {number} tailIndex   the slow ones' Pareto index: below 1, a tail without a mean
 */

/** A request's latency: log-normal about 400 µs with a 60 % spread. */
const MEDIAN_US = 400
const SIGMA = 0.6
/** A slow request is at least this many times slower. */
const SLOW_FACTOR = 3
/** The machine's own swing of every request's latency, second to second: AR(1), ρ 0.5, 5 %. */
const MACHINE_RHO = 0.5
const MACHINE_SPREAD = 0.05

/**
 * One steady series of p99s.
 * @param {TailSetting} setting
 * @param {() => number} rand
 * @returns {number[]}
 */
export function tailSeries(setting, rand) {
  const latencies = new Float64Array(setting.requests)
  const rank = Math.max(1, Math.ceil(0.99 * setting.requests)) - 1
  const innovation = Math.sqrt(1 - MACHINE_RHO * MACHINE_RHO) * MACHINE_SPREAD
  let machine = 0
  const values = []
  for (let p = 0; p < setting.points; p++) {
    machine = MACHINE_RHO * machine + innovation * normal(rand)
    for (let i = 0; i < setting.requests; i++) latencies[i] = latency(setting, machine, rand)
    values.push(select(latencies, rank))
  }
  return values
}

/**
 * @param {TailSetting} setting
 * @param {number} machine
 * @param {() => number} rand
 */
function latency(setting, machine, rand) {
  const body = MEDIAN_US * Math.exp(SIGMA * normal(rand) + machine)
  if (rand() >= setting.tailShare) return body
  return body * SLOW_FACTOR * Math.pow(1 - rand(), -1 / setting.tailIndex)
}

/**
 * The share of steady p99 series of a setting in which the method reports
 * any change, with a p99's smallest effect (explain.js).
 * @param {TailSetting} setting
 * @param {number} cases
 * @param {number} seed
 */
export function steadyTailRate(setting, cases, seed) {
  const rand = seeded(seed)
  let reported = 0
  for (let i = 0; i < cases; i++) {
    if (findChangePoints(tailSeries(setting, rand), { minEffect: MIN_EFFECT.p99_us }).changes.length > 0) reported++
  }
  return reported / cases
}
