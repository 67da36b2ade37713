import { InputError } from '../errors.js'
import { quote, shown } from './quote.js'

const UNITS = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }

// The longest wait a timer can make (setTimeout's limit, 2^31 - 1 ms, about
// 24.8 days): a longer one would fire at once. What a timer waits for
// (a run's duration, a schedule's after and every) is bounded by it.
export const MAX_TIMER_S = Math.floor((2 ** 31 - 1) / 1000)

/**
 * "90", "90s", "10m", "1h30m" → seconds.
 * @param {unknown} value
 * @param {string} field  named in the error
 */
export function parseOffset(value, field) {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value
    throw new InputError(`${field}: not a duration: ${value} (like 90s, 10m, 1h30m)`, { code: 'PGLG_INVALID_NUMBER' })
  }
  if (typeof value !== 'string') {
    throw new InputError(`${field}: not a duration: ${shown(value)} (like 90s, 10m, 1h30m)`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  const text = value.trim()
  if (text === '') throw new InputError(`${field}: empty duration`, { code: 'PGLG_INVALID_NUMBER' })
  let total = 0
  if (/^\d+(\.\d+)?$/.test(text)) {
    total = Number(text)
  } else {
    const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y
    while (part.lastIndex < text.length) {
      const match = part.exec(text)
      if (!match) {
        throw new InputError(`${field}: not a duration: ${quote(text)} (like 90s, 10m, 1h30m)`, {
          code: 'PGLG_INVALID_NUMBER'
        })
      }
      total += Number(match[1]) * UNITS[/** @type {keyof typeof UNITS} */ (match[2])]
    }
  }
  if (!Number.isFinite(total)) {
    throw new InputError(`${field}: too long a duration: ${quote(text)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  return total
}

const SIZE_UNITS = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, k: 1e3, m: 1e6, g: 1e9 }

/**
 * "2 GB", "500MB", "150000000", "150M", "1e6" → number (byte units are binary).
 * @param {string} text
 * @param {string} field
 */
export function parseQuantity(text, field) {
  const match = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)$/.exec(String(text).trim())
  const unit = match?.[2].toLowerCase() ?? ''
  if (!match || !Object.hasOwn(SIZE_UNITS, unit)) {
    throw new InputError(`${field}: not a number or size: ${quote(text)} (like 0.2, 150000000, 2 GB)`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  const value = Number(match[1]) * SIZE_UNITS[/** @type {keyof typeof SIZE_UNITS} */ (unit)]
  if (!Number.isFinite(value)) {
    throw new InputError(`${field}: too large a number: ${quote(text)}`, { code: 'PGLG_INVALID_NUMBER' })
  }
  return value
}
