// The change-point part of the known-answer suite: generated per-second
// series whose changes are known (lib/analysis/series-cases.js), no server.
// Rows: the share of steady series with any change, per noise; the
// method's power against the oracle's at the same false-positive rate,
// per shape (the weakest setting named); of the changes of at least 30 %
// and five long-run standard errors, the share found within 5 s of their
// start; the held-out shapes, with seeds of their own; and steady
// p99s of small request types, per second and over windows.
import {
  CLEAR_EFFECT,
  CLEAR_Z,
  NOISES,
  RHOS,
  SHAPES,
  SPREADS,
  WITHIN,
  NEAR,
  powerOf,
  steadyRate
} from '../../lib/analysis/series-power.js'
import { steadyTailRate } from '../../lib/analysis/tail-cases.js'
import { DEFAULTS } from '../../lib/analysis/change-point-input.js'
import { WINDOW_REQUESTS } from '../../lib/recorder/p99-windows.js'

const PART = 'change points'
/** The ceiling of steady series with a change, and the power kept of the oracle's. */
const MAX_STEADY = 0.02
const MIN_RATIO = 0.9
const MIN_CLEAR = 0.95
/** The oracle's false-positive rate is the method's, but not below this (a ceiling of 0 would mean nothing). */
const ORACLE_FLOOR = 0.005

/** The held-out shapes (20 % spread), with what the earlier method and the oracle found of 100. */
export const HELD_OUT = Object.freeze([
  { name: '30 % drop at mid-run, independent noise', rho: 0, size: -0.3, shape: 'step', before: 100, oracle: 100 },
  { name: '30 % drop at mid-run, ρ 0.5', rho: 0.5, size: -0.3, shape: 'step', before: 68, oracle: 100 },
  { name: '30 % drop at mid-run, ρ 0.8', rho: 0.8, size: -0.3, shape: 'step', before: 11, oracle: 83 },
  { name: '50 % drop at mid-run, ρ 0.7', rho: 0.7, size: -0.5, shape: 'step', before: 59, oracle: 100 },
  {
    name: '30 % drop for the last 20 s of a minute, ρ 0.5',
    rho: 0.5,
    size: -0.3,
    shape: 'last-drop',
    before: 12,
    oracle: 94
  }
])

/**
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
export async function run({ seed, quick, say }) {
  const cases = quick ? 20 : 200
  let next = seed
  /** @type {import('./contract.js').KnownAnswerRow[]} */
  const rows = []
  let steadyReported = 0
  let steadyRun = 0
  for (const n of [120, 60]) {
    for (const noise of NOISES) {
      say(`change points: steady series of ${n} s, ${noise} noise`)
      let reported = 0
      let worst = { rate: -1, label: '' }
      for (const rho of RHOS) {
        for (const spread of SPREADS) {
          const rate = steadyRate({ n, rho, noise, spread }, cases, next++)
          reported += Math.round(rate * cases)
          if (rate > worst.rate) worst = { rate, label: `ρ ${rho}, ${spread * 100} %` }
        }
      }
      const total = RHOS.length * SPREADS.length * cases
      steadyReported += reported
      steadyRun += total
      rows.push({
        part: PART,
        scenario: `steady ${n} s, ${noise} noise, ρ 0–0.8, 20–35 %`,
        cases: total,
        result: `${reported} with a change; worst setting ${percent(worst.rate)} (${worst.label})`,
        truth: 'no change',
        error: `${percent(reported / total)} false positives`,
        // a quick run's 20 series a setting cannot tell 2 % from 5 %: it is held to the pooled rate
        target: `≤ ${percent(MAX_STEADY)} ${quick ? 'pooled' : 'at every setting'}`,
        met: quick ? reported / total <= MAX_STEADY : worst.rate <= MAX_STEADY
      })
    }
  }
  const oracleRate = Math.max(ORACLE_FLOOR, steadyReported / steadyRun)
  say(`change points: the oracle at ${percent(oracleRate)} false positives`)
  for (const { shape, size, n } of SHAPES) {
    say(`change points: ${shape} ${size}`)
    let worst = { ratio: Infinity, label: '' }
    let clear = 0
    let clearFound = 0
    let found = 0
    let oracle = 0
    for (const noise of NOISES) {
      for (const rho of RHOS) {
        for (const spread of SPREADS) {
          const r = powerOf({ shape, size, n, rho, noise, spread }, cases, next++, oracleRate)
          found += r.found
          oracle += r.oracle
          clear += r.clear
          clearFound += r.clearFound
          const ratio = r.oracle > 0 ? r.found / r.oracle : 1
          if (ratio < worst.ratio) {
            worst = { ratio, label: `ρ ${rho}, ${noise}, ${spread * 100} %: ${r.found} vs ${r.oracle}` }
          }
        }
      }
    }
    const label = `${shape} ${size > 0 ? '+' : ''}${Math.round(size * 100)} %, ${n} s`
    const settings = NOISES.length * RHOS.length * SPREADS.length
    rows.push({
      part: PART,
      scenario: `${label}: power against the oracle`,
      cases: settings * cases,
      result: `found ${found} (within ${NEAR} s); weakest setting ${percent(worst.ratio)} (${worst.label})`,
      truth: `oracle at the true moment: ${oracle}`,
      error: `${percent(found / Math.max(1, oracle))} of the oracle's power overall`,
      target: `≥ ${percent(MIN_RATIO)} at every setting`,
      met: worst.ratio >= MIN_RATIO
    })
    if (clear > 0) {
      rows.push({
        part: PART,
        scenario: `${label}: changes ≥ ${CLEAR_EFFECT * 100} % and ≥ ${CLEAR_Z} long-run SE`,
        cases: clear,
        result: `found ${clearFound} within ${WITHIN} s of their start`,
        truth: 'a change at a seeded moment',
        error: `${percent(1 - clearFound / clear)} missed`,
        target: `≥ ${percent(MIN_CLEAR)} found`,
        met: clearFound / clear >= MIN_CLEAR
      })
    }
  }
  rows.push(...heldOut(seed + 1_000_003, oracleRate, quick ? 40 : 100, say))
  rows.push(...tailRows(seed + 2_000_003, quick ? 100 : 1000, say))
  return rows
}

