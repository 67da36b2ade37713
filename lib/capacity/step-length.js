import { CAPACITY_DEFAULTS } from './defaults.js'

// How long a step of the search is measured, and how fine a bracket its
// steps can settle, from how many requests a step holds beyond the
// objective's percentile: a p99 from 370 requests (5 s at 74/s) is the 4th
// slowest, and a step's outcome is then noisier than a 10 % bracket can
// settle (docs/capacity.md, the known answers).

/**
 * The smallest share of requests beyond an objective's percentile (0.01 for a
 * p99); null when every objective is a maximum, which no length makes less noisy.
 * @param {import('./objective.js').Objective[]} objectives
 * @returns {number | null}
 */
export function tailShare(objectives) {
  const shares = objectives.filter(o => o.quantile < 1).map(o => 1 - o.quantile)
  return shares.length ? Math.min(...shares) : null
}

/**
 * Requests beyond the percentile that `seconds` at `rate` hold.
 * @param {number} rate
 * @param {number} seconds
 * @param {number} tail   tailShare()
 */
export function requestsBeyond(rate, seconds, tail) {
  return rate * seconds * tail
}

/**
 * Measured seconds of a step: --step, or, while the search confirms its
 * bracket, long enough to hold tailRequests requests beyond the percentile,
 * at most maxStepFactor × --step and no longer than the time left shared
 * among the steps the search still needs; never shorter than --step.
 * @param {object} step
 * @param {number} step.rate
 * @param {number | null} step.tail       tailShare()
 * @param {number} step.stepS             --step
 * @param {number} step.settleS
 * @param {number} step.remainingS        of the search's time limit
 * @param {number | null} step.stepsLeft  CapacitySearch#stepsLeft(): null outside the confirmation
 */
export function measuredSeconds({ rate, tail, stepS, settleS, remainingS, stepsLeft }) {
  if (tail === null || stepsLeft === null) return stepS
  const { tailRequests, maxStepFactor } = CAPACITY_DEFAULTS
  const enough = tailRequests / (rate * tail)
  return Math.max(stepS, Math.min(enough, maxStepFactor * stepS, remainingS / stepsLeft - settleS))
}

/**
 * The bracket's resolution at a rate: --resolution, widened in proportion
 * when a --step step at that rate holds fewer than tailRequests requests
 * beyond the percentile (its outcome is noisier than the resolution), at most maxWiden times.
 * @param {object} options
 * @param {number} options.rate
 * @param {number | null} options.tail
 * @param {number} options.stepS
 * @param {number} options.resolution
 */
export function noisyResolution({ rate, tail, stepS, resolution }) {
  if (tail === null) return resolution
  const { tailRequests, maxWiden } = CAPACITY_DEFAULTS
  const short = tailRequests / Math.max(requestsBeyond(rate, stepS, tail), 1e-9)
  return resolution * Math.min(maxWiden, Math.max(1, short))
}

/**
 * The search's options with the resolution widened where a step at the rate is noisy.
 * @param {import('./search.js').SearchOptions} search
 * @param {number | null} tail   tailShare()
 * @param {number} stepS         --step
 * @returns {import('./search.js').SearchOptions}
 */
export function withNoisyResolution(search, tail, stepS) {
  const { resolution } = search
  return { ...search, resolutionAt: rate => noisyResolution({ rate, tail, stepS, resolution }) }
}
