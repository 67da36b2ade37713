import { UsageError } from '../errors.js'

/**
 * @param {unknown} value
 * @param {string} flag
 * @param {{ min?: number, max?: number }} [range]
 */
export function parseInteger (value, flag, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  const text = String(value).trim()
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number, got "${value}"`)
  const n = Number(text)
  if (n < min || n > max) throw new UsageError(`${flag} must be between ${min} and ${max}, got ${n}`)
  return n
}

const UNITS = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }

/**
 * Seconds, plain or with a unit: 90, 90s, 15m, 2h, 4d.
 * @param {unknown} value
 * @param {string} flag
 */
export function parseDuration (value, flag) {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(String(value).trim())
  if (!match) throw new UsageError(`${flag} must be a duration in seconds (or with s, m, h, d), got "${value}"`)
  const seconds = Number(match[1]) * UNITS[/** @type {keyof typeof UNITS} */ (match[2])]
  if (!(seconds > 0)) throw new UsageError(`${flag} must be positive, got "${value}"`)
  return seconds
}
