import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'

/**
 * The weights of a workload's request types. A request picks its type from
 * one uniform random number against the cumulative shares.
 * @typedef {object} Mix
 * @property {readonly string[]} types     the workload's request types, in its order
 * @property {number[]} weights            weight per type index
 * @property {Float64Array} cumulative     cumulative share per index, last is 1
 */

/**
 * Parses "type=weight,…" against the workload's types. Types left out get
 * weight 0.
 * @param {string} text
 * @param {readonly string[]} types
 * @param {string} [flag]  how the mix was given, for errors
 * @returns {Mix}
 */
export function parseMix(text, types, flag = '--mix') {
  const weights = types.map(() => 0)
  const seen = new Set()
  for (const part of String(text).split(',')) {
    const item = part.trim()
    if (item === '') continue
    const match = /^([^=\s]+)\s*=\s*(.*)$/.exec(item)
    if (!match) throw new InputError(`${flag}: expected type=weight, got ${quote(item)}`, { code: 'PGLG_INVALID_MIX' })
    const [, type, weightText] = match
    const index = types.indexOf(type)
    if (index === -1) {
      throw new InputError(`${flag}: unknown request type ${quote(type)} (known: ${types.join(', ')})`, {
        code: 'PGLG_INVALID_MIX'
      })
    }
    if (seen.has(type)) {
      throw new InputError(`${flag}: request type ${quote(type)} given twice`, { code: 'PGLG_INVALID_MIX' })
    }
    seen.add(type)
    const weight = Number(weightText)
    if (!Number.isFinite(weight) || weightText.trim() === '') {
      throw new InputError(`${flag}: weight of ${type} is not a number: ${quote(weightText)}`, {
        code: 'PGLG_INVALID_MIX'
      })
    }
    if (weight < 0) {
      throw new InputError(`${flag}: weight of ${type} is negative: ${weight}`, { code: 'PGLG_INVALID_MIX' })
    }
    weights[index] = weight
  }
  return mixOf(types, weights, flag)
}

/**
 * @param {readonly string[]} types
 * @param {number[]} weights
 * @param {string} [flag]
 * @returns {Mix}
 */
export function mixOf(types, weights, flag = '--mix') {
  const total = weights.reduce((a, b) => a + b, 0)
  if (!(total > 0)) throw new InputError(`${flag}: all weights are zero`, { code: 'PGLG_INVALID_MIX' })
  // Shares are weights over their total: a total beyond the largest double
  // would make every share 0 (1e308 + 1e308 is Infinity).
  if (!Number.isFinite(total)) {
    throw new InputError(
      `${flag}: the weights add up to more than ${Number.MAX_VALUE}; give smaller ones (only their ratios count)`,
      { code: 'PGLG_INVALID_MIX' }
    )
  }
  const cumulative = new Float64Array(weights.length)
  let sum = 0
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i]
    cumulative[i] = sum / total
  }
  cumulative[weights.length - 1] = 1
  return { types, weights: [...weights], cumulative }
}

/**
 * Picks a request type index from one uniform random number in [0, 1).
 * @param {Mix} mix
 * @param {number} r
 */
export function pickType(mix, r) {
  const c = mix.cumulative
  let i = 0
  while (r >= c[i]) i++
  return i
}

/**
 * Every type with its weight, in the workload's order: "a=60,b=0,…".
 * @param {Mix} mix
 */
export function formatMix(mix) {
  return mix.types.map((type, i) => `${type}=${mix.weights[i]}`).join(',')
}