/** A type's rates a second, and the heavy tails its latencies are drawn from (tail-cases.js). */
const TAIL_RATES = [50, 100, 200]
const TAILS = [
  { tailShare: 0.01, tailIndex: 0.8 },
  { tailShare: 0.02, tailIndex: 1.5 }
]
/** A run of two minutes. */
const TAIL_SECONDS = 120

/**
 * Steady runs of a small request type, its p99 read per second (as before
 * the windows) and over windows of WINDOW_REQUESTS (as now).
 * @param {number} seed
 * @param {number} cases
 * @param {(line: string) => void} say
 * @returns {import('./contract.js').KnownAnswerRow[]}
 */
function tailRows(seed, cases, say) {
  say('change points: steady p99s of small request types')
  let next = seed
  return TAIL_RATES.flatMap(rate => {
    const windows = Math.floor((TAIL_SECONDS * rate) / WINDOW_REQUESTS)
    let perSecond = 0
    let windowed = 0
    for (const tail of TAILS) {
      perSecond += steadyTailRate({ ...tail, requests: rate, points: TAIL_SECONDS }, cases, next++) * cases
      windowed += steadyTailRate({ ...tail, requests: WINDOW_REQUESTS, points: windows }, cases, next++) * cases
    }
    const total = TAILS.length * cases
    // fewer windows than two shortest segments: the type's p99 is not segmented at all
    const read = windows >= 2 * DEFAULTS.minSegment ? `${windows} windows` : `${windows} windows, too few to segment`
    return {
      part: PART,
      scenario: `steady ${TAIL_SECONDS} s, p99 of a type at ${rate} requests/s, heavy tails of 1–2 %`,
      cases: total,
      result: `${Math.round(windowed)} with a change over ${read} of ${WINDOW_REQUESTS} requests (per second: ${Math.round(perSecond)})`,
      truth: 'no change',
      error: `${percent(windowed / total)} false positives (per second: ${percent(perSecond / total)})`,
      target: `≤ ${percent(MAX_STEADY / 2)} a type`,
      met: windowed / total <= MAX_STEADY / 2
    }
  })
}

/**
 * The held-out shapes, 20 % spread, Gaussian noise, a minute or two.
 * @param {number} seed
 * @param {number} oracleRate
 * @param {number} cases
 * @param {(line: string) => void} say
 * @returns {import('./contract.js').KnownAnswerRow[]}
 */
function heldOut(seed, oracleRate, cases, say) {
  say('change points: held-out shapes')
  return HELD_OUT.map((h, i) => {
    const n = h.shape === 'last-drop' ? 60 : 120
    const setting = { shape: /** @type {'step' | 'last-drop'} */ (h.shape), size: h.size, n, rho: h.rho }
    const r = powerOf({ ...setting, noise: 'gaussian', spread: 0.2, at: n / 2 }, cases, seed + i, oracleRate)
    return {
      part: PART,
      scenario: `held out: ${h.name}`,
      cases,
      result: `found ${r.found} of ${cases} within ${NEAR} s (earlier method: ${h.before} of 100)`,
      truth: `oracle: ${r.oracle} of ${cases} (issue: ${h.oracle} of 100)`,
      error: `${percent(r.found / Math.max(1, r.oracle))} of the oracle's power`,
      target: `≥ ${percent(MIN_RATIO)}`,
      met: r.found >= MIN_RATIO * r.oracle
    }
  })
}

/** @param {number} share */
function percent(share) {
  return `${(100 * share).toFixed(share < 0.1 ? 1 : 0)} %`
}
