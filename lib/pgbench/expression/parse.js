// pgbench's expression grammar (exprparse.y) as an operator-precedence
// parser that resolves precedence and associativity exactly as the
// grammar's yacc declarations do, including the postfix IS family and the
// non-associative comparisons. Errors carry pgbench's wording.
import { ScriptSyntaxError } from '../errors.js'
import { ASSOCIATIVITY, BINARY, BITWISE, FUNCTIONS, IS, NOT, TOP, UNARY } from './catalog.js'
import { INT64_MIN } from './values.js'
import { Lexer } from './lexer.js'
import { asciiLower } from './text-value.js'

/**
 * @typedef {import('./values.js').Value} Value
 * @typedef {import('./lexer.js').Token} Token
 * @typedef {{ type: 'constant', value: Value }
 *   | { type: 'variable', name: string }
 *   | { type: 'function', name: string, args: ExprNode[] }} ExprNode
 */

// Deeper expressions are refused rather than risk the JavaScript stack.
export const MAX_EXPRESSION_DEPTH = 1000

/** @type {(value: Value) => ExprNode} */
const constant = value => ({ type: 'constant', value })
/** @type {(name: string, args: ExprNode[]) => ExprNode} */
const call = (name, args) => ({ type: 'function', name, args })
/** @returns {ExprNode} */
const nullNode = () => constant(null)

/** @param {Token} token */
function operatorOf(token) {
  return token.kind === 'op' || token.kind === 'keyword' ? token.text : undefined
}

class Parser {
  /** @param {string} text */
  constructor(text) {
    this.lexer = new Lexer(text)
    /** @type {Token | undefined} */
    this.lookahead = undefined
    this.depth = 0
  }

  peek() {
    if (this.lookahead === undefined) this.lookahead = this.lexer.next()
    return this.lookahead
  }

  take() {
    const token = this.peek()
    this.lookahead = undefined
    return token
  }

  /**
   * @param {Token} token
   * @returns {never}
   */
  syntaxError(token) {
    throw new ScriptSyntaxError('syntax error', { column: token.kind === 'end' ? token.start : token.end - 1 })
  }

  /** @param {string} text  an operator or keyword that must come next */
  expect(text) {
    const token = this.take()
    if (operatorOf(token) !== text) this.syntaxError(token)
    return token
  }

  /**
   * An expression whose operators bind tighter than the pending one (of
   * precedence `level`); at TOP, everything up to a token that cannot
   * continue an expression.
   * @param {number} level
   * @returns {ExprNode}
   */
  expression(level) {
    if (++this.depth > MAX_EXPRESSION_DEPTH) {
      throw new ScriptSyntaxError(`expression is too deeply nested (more than ${MAX_EXPRESSION_DEPTH} levels)`, {
        column: this.peek().start
      })
    }
    let left = this.operand()
    for (;;) {
      const token = this.peek()
      const op = operatorOf(token)
      const binary = op === undefined ? undefined : BINARY.get(op)
      const postfix = op === 'is' || op === 'isnull' || op === 'notnull'
      if (binary === undefined && !postfix) break
      const tokenLevel = binary === undefined ? IS : binary.level
      if (level !== TOP) {
        if (tokenLevel < level) break
        if (tokenLevel === level) {
          const associativity = ASSOCIATIVITY.get(level)
          if (associativity === 'left') break
          if (associativity === 'nonassoc') this.syntaxError(token)
        }
      }
      this.take()
      if (binary === undefined) {
        left = this.isTest(left, /** @type {string} */ (op))
        continue
      }
      const right = this.expression(binary.level)
      left = call(binary.name, binary.swap ? [right, left] : [left, right])
    }
    this.depth--
    return left
  }

  /**
   * The rest of `x IS [NOT] NULL|TRUE|FALSE`, `x ISNULL`, `x NOTNULL`.
   * @param {ExprNode} left
   * @param {string} op
   * @returns {ExprNode}
   */
  isTest(left, op) {
    if (op === 'isnull') return call('!is', [left, nullNode()])
    if (op === 'notnull') return call('!not', [call('!is', [left, nullNode()])])
    let token = this.take()
    const negated = operatorOf(token) === 'not'
    if (negated) token = this.take()
    /** @type {ExprNode} */
    let test
    if (token.kind === 'null') test = call('!is', [left, nullNode()])
    else if (token.kind === 'bool') test = call('!is', [left, constant(/** @type {boolean} */ (token.value))])
    else this.syntaxError(token)
    return negated ? call('!not', [test]) : test
  }

  /** @returns {ExprNode} */
  operand() {
    const token = this.take()
    switch (token.kind) {
      case 'int':
      case 'double':
      case 'bool':
        return constant(/** @type {Value} */ (token.value))
      case 'null':
        return nullNode()
      case 'variable':
        return { type: 'variable', name: token.text }
      case 'name':
        return this.functionCall(token)
      case 'op':
        return this.prefixed(token)
      case 'keyword':
        if (token.text === 'not') return call('!not', [this.expression(NOT)])
        if (token.text === 'case') return this.caseExpression()
        break
    }
    return this.syntaxError(token)
  }

