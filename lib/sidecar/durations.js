import { UsageError } from '../errors.js'

const UNITS = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }

/**
 * "90", "90s", "10m", "1h30m" → seconds.
 * @param {unknown} value
 * @param {string} field  named in the error
 */
export function parseOffset (value, field) {
  if (typeof value === 'number' && value >= 0) return value
  const text = String(value).trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  let total = 0
  let rest = text
  const part = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/
  while (rest.length > 0) {
    const match = part.exec(rest)
    if (!match) throw new UsageError(`${field}: not a duration: "${text}" (like 90s, 10m, 1h30m)`)
    total += Number(match[1]) * UNITS[/** @type {keyof typeof UNITS} */ (match[2])]
    rest = rest.slice(match[0].length)
  }
  if (text === '') throw new UsageError(`${field}: empty duration`)
  return total
}

const SIZE_UNITS = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, k: 1e3, m: 1e6, g: 1e9 }

/**
 * "2 GB", "500MB", "150000000", "150M" → number (byte units are binary).
 * @param {string} text
 * @param {string} field
 */
export function parseQuantity (text, field) {
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text.trim())
  const unit = /** @type {keyof typeof SIZE_UNITS} */ (match?.[2].toLowerCase() ?? '')
  if (!match || !(unit in SIZE_UNITS)) throw new UsageError(`${field}: not a number or size: "${text}" (like 0.2, 150000000, 2 GB)`)
  return Number(match[1]) * SIZE_UNITS[unit]
}
