// Whether the generator, not the server, decided a capacity search: the
// steps that decided the result (those at the ends of the final bracket,
// or every step when there is none) either
//
// - fell behind the rate asked while their latencies kept the objective
//   (the clients were free and the server fast, yet the requests did not go
//   out: the generator could not offer the rate), or
// - ran with the generator's own timers late by a quarter of the
//   objective's limit or more at their p99 (median over those steps): a
//   latency is counted from the intended start, so that lateness is in
//   every figure the steps were judged on.
//
// Then the search states no capacity, and says which.

// The generator's lateness p99, as a share of the tightest limit, from which it decides the figures.
export const LATENESS_SHARE = 0.25

/**
 * @typedef {object} GeneratorLimit
 * @property {'pace' | 'lateness'} reason
 * @property {number | null} latenessP99Us   median over the deciding steps
 * @property {number} limitUs                the tightest objective's limit
 * @property {number} steps                  deciding steps
 */

/**
 * @param {import('./step-measure.js').CapacityStep[]} steps
 * @param {import('./search.js').SearchResult} result
 * @param {import('./objective.js').Objective[]} objectives
 * @returns {GeneratorLimit | null}
 */
export function generatorLimit(steps, result, objectives) {
  const ends = [result.low, result.high].filter(rate => rate !== null)
  const bracketed = result.low !== null && result.high !== null
  const deciding = bracketed ? steps.filter(step => ends.includes(step.rate)) : steps
  if (deciding.length === 0 || objectives.length === 0) return null
  const limitUs = Math.min(...objectives.map(o => o.limitUs))
  const lateness = median(deciding.map(step => step.latenessP99Us).filter(v => v !== null))
  const broken = deciding.filter(step => !step.held)
  const unpaced = broken.filter(step => !step.keptPace && step.objectives.every(o => o.kept))
  const common = { latenessP99Us: lateness, limitUs, steps: deciding.length }
  if (broken.length > 0 && unpaced.length * 2 > broken.length) return { reason: 'pace', ...common }
  if (lateness !== null && lateness >= LATENESS_SHARE * limitUs) return { reason: 'lateness', ...common }
  return null
}

/** @param {number[]} values */
function median(values) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
