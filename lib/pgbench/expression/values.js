// The values of pgbench expressions and their coercions. pgbench has four
// kinds of value: int (int64, here a bigint), double (a number), boolean and
// NULL (null). Coercions fail with pgbench's messages.
import { ScriptRuntimeError } from '../errors.js'
import { formatFixed, formatGeneral } from './cformat.js'

/** @typedef {bigint | number | boolean | null} Value */

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

/**
 * pgbench's name of a value's type, as its error messages spell it.
 * @param {Value} value
 */
export function valueTypeName(value) {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'bigint':
      return 'int'
    case 'number':
      return 'double'
    default:
      return 'boolean'
  }
}

/**
 * The text pgbench puts in place of :name in SQL for a variable holding
 * this value: an int in decimal, a double as "%.15g", true/false, NULL.
 * @param {Value} value
 */
export function valueToText(value) {
  if (value === null) return 'NULL'
  switch (typeof value) {
    case 'bigint':
      return value.toString()
    case 'number':
      return formatGeneral(value)
    default:
      return value ? 'true' : 'false'
  }
}

/**
 * Truth of a value where pgbench needs a condition (\if, \elif, CASE WHEN):
 * non-zero numbers are true, zero and NULL are false. It never fails.
 * @param {Value} value
 */
export function valueToBoolean(value) {
  if (value === null) return false
  switch (typeof value) {
    case 'bigint':
      return value !== 0n
    case 'number':
      return value !== 0
    default:
      return value
  }
}

/**
 * C's rint() in the default rounding mode: to the nearest integer, ties to even.
 * @param {number} x
 */
export function rint(x) {
  const r = Math.round(x)
  // Math.round sends ties up; an odd result of a tie goes back down.
  if (r - x === 0.5 && r % 2 !== 0) return r - 1
  return r
}

const TWO_63 = 2 ** 63

/**
 * A value as an int: a double is rounded (rint) and must fit in int64.
 * @param {Value} value
 * @returns {bigint}
 */
export function coerceToInt(value) {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') {
    const rounded = rint(value)
    if (!(rounded >= -TWO_63 && rounded < TWO_63)) {
      throw new ScriptRuntimeError(`double to int overflow for ${formatFixed(rounded)}`)
    }
    return BigInt(rounded)
  }
  throw new ScriptRuntimeError(`cannot coerce ${valueTypeName(value)} to int`)
}

/**
 * A value as a double: an int converts (rounding beyond 2^53).
 * @param {Value} value
 * @returns {number}
 */
export function coerceToDouble(value) {
  if (typeof value === 'number') return value
  if (typeof value === 'bigint') return Number(value)
  throw new ScriptRuntimeError(`cannot coerce ${valueTypeName(value)} to double`)
}

/**
 * A value as a boolean: only booleans qualify (unlike valueToBoolean).
 * @param {Value} value
 * @returns {boolean}
 */
export function coerceToBool(value) {
  if (typeof value === 'boolean') return value
  throw new ScriptRuntimeError(`cannot coerce ${valueTypeName(value)} to boolean`)
}

/**
 * Whether a JavaScript value is a pgbench Value.
 * @param {unknown} value
 * @returns {value is Value}
 */
export function isValue(value) {
  return (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'number' ||
    (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX)
  )
}
