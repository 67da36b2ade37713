// Generated repetitions with a known effect, for the interval behind an
// experiment's answer (lib/results/t-interval.js) and the reports'
// verdicts (lib/results/statistics.js): how often the interval covers the
// true effect, how often "appeared" (or "worse", "better") is said of no
// effect, and how often a real effect is found. Every draw comes from one
// seeded generator.
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { compareVariants, variantStatistics } from '../../lib/results/statistics.js'
import { effectVerdict, twoSampleEffect } from '../../lib/results/t-interval.js'

/**
 * @typedef {object} Setting
 * @property {'normal' | 'lognormal'} noise
 * @property {number} cv      coefficient of variation of each repetition's figure
 * @property {number} ratio   the true ratio of the variant's figure to the other's
 * @property {number} n       repetitions on each side
 */

/** @param {() => number} next */
function gaussian(next) {
  const u = 1 - next()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
}

/**
 * n draws of mean mu and coefficient of variation cv, all above 0.
 * @param {() => number} next
 * @param {Setting['noise']} noise
 * @param {number} mu
 * @param {number} cv
 * @param {number} n
 */
export function draws(next, noise, mu, cv, n) {
  const sigma = Math.sqrt(Math.log(1 + cv * cv))
  return Array.from({ length: n }, () => {
    if (noise === 'lognormal') return mu * Math.exp(sigma * gaussian(next) - (sigma * sigma) / 2)
    let x
    do x = mu * (1 + cv * gaussian(next))
    while (x <= 0)
    return x
  })
}

/**
 * Cases of one setting: the answer's interval against the truth.
 * @param {Setting} setting
 * @param {number} cases
 * @param {number} seed
 */
export function answerCases(setting, cases, seed) {
  const next = mulberry32(seed)
  let covered = 0
  let appeared = 0
  for (let c = 0; c < cases; c++) {
    const a = draws(next, setting.noise, 1000 * setting.ratio, setting.cv, setting.n)
    const b = draws(next, setting.noise, 1000, setting.cv, setting.n)
    const effect = twoSampleEffect(a, b)
    if (/** @type {number} */ (effect.low) <= setting.ratio && setting.ratio <= /** @type {number} */ (effect.high))
      covered++
    if (effectVerdict(effect, 'lower') === 'appeared') appeared++
  }
  return { cases, covered, appeared }
}

/**
 * A repetition's phases, as lib/report/phases.js gives them, whose
 * throughput during / before is ratio (and no p99 figure).
 * @param {number} ratio
 * @returns {import('../../lib/results/statistics.js').RunPhases}
 */
function phasesOf(ratio) {
  const none = { before: null, during: null, after: null }
  return {
    action: null,
    samples: { before: 60, during: 60, after: 60 },
    throughput: { before: 1000, during: 1000 * ratio, after: 1000 },
    latency_us: { p50: none, p99: none },
    degradation_ratio: ratio,
    p99_ratio: null
  }
}

/**
 * The reports' verdict between two variants (compareVariants, on the
 * statistics variantStatistics makes of their repetitions): the variant's
 * throughput ratios of mean setting.ratio, the baseline's of mean 1.
 * @param {Setting} setting
 * @param {number} cases
 * @param {number} seed
 * @returns {{ cases: number, worse: number, better: number }}
 */
export function verdictCases(setting, cases, seed) {
  const next = mulberry32(seed)
  let worse = 0
  let better = 0
  for (let c = 0; c < cases; c++) {
    const variant = draws(next, setting.noise, setting.ratio, setting.cv, setting.n)
    const baseline = draws(next, setting.noise, 1, setting.cv, setting.n)
    const [verdict] = compareVariants([
      { name: 'baseline', statistics: variantStatistics(baseline.map(phasesOf)) },
      { name: 'variant', statistics: variantStatistics(variant.map(phasesOf)) }
    ])
    if (verdict.verdict === 'worse') worse++
    else if (verdict.verdict === 'better') better++
  }
  return { cases, worse, better }
}
