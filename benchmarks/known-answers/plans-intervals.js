// Generated repetitions with a known effect, for the interval behind an
// experiment's answer (lib/results/t-interval.js) and the reports'
// verdicts (lib/results/statistics.js): how often the interval covers the
// true effect, how often "appeared" is said of no effect, and how often a
// real effect is found. Every draw comes from one seeded generator.
import { mulberry32, bootstrapMean } from '../../lib/results/bootstrap-interval.js'
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
 * The reports' verdict between two variants with no difference: "worse" or
 * "better" when their bootstrap intervals do not overlap.
 * @param {Setting} setting
 * @param {number} cases
 * @param {number} seed
 */
export function verdictCases(setting, cases, seed) {
  const next = mulberry32(seed)
  let told = 0
  for (let c = 0; c < cases; c++) {
    const a = bootstrapMean(draws(next, setting.noise, 1000 * setting.ratio, setting.cv, setting.n), {
      resamples: 2000
    })
    const b = bootstrapMean(draws(next, setting.noise, 1000, setting.cv, setting.n), { resamples: 2000 })
    if (!a || !b || a.low === null || b.low === null || a.high === null || b.high === null) continue
    if (a.high < b.low || b.high < a.low) told++
  }
  return { cases, told }
}