  /**
   * An operand that starts with an operator: ( ), unary + - ~.
   * @param {Token} token
   * @returns {ExprNode}
   */
  prefixed(token) {
    switch (token.text) {
      case '(': {
        const inner = this.expression(TOP)
        this.expect(')')
        return inner
      }
      case '+':
        return this.expression(UNARY)
      case '-':
        if (this.peek().kind === 'maxint') {
          this.take()
          return constant(INT64_MIN)
        }
        return call('-', [constant(0n), this.expression(UNARY)])
      case '~':
        // '~' has no %prec in the grammar: it binds as the bitwise operators do.
        return call('#', [constant(-1n), this.expression(BITWISE)])
    }
    return this.syntaxError(token)
  }

  /**
   * @param {Token} nameToken
   * @returns {ExprNode}
   */
  functionCall(nameToken) {
    const typed = asciiLower(nameToken.text)
    const entry = FUNCTIONS.get(typed)
    if (entry === undefined) {
      throw new ScriptSyntaxError(`unexpected function name (${nameToken.text})`, { column: nameToken.end - 1 })
    }
    this.expect('(')
    /** @type {ExprNode[]} */
    const args = []
    if (operatorOf(this.peek()) !== ')') {
      // The grammar's argument list may start with an empty element: f(,x) is f(x).
      if (operatorOf(this.peek()) !== ',') args.push(this.expression(TOP))
      while (operatorOf(this.peek()) === ',') {
        this.take()
        args.push(this.expression(TOP))
      }
    }
    const close = this.expect(')')
    const column = close.end - 1
    const { arity } = entry
    if (arity === 'variadic') {
      if (args.length === 0) throw new ScriptSyntaxError(`at least one argument expected (${typed})`, { column })
    } else if (arity === 'hash' || arity === 'permute') {
      const required = arity === 'hash' ? 1 : 2
      if (args.length < required || args.length > required + 1) {
        throw new ScriptSyntaxError(`unexpected number of arguments (${typed})`, { column })
      }
      if (args.length === required) args.push({ type: 'variable', name: 'default_seed' })
    } else if (args.length !== arity) {
      throw new ScriptSyntaxError(`unexpected number of arguments (${typed})`, { column })
    }
    return call(entry.name, args)
  }

  /** CASE WHEN c THEN r [WHEN c THEN r ...] [ELSE r] END */
  caseExpression() {
    /** @type {ExprNode[]} */
    const args = []
    let token = this.take()
    if (operatorOf(token) !== 'when') this.syntaxError(token)
    for (;;) {
      args.push(this.expression(TOP))
      this.expect('then')
      args.push(this.expression(TOP))
      token = this.take()
      const word = operatorOf(token)
      if (word === 'when') continue
      if (word === 'else') {
        args.push(this.expression(TOP))
        this.expect('end')
      } else if (word === 'end') {
        args.push(nullNode())
      } else {
        this.syntaxError(token)
      }
      return call('!case_end', args)
    }
  }

  /** The whole text as one expression. */
  parse() {
    const tree = this.expression(TOP)
    const token = this.take()
    if (token.kind !== 'end') this.syntaxError(token)
    const { text, stop } = this.lexer
    const rest = /\S/.exec(text.slice(stop + 1))
    if (stop < text.length && rest !== null) {
      throw new ScriptSyntaxError('syntax error', { column: stop + 1 + rest.index })
    }
    checkDepth(tree)
    return tree
  }

  /**
   * The error to report for `error`: as pgbench scans the rest of the line
   * after an error and reports the last lexical error it meets there instead.
   * @param {ScriptSyntaxError} error
   */
  reported(error) {
    let last = error
    for (;;) {
      try {
        if (this.lexer.next().kind === 'end') return last
      } catch (lexical) {
        if (!(lexical instanceof ScriptSyntaxError)) return last
        last = lexical
      }
    }
  }
}

/**
 * Refuses a tree deeper than MAX_EXPRESSION_DEPTH (a long chain of
 * left-associative operators nests without nesting the parser).
 * @param {ExprNode} tree
 */
function checkDepth(tree) {
  /** @type {Array<[ExprNode, number]>} */
  const stack = [[tree, 1]]
  while (stack.length > 0) {
    const [node, depth] = /** @type {[ExprNode, number]} */ (stack.pop())
    if (depth > MAX_EXPRESSION_DEPTH) {
      throw new ScriptSyntaxError(`expression is too deeply nested (more than ${MAX_EXPRESSION_DEPTH} levels)`)
    }
    if (node.type === 'function') for (const arg of node.args) stack.push([arg, depth + 1])
  }
}

/**
 * Parses the expression of a \set, \if or \elif command. Throws
 * ScriptSyntaxError, with the 0-based column pgbench points at, for a
 * syntax error, an unknown function or a wrong number of arguments.
 * @param {string} text
 * @returns {ExprNode}
 */
export function parseExpression(text) {
  const parser = new Parser(String(text))
  try {
    return parser.parse()
  } catch (error) {
    if (error instanceof ScriptSyntaxError) throw parser.reported(error)
    if (error instanceof RangeError) throw new ScriptSyntaxError('expression is too complex')
    throw error
  }
}
