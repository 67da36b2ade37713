// Turns a parsed expression into a closure, so that evaluating it walks no
// tree and does no string work: each node becomes a closure over its
// arguments' closures. Subexpressions made of constants and pure
// functions are computed once, here, unless computing them fails: their
// error belongs to the run, not to compilation.
import { ScriptRuntimeError } from '../errors.js'
import { IMPURE_FUNCTIONS } from './catalog.js'
import { FUNCTION_BUILDERS } from './functions.js'
import { OPERATORS } from './operators.js'
import { isValue } from './values.js'

export { valueToBoolean, valueToText, valueTypeName } from './values.js'

/**
 * @typedef {import('./values.js').Value} Value
 * @typedef {import('./parse.js').ExprNode} ExprNode
 * @typedef {import('./evaluator.js').EvalContext} EvalContext
 * @typedef {import('./evaluator.js').Evaluator} Evaluator
 */

/** @type {WeakMap<Evaluator, Value>} */
const constantValues = new WeakMap()

/**
 * @param {Value} value
 * @returns {Evaluator}
 */
function constant(value) {
  const evaluator = () => value
  constantValues.set(evaluator, value)
  return evaluator
}

// Folding evaluates nothing that needs a context; this one says so if it does.
const NO_CONTEXT = /** @type {EvalContext} */ (
  /** @type {unknown} */ (
    new Proxy(
      {},
      {
        get() {
          throw new ScriptRuntimeError('not a constant')
        }
      }
    )
  )
)

/**
 * @param {ExprNode} node
 * @returns {Evaluator}
 */
function compileNode(node) {
  switch (node.type) {
    case 'constant':
      if (!isValue(node.value)) throw new TypeError(`not a pgbench value: ${String(node.value)}`)
      return constant(node.value)
    case 'variable': {
      const { name } = node
      return ctx => ctx.variables.get(name)
    }
    case 'function': {
      const builder = OPERATORS.get(node.name) ?? FUNCTION_BUILDERS.get(node.name)
      if (builder === undefined) throw new TypeError(`unknown function in expression tree: ${node.name}`)
      const args = node.args.map(compileNode)
      const evaluator = builder(args)
      if (IMPURE_FUNCTIONS.has(node.name) || !args.every(arg => constantValues.has(arg))) return evaluator
      try {
        return constant(evaluator(NO_CONTEXT))
      } catch (error) {
        if (error instanceof ScriptRuntimeError) return evaluator
        throw error
      }
    }
  }
  throw new TypeError('not an expression tree')
}

/**
 * The closure that evaluates a parsed expression. It returns a Value or
 * throws ScriptRuntimeError with pgbench's message (division by zero,
 * overflow, undefined variable, bad coercion, bad random parameters).
 * @param {ExprNode} node  as parseExpression returns it
 * @returns {Evaluator}
 */
export function compileExpression(node) {
  return compileNode(node)
}
