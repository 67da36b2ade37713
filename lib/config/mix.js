import { UsageError } from '../cli/usage-error.js'

export const REQUEST_TYPES = /** @type {const} */ (['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max'])
/** @typedef {typeof REQUEST_TYPES[number]} RequestType */

export const DEFAULT_MIX = 'insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1'

/**
 * @typedef {object} Mix
 * @property {number[]} weights      weight per REQUEST_TYPES index
 * @property {Float64Array} cumulative  cumulative share per index, last is 1
 */

/**
 * Parses "type=weight,…". Types left out get weight 0.
 * @param {string} text
 * @returns {Mix}
 */
export function parseMix (text) {
  const weights = REQUEST_TYPES.map(() => 0)
  const seen = new Set()
  for (const part of String(text).split(',')) {
    const item = part.trim()
    if (item === '') continue
    const match = /^([a-z_]+)\s*=\s*(.+)$/.exec(item)
    if (!match) throw new UsageError(`--mix: expected type=weight, got "${item}"`)
    const [, type, weightText] = match
    const index = REQUEST_TYPES.indexOf(/** @type {RequestType} */ (type))
    if (index === -1) throw new UsageError(`--mix: unknown request type "${type}" (known: ${REQUEST_TYPES.join(', ')})`)
    if (seen.has(type)) throw new UsageError(`--mix: request type "${type}" given twice`)
    seen.add(type)
    const weight = Number(weightText)
    if (!Number.isFinite(weight) || weightText.trim() === '') throw new UsageError(`--mix: weight of ${type} is not a number: "${weightText}"`)
    if (weight < 0) throw new UsageError(`--mix: weight of ${type} is negative: ${weight}`)
    weights[index] = weight
  }
  const total = weights.reduce((a, b) => a + b, 0)
  if (!(total > 0)) throw new UsageError('--mix: all weights are zero')
  const cumulative = new Float64Array(weights.length)
  let sum = 0
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i]
    cumulative[i] = sum / total
  }
  cumulative[weights.length - 1] = 1
  return { weights, cumulative }
}

/**
 * Picks a request type index from one uniform random number in [0, 1).
 * @param {Mix} mix
 * @param {number} r
 */
export function pickType (mix, r) {
  const c = mix.cumulative
  let i = 0
  while (r >= c[i]) i++
  return i
}

/** @param {Mix} mix */
export function formatMix (mix) {
  return REQUEST_TYPES.map((type, i) => `${type}=${mix.weights[i]}`).join(',')
}
