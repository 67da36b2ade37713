import { InputError } from '../errors.js'
import { MAX_TIMER_S } from '../helpers/durations.js'
import { quote } from '../helpers/quote.js'

/**
 * @param {unknown} value
 * @param {string} flag
 * @param {{ min?: number, max?: number }} [range]
 */
export function parseInteger(value, flag, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  const text = String(value).trim()
  if (!/^-?\d+$/.test(text)) {
    throw new InputError(`${flag} must be a whole number, got ${quote(value)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  const n = Number(text)
  if (!(n >= min && n <= max)) {
    throw new InputError(`${flag} must be between ${min} and ${max}, got ${quote(text, 40).slice(1, -1)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return n
}

/** Seconds in each unit a duration may carry (each parser says which it takes). */
export const DURATION_UNITS = Object.freeze({ '': 1, ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 })

// How long a run may last: ten years, waited for in timer-sized pieces.
export const MAX_RUN_S = 10 * 365 * 86400

/**
 * Seconds, plain or with a unit: 90, 90s, 15m, 2h, 4d; at most max (by
 * default MAX_TIMER_S, about 24 days, the longest one timer waits).
 * @param {unknown} value
 * @param {string} flag
 * @param {{ max?: number }} [limits]
 */
export function parseDuration(value, flag, { max = MAX_TIMER_S } = {}) {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(String(value).trim())
  if (!match) {
    throw new InputError(`${flag} must be a duration in seconds (or with s, m, h, d), got ${quote(value)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  const seconds = Number(match[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ (match[2])]
  if (!(seconds > 0)) {
    throw new InputError(`${flag} must be positive, got ${quote(value)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  if (!(seconds <= max)) {
    throw new InputError(
      `${flag} must be at most ${max} seconds (${max === MAX_TIMER_S ? 'about 24 days' : `${Math.round(max / 86400 / 365)} years`}), got ${quote(value)}`,
      { code: 'PGLG_INVALID_NUMBER' }
    )
  }
  return seconds
}
