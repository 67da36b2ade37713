import { InputError, InvalidPlanError } from '../errors.js'
import { shown } from '../helpers/quote.js'

// The checks every part of a plan's reading shares: each names its field
// in a one-line InputError.

/**
 * @param {unknown} value
 * @param {string} field
 * @returns {Record<string, unknown>}
 */
export function object(value, field) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(`${field}: expected an object`, { code: 'PGLG_INVALID_VALUE' })
  }
  return /** @type {Record<string, unknown>} */ (value)
}

/**
 * @param {unknown} value
 * @param {string} field
 */
export function string(value, field) {
  if (typeof value !== 'string' || value === '') {
    throw new InputError(`${field}: ${value === undefined ? 'missing' : 'expected a string'}`, {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  return value
}

/**
 * Runs a check and prefixes its usage error with the field.
 * @template T
 * @param {string} field
 * @param {() => T} fn
 * @returns {T}
 */
export function wrap(field, fn) {
  try {
    return fn()
  } catch (err) {
    if (err instanceof InputError) throw new InvalidPlanError(`${field}: ${err.message}`, { cause: err })
    throw err
  }
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {number} [max]
 */
export function positiveInteger(value, field, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || /** @type {number} */ (value) < 1) {
    throw new InputError(`${field}: expected a whole number above 0, got ${shown(value)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  if (/** @type {number} */ (value) > max) {
    throw new InputError(`${field}: at most ${max}, got ${shown(value)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  return /** @type {number} */ (value)
}
