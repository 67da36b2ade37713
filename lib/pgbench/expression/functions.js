// pgbench's built-in functions. Each evaluates all its arguments first and
// returns NULL if any is NULL (debug excepted), then coerces them as
// pgbench does, with pgbench's error messages.
import { ScriptRuntimeError } from '../errors.js'
import { checkRandomRange } from '../random.js'
import { formatGeneral } from './cformat.js'
import { hashFnv1a, hashMurmur2 } from './hash.js'
import { permute } from './permute.js'
import { coerceToDouble, coerceToInt } from './values.js'

/**
 * @typedef {import('./values.js').Value} Value
 * @typedef {Exclude<Value, null>} Present
 * @typedef {import('./evaluator.js').EvalContext} EvalContext
 * @typedef {import('./evaluator.js').Evaluator} Evaluator
 * @typedef {import('./evaluator.js').Builder} Builder
 */

// pgbench evaluates at most this many arguments of a function.
const MAX_FUNCTION_ARGS = 16

/**
 * A function of evaluated arguments, NULL if any of them is NULL.
 * @param {(values: Present[], ctx: EvalContext) => Value} apply
 * @returns {Builder}
 */
function strict(apply) {
  return args => {
    const count = Math.min(args.length, MAX_FUNCTION_ARGS)
    // Evaluation is synchronous and a closure never runs inside itself,
    // so each closure can keep one array for its arguments.
    /** @type {Value[]} */
    const values = new Array(count)
    return ctx => {
      let hasNull = false
      for (let i = 0; i < count; i++) {
        const value = args[i](ctx)
        if (value === null) hasNull = true
        values[i] = value
      }
      if (args.length > MAX_FUNCTION_ARGS) {
        throw new ScriptRuntimeError(`too many function arguments, maximum is ${MAX_FUNCTION_ARGS}`)
      }
      return hasNull ? null : apply(/** @type {Present[]} */ (values), ctx)
    }
  }
}

/**
 * least or greatest: doubles if any argument is a double, else ints; the
 * comparison is pgbench's Min/Max macro, so a NaN can win.
 * @param {boolean} least
 */
function extremum(least) {
  return strict(values => {
    if (values.some(value => typeof value === 'number')) {
      let best = coerceToDouble(values[0])
      for (let i = 1; i < values.length; i++) {
        const value = coerceToDouble(values[i])
        if (least ? !(best < value) : !(best > value)) best = value
      }
      return best
    }
    let best = coerceToInt(values[0])
    for (let i = 1; i < values.length; i++) {
      const value = coerceToInt(values[i])
      if (least ? value < best : value > best) best = value
    }
    return best
  })
}

/**
 * C's pow(): unlike Math.pow, 1 to any power and -1 to an infinite power are 1.
 * @param {number} x
 * @param {number} y
 */
function power(x, y) {
  if (x === 1 || (x === -1 && (y === Infinity || y === -Infinity))) return 1
  return Math.pow(x, y)
}

/**
 * @param {Value} value
 * @param {EvalContext} ctx
 */
function debug(value, ctx) {
  let text
  if (value === null) text = 'null'
  else if (typeof value === 'boolean') text = `boolean ${value}`
  else if (typeof value === 'bigint') text = `int ${value}`
  else text = `double ${formatGeneral(value)}`
  const line = `debug(script=${ctx.script ?? 0},command=${(ctx.command ?? 0) + 1}): ${text}`
  if (ctx.debug !== undefined) ctx.debug(line)
  else process.stderr.write(line + '\n')
  return value
}

/**
 * A random function with a distribution parameter: pgbench checks the
 * bounds before it coerces the parameter.
 * @param {'exponential' | 'gaussian' | 'zipfian'} method
 * @returns {Builder}
 */
function randomWithParameter(method) {
  return strict(([lb, ub, parameter], ctx) => {
    const low = coerceToInt(lb)
    const high = coerceToInt(ub)
    checkRandomRange(low, high)
    return ctx.random[method](low, high, coerceToDouble(parameter))
  })
}

/** @type {ReadonlyMap<string, Builder>} */
export const FUNCTION_BUILDERS = new Map([
  [
    'abs',
    strict(([x]) => {
      if (typeof x === 'bigint') return x < 0n ? BigInt.asIntN(64, -x) : x
      const d = coerceToDouble(x)
      return d < 0 ? -d : d
    })
  ],
  [
    'debug',
    ([argument]) =>
      ctx =>
        debug(argument(ctx), ctx)
  ],
  ['double', strict(([x]) => coerceToDouble(x))],
  ['exp', strict(([x]) => Math.exp(coerceToDouble(x)))],
  ['greatest', extremum(false)],
  ['hash_fnv1a', strict(([value, seed]) => hashFnv1a(coerceToInt(value), coerceToInt(seed)))],
  ['hash_murmur2', strict(([value, seed]) => hashMurmur2(coerceToInt(value), coerceToInt(seed)))],
  ['int', strict(([x]) => coerceToInt(x))],
  ['least', extremum(true)],
  ['ln', strict(([x]) => Math.log(coerceToDouble(x)))],
  [
    'permute',
    strict(([value, size, seed]) => {
      const i = coerceToInt(value)
      const n = coerceToInt(size)
      const s = coerceToInt(seed)
      if (n <= 0n) throw new ScriptRuntimeError('permute size parameter must be greater than zero')
      return permute(i, n, s)
    })
  ],
  ['pi', () => () => Math.PI],
  ['pow', strict(([x, y]) => power(coerceToDouble(x), coerceToDouble(y)))],
  ['random', strict(([lb, ub], ctx) => ctx.random.uniform(coerceToInt(lb), coerceToInt(ub)))],
  ['random_exponential', randomWithParameter('exponential')],
  ['random_gaussian', randomWithParameter('gaussian')],
  ['random_zipfian', randomWithParameter('zipfian')],
  ['sqrt', strict(([x]) => Math.sqrt(coerceToDouble(x)))]
])
