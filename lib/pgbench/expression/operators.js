// The internal functions that pgbench's operators become: arithmetic and
// comparisons (double when either operand is a double, except %), bitwise
// operators, NOT, IS, and the lazily evaluated AND, OR and CASE. Every
// builder takes its compiled arguments and returns a closure.
import { ScriptRuntimeError } from '../errors.js'
import { INT64_MAX, INT64_MIN, coerceToBool, coerceToDouble, coerceToInt, valueToBoolean } from './values.js'

/**
 * @typedef {import('./values.js').Value} Value
 * @typedef {import('./evaluator.js').EvalContext} EvalContext
 * @typedef {import('./evaluator.js').Evaluator} Evaluator
 * @typedef {import('./evaluator.js').Builder} Builder
 */

/**
 * @param {bigint} result
 * @param {string} what  add, sub, mul
 */
function checked(result, what) {
  if (result > INT64_MAX || result < INT64_MIN) throw new ScriptRuntimeError(`bigint ${what} out of range`)
  return result
}

/**
 * An operator of two evaluated arguments, NULL when either is NULL.
 * @param {(x: Exclude<Value, null>, y: Exclude<Value, null>) => Value} operate
 * @returns {Builder}
 */
function strict(operate) {
  return ([left, right]) =>
    ctx => {
      const x = left(ctx)
      const y = right(ctx)
      if (x === null || y === null) return null
      return operate(x, y)
    }
}

/**
 * An overloaded operator: on doubles if either operand is one, else on ints.
 * @param {(x: bigint, y: bigint) => Value} onInts
 * @param {(x: number, y: number) => Value} onDoubles
 */
function overloaded(onInts, onDoubles) {
  return strict((x, y) => {
    if (typeof x === 'bigint' && typeof y === 'bigint') return onInts(x, y)
    if (typeof x === 'number' || typeof y === 'number') return onDoubles(coerceToDouble(x), coerceToDouble(y))
    return onInts(coerceToInt(x), coerceToInt(y))
  })
}

/**
 * An operator on ints only (doubles are rounded to ints).
 * @param {(x: bigint, y: bigint) => Value} onInts
 */
function integral(onInts) {
  return strict((x, y) => onInts(coerceToInt(x), coerceToInt(y)))
}

/**
 * @param {bigint} x
 * @param {bigint} y
 */
function divide(x, y) {
  if (y === 0n) throw new ScriptRuntimeError('division by zero')
  if (y === -1n) {
    if (x === INT64_MIN) throw new ScriptRuntimeError('bigint div out of range')
    return -x
  }
  return x / y
}

/**
 * @param {bigint} x
 * @param {bigint} y
 */
function modulo(x, y) {
  if (y === 0n) throw new ScriptRuntimeError('division by zero')
  if (y === -1n) return 0n
  return x % y
}

/** @type {Builder} */
function and([left, right]) {
  return ctx => {
    const x = left(ctx)
    if (x === null) return null
    if (!coerceToBool(x)) return false
    const y = right(ctx)
    if (y === null) return null
    return coerceToBool(y)
  }
}

/** @type {Builder} */
function or([left, right]) {
  return ctx => {
    const x = left(ctx)
    if (x === null) return null
    if (coerceToBool(x)) return true
    const y = right(ctx)
    if (y === null) return null
    return coerceToBool(y)
  }
}

/** @type {Builder} */
function not([operand]) {
  return ctx => {
    const x = operand(ctx)
    return x === null ? null : !coerceToBool(x)
  }
}

/**
 * x IS y, y being NULL, TRUE or FALSE: true when both are NULL or both are
 * the same boolean, false otherwise (never NULL).
 * @type {Builder}
 */
function is([left, right]) {
  return ctx => {
    const x = left(ctx)
    const y = right(ctx)
    return x === y && (x === null || typeof x === 'boolean')
  }
}

/**
 * CASE: (condition, result) pairs then the ELSE result; a condition is true
 * as \if takes it (non-zero numbers are true).
 * @type {Builder}
 */
function caseEnd(args) {
  const conditions = args.filter((_, i) => i % 2 === 0 && i < args.length - 1)
  const results = args.filter((_, i) => i % 2 === 1)
  const otherwise = args[args.length - 1]
  if (conditions.length === 1) {
    const [condition] = conditions
    const [result] = results
    return ctx => (valueToBoolean(condition(ctx)) ? result(ctx) : otherwise(ctx))
  }
  return ctx => {
    for (let i = 0; i < conditions.length; i++) {
      if (valueToBoolean(conditions[i](ctx))) return results[i](ctx)
    }
    return otherwise(ctx)
  }
}

/** @type {ReadonlyMap<string, Builder>} */
export const OPERATORS = new Map([
  [
    '+',
    overloaded(
      (x, y) => checked(x + y, 'add'),
      (x, y) => x + y
    )
  ],
  [
    '-',
    overloaded(
      (x, y) => checked(x - y, 'sub'),
      (x, y) => x - y
    )
  ],
  [
    '*',
    overloaded(
      (x, y) => checked(x * y, 'mul'),
      (x, y) => x * y
    )
  ],
  ['/', overloaded(divide, (x, y) => x / y)],
  ['mod', integral(modulo)],
  [
    '=',
    overloaded(
      (x, y) => x === y,
      (x, y) => x === y
    )
  ],
  [
    '<>',
    overloaded(
      (x, y) => x !== y,
      (x, y) => x !== y
    )
  ],
  [
    '<=',
    overloaded(
      (x, y) => x <= y,
      (x, y) => x <= y
    )
  ],
  [
    '<',
    overloaded(
      (x, y) => x < y,
      (x, y) => x < y
    )
  ],
  ['&', integral((x, y) => x & y)],
  ['|', integral((x, y) => x | y)],
  ['#', integral((x, y) => x ^ y)],
  // As on x86-64, the shift count is taken modulo 64 and the result wraps.
  ['<<', integral((x, y) => BigInt.asIntN(64, x << (y & 63n)))],
  ['>>', integral((x, y) => x >> (y & 63n))],
  ['!and', and],
  ['!or', or],
  ['!not', not],
  ['!is', is],
  ['!case_end', caseEnd]
])
