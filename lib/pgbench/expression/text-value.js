// Text given to a variable (-D NAME=VALUE, \gset, \setshell) read as a
// value the first time an expression uses it, as pgbench's
// makeVariableValue does: NULL, a boolean spelled as PostgreSQL accepts
// it, an int, else a double as C's strtod reads it.
import { ScriptRuntimeError } from '../errors.js'

// Spaces are C's isspace() in the C locale: [ \t\n\v\f\r].
const LOOKS_LIKE_INT = /^[ \t\n\v\f\r]*[+-]?[0-9]*$/
const INT_DIGITS = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)[ \t\n\v\f\r]*$/
const DECIMAL = /^[ \t\n\v\f\r]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/
const HEX = /^[ \t\n\v\f\r]*([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$/
const INFINITY = /^[ \t\n\v\f\r]*([+-]?)(inf|infinity)$/i
const NAN = /^[ \t\n\v\f\r]*[+-]?nan(\([0-9A-Za-z_]*\))?$/i
const SMALLEST_NORMAL = 2.2250738585072014e-308

/**
 * pgbench's strtoint64: decimal digits with optional sign and surrounding
 * C spaces, in int64 range.
 * @param {string} text
 * @returns {{ ok: true, value: bigint } | { ok: false, error: string }}
 */
export function strtoint64(text) {
  const match = INT_DIGITS.exec(text)
  if (match === null) return { ok: false, error: `invalid input syntax for type bigint: "${text}"` }
  let value = BigInt(match[2])
  if (match[1] === '-') value = -value
  if (value < -(2n ** 63n) || value >= 2n ** 63n) {
    return { ok: false, error: `value "${text}" is out of range for type bigint` }
  }
  return { ok: true, value }
}

/**
 * C's strtod on a whole string: undefined when the text is not entirely a
 * number, or when strtod reports ERANGE (overflow, or underflow to a
 * denormal or zero), as pgbench's strtodouble refuses both.
 * @param {string} text
 * @returns {number | undefined}
 */
export function strtodouble(text) {
  if (DECIMAL.test(text)) {
    const value = Number(text.replace(/^[ \t\n\v\f\r]+/, ''))
    if (!Number.isFinite(value)) return undefined
    if (Math.abs(value) < SMALLEST_NORMAL && /[1-9]/.test(text.replace(/[eE].*$/, ''))) return undefined
    return value
  }
  const hex = HEX.exec(text)
  if (hex !== null) return hexDouble(hex)
  const infinity = INFINITY.exec(text)
  if (infinity !== null) return infinity[1] === '-' ? -Infinity : Infinity
  if (NAN.test(text)) return NaN
  return undefined
}

/**
 * A hexadecimal float such as 0x1.8p3.
 * @param {RegExpExecArray} match
 */
function hexDouble(match) {
  const [, sign, whole, fraction = '', exponent = '0'] = match
  if (whole === '' && fraction === '') return undefined
  const digits = whole + fraction
  let value = Number(BigInt('0x' + (digits === '' ? '0' : digits)))
  const power = Number(exponent) - 4 * fraction.length
  // Scale in steps so that no intermediate power of two overflows.
  let remaining = power
  while (remaining !== 0 && Number.isFinite(value) && value !== 0) {
    const step = Math.max(-1000, Math.min(1000, remaining))
    value *= 2 ** step
    remaining -= step
  }
  if (!Number.isFinite(value)) return undefined
  if (value === 0 && /[1-9a-fA-F]/.test(digits)) return undefined
  return sign === '-' ? -value : value
}

/**
 * Whether text is a case-insensitive prefix of word (at least one character).
 * @param {string} text
 * @param {string} word
 */
function isPrefixOf(text, word) {
  return text.length <= word.length && asciiLower(text) === word.slice(0, text.length)
}

/**
 * ASCII letters lowered, as pg_strcasecmp compares in the C locale.
 * @param {string} text
 */
export function asciiLower(text) {
  return text.replace(/[A-Z]+/g, letters => letters.toLowerCase())
}

/**
 * The value of a variable set from text, or a ScriptRuntimeError with
 * pgbench's message when an expression cannot use it.
 * @param {string} name
 * @param {string} text
 * @returns {import('./values.js').Value}
 */
export function parseVariableText(name, text) {
  if (text === '') throw new ScriptRuntimeError(`malformed variable "${name}" value: ""`)
  const lower = asciiLower(text)
  if (lower === 'null') return null
  if (isPrefixOf(text, 'true') || isPrefixOf(text, 'yes') || lower === 'on') return true
  if (isPrefixOf(text, 'false') || isPrefixOf(text, 'no') || lower === 'off' || lower === 'of') return false
  if (LOOKS_LIKE_INT.test(text)) {
    const parsed = strtoint64(text)
    if (!parsed.ok) throw new ScriptRuntimeError(parsed.error)
    return parsed.value
  }
  const value = strtodouble(text)
  if (value === undefined) throw new ScriptRuntimeError(`malformed variable "${name}" value: "${text}"`)
  return value
}
