// The arithmetic the report's figures share: means of what is known, the
// spread of a figure across repetitions, the ratio of two (rounded with
// lib/helpers/numbers.js).

import { round } from '../helpers/numbers.js'

/**
 * Mean, min, max across repetitions, and spread = (max − min) / |mean|.
 * @typedef {{ mean: number, min: number, max: number, spread: number | null, n: number } | null} Spread
 */

/**
 * @param {unknown} value
 * @returns {value is number}
 */
export function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value)
}

/**
 * The mean of the values known (null and non-finite left out); null when none is.
 * @param {(number | null | undefined)[]} values
 * @returns {number | null}
 */
export function mean(values) {
  const present = values.filter(isNumber)
  if (present.length === 0) return null
  return present.reduce((a, b) => a + b, 0) / present.length
}

/**
 * The mean of values already filtered to numbers: what the bootstrap
 * interval and the statistics' noise figure both take.
 * @param {number[]} xs
 */
export function meanOf(xs) {
  let sum = 0
  for (const x of xs) sum += x
  return sum / xs.length
}

/**
 * The largest of the values known; null when none is.
 * @param {(number | null | undefined)[]} values
 * @returns {number | null}
 */
export function maxOf(values) {
  let best = null
  for (const v of values) if (isNumber(v) && (best === null || v > best)) best = v
  return best
}

/**
 * @param {(number | null | undefined)[]} values
 * @returns {Spread}
 */
export function spread(values) {
  const present = values.filter(isNumber)
  if (present.length === 0) return null
  const avg = present.reduce((a, b) => a + b, 0) / present.length
  const min = Math.min(...present)
  const max = Math.max(...present)
  const digits = decimals(present)
  return {
    mean: round(avg, Math.max(digits, 1)),
    min,
    max,
    spread: avg === 0 ? null : round((max - min) / Math.abs(avg), 3),
    n: present.length
  }
}

/**
 * Decimal places of the most precise value (at most 3).
 * @param {number[]} values
 */
function decimals(values) {
  let most = 0
  for (const v of values) {
    const text = String(v)
    const dot = text.indexOf('.')
    if (dot !== -1) most = Math.max(most, text.length - dot - 1)
  }
  return Math.min(most, 3)
}

/**
 * @param {number | null} a
 * @param {number | null} b
 */
export function ratio(a, b) {
  if (a === null || b === null || b === 0) return null
  return round(a / b, 3)
}
