// Properties over generated inputs (fast-check, fixed seed): the parser
// only ever returns a tree or throws ScriptSyntaxError, whatever the text;
// compiled expressions only ever return a value or throw
// ScriptRuntimeError, whatever they compute; printed trees parse back to
// themselves; permute is a bijection; hash is a function of its inputs;
// text written for a value reads back as that value.
import t from 'tap'
import fc from 'fast-check'
import { ScriptRuntimeError, ScriptSyntaxError } from '../../lib/pgbench/errors.js'
import { formatGeneral } from '../../lib/pgbench/expression/cformat.js'
import { compileExpression } from '../../lib/pgbench/expression/compile.js'
import { parseExpression } from '../../lib/pgbench/expression/parse.js'
import { permute } from '../../lib/pgbench/expression/permute.js'
import { hashFnv1a, hashMurmur2 } from '../../lib/pgbench/expression/hash.js'
import { isValue } from '../../lib/pgbench/expression/values.js'
import { Random } from '../../lib/pgbench/random.js'
import { Variables } from '../../lib/pgbench/variables.js'
import { SCALE } from '../helpers/fuzz.js'

const seed = 20240611
/**
 * Scaled as the fuzz tests' counts are (PGLOADGEN_FUZZ_SCALE: a quarter in the unit loop).
 * @param {number} numRuns
 */
const settings = numRuns => ({ seed, numRuns: Math.max(1, Math.round(numRuns * SCALE)) })

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })

// Pieces of the language, and of almost-the-language, to fuzz the parser with.
const TOKENS = [
  '1',
  '0',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '1.5',
  '.5',
  '5.',
  '1e3',
  '1e400',
  ':x',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<>',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '<<',
  '>>',
  '&',
  '|',
  '#',
  '~',
  '(',
  ')',
  ',',
  'and',
  'or',
  'not',
  'is',
  'isnull',
  'notnull',
  'null',
  'true',
  'false',
  'case',
  'when',
  'then',
  'else',
  'end',
  'abs',
  'least',
  'hash',
  'permute',
  'random',
  'random_zipfian',
  'pi',
  'foo',
  '@',
  '!',
  '\\',
  '\\\n',
  '\n',
  'é',
  '😀',
  ' ',
  '\t'
]

t.test('parseExpression returns a tree or throws ScriptSyntaxError, for any text', async t => {
  /** @param {string} text */
  const check = text => {
    try {
      const tree = parseExpression(text)
      return typeof tree === 'object' && tree !== null
    } catch (error) {
      return (
        error instanceof ScriptSyntaxError &&
        typeof error.message === 'string' &&
        (error.column === undefined ||
          (Number.isInteger(error.column) && error.column >= 0 && error.column <= text.length))
      )
    }
  }
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), check), settings(3000))
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map(tokens => tokens.join(' ')),
      check
    ),
    settings(5000)
  )
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map(tokens => tokens.join('')),
      check
    ),
    settings(3000)
  )
  t.pass('3000 random strings and 8000 token soups')
})

/**
 * Expression text from a generated tree, every operation in parentheses.
 * @typedef {{ text: string }} Generated
 */
const leaf = fc.oneof(
  int64.map(String).map(text => (text.startsWith('-') ? `(${text})` : text)),
  fc.constantFrom('0', '1', '2', '-1', '(-9223372036854775808)', '9223372036854775807'),
  // Literals of denormals are refused like overflows (strtod's ERANGE): normal ones only.
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 })
    .filter(x => x === 0 || Math.abs(x) >= 2.3e-308)
    .map(x => `(${x.toPrecision(17)})`),
  fc.constantFrom('0.0', '0.5', '2.5', '(0.0 / 0.0)', '(1e308 * 10)', 'pi()'),
  fc.constantFrom('true', 'false', 'null'),
  fc.constantFrom(':i', ':d', ':b', ':n', ':t', ':s', ':nosuch', ':default_seed')
)
const BINARY = ['+', '-', '*', '/', '%', '=', '<>', '<', '<=', '>', '>=', '&', '|', '#', '<<', '>>', 'and', 'or']
const UNARY = ['-', '+', '~', 'not ']
const POSTFIX = [' isnull', ' notnull', ' is null', ' is not null', ' is true', ' is not false']
const FUNCTIONS = {
  abs: 1,
  debug: 1,
  double: 1,
  exp: 1,
  int: 1,
  ln: 1,
  sqrt: 1,
  pi: 0,
  pow: 2,
  power: 2,
  mod: 2,
  random: 2,
  random_exponential: 3,
  random_gaussian: 3,
  random_zipfian: 3,
  hash: 1,
  hash_fnv1a: 2,
  hash_murmur2: 2,
  permute: 2,
  least: 3,
  greatest: 2
}

const expression = /** @type {fc.Arbitrary<string>} */ (
  fc.letrec(tie => ({
    expression: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('compound')),
    compound: fc.oneof(
      fc
        .tuple(tie('expression'), fc.constantFrom(...BINARY), tie('expression'))
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(fc.constantFrom(...UNARY), tie('expression')).map(([op, a]) => `(${op}${a})`),
      fc.tuple(tie('expression'), fc.constantFrom(...POSTFIX)).map(([a, op]) => `(${a}${op})`),
      fc
        .tuple(tie('expression'), tie('expression'), tie('expression'))
        .map(([c, a, b]) => `case when ${c} then ${a} else ${b} end`),
      fc
        .constantFrom(...Object.entries(FUNCTIONS))
        .chain(([name, arity]) =>
          fc.array(tie('expression'), { minLength: arity, maxLength: arity }).map(args => `${name}(${args.join(', ')})`)
        )
    )
  })).expression
)

t.test('compiled expressions return a value or throw ScriptRuntimeError, whatever they compute', async t => {
  fc.assert(
    fc.property(expression, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (text, randomSeed) => {
      const evaluate = compileExpression(parseExpression(text))
      const variables = new Variables([
        ['i', 7n],
        ['d', -2.5],
        ['b', true],
        ['n', null],
        ['t', '12'],
        ['s', 'abc'],
        ['default_seed', 5n]
      ])
      const ctx = { variables, random: new Random(randomSeed), debug: () => {} }
      for (let round = 0; round < 2; round++) {
        try {
          if (!isValue(evaluate(ctx))) return false
        } catch (error) {
          if (!(error instanceof ScriptRuntimeError)) throw error
        }
      }
      return true
    }),
    settings(3000)
  )
  t.pass('3000 generated expressions')
})

t.test('a tree printed with every operation in parentheses parses back to itself', async t => {
  /** @param {import('../../lib/pgbench/expression/parse.js').ExprNode} node @returns {string} */
  const print = node => {
    if (node.type === 'constant') {
      if (node.value === null) return 'null'
      if (typeof node.value === 'bigint') return node.value < 0n ? `(${node.value})` : String(node.value)
      if (typeof node.value === 'number') {
        return Number.isFinite(node.value) ? `(${node.value.toPrecision(17)} * 1.0)` : '(0.0 / 0.0)'
      }
      return String(node.value)
    }
    if (node.type === 'variable') return `:${node.name}`
    return `f[${node.name}](${node.args.map(print).join(', ')})`
  }
  // Compare trees by their canonical internal form rather than text.
  /** @param {import('../../lib/pgbench/expression/parse.js').ExprNode} node @returns {string} */
  const canonical = node =>
    node.type === 'function' ? `${node.name}(${node.args.map(canonical).join(',')})` : print(node)
  fc.assert(
    fc.property(expression, text => {
      const tree = parseExpression(text)
      const again = parseExpression(`(${text})`)
      return canonical(tree) === canonical(again)
    }),
    settings(1000)
  )
  t.pass('parentheses around a whole expression change nothing')
})

t.test('permute is a bijection of [0, size) for every seed', async t => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 3000 }), int64, (size, permutationSeed) => {
      const seen = new Uint8Array(size)
      for (let i = 0; i < size; i++) {
        const j = permute(BigInt(i), BigInt(size), permutationSeed)
        if (j < 0n || j >= BigInt(size) || seen[Number(j)] === 1) return false
        seen[Number(j)] = 1
      }
      return true
    }),
    settings(200)
  )
  fc.assert(
    fc.property(
      fc.bigInt({ min: 2n, max: 2n ** 63n - 1n }),
      int64,
      fc.array(int64, { minLength: 50, maxLength: 50 }),
      (size, permutationSeed, inputs) => {
        const distinct = new Set(inputs.map(i => BigInt.asUintN(64, i) % size))
        const outputs = new Set([...distinct].map(i => permute(i, size, permutationSeed)))
        return outputs.size === distinct.size && [...outputs].every(j => j >= 0n && j < size)
      }
    ),
    settings(300)
  )
  fc.assert(
    fc.property(
      int64,
      fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
      int64,
      (i, size, permutationSeed) =>
        permute(i, size, permutationSeed) === permute(BigInt.asUintN(64, i) % size, size, permutationSeed)
    ),
    settings(500)
  )
  t.pass('bijective on small sizes, injective on samples of large ones, values taken modulo size')
})

t.test('hash functions depend on their inputs only', async t => {
  fc.assert(
    fc.property(int64, int64, (value, hashSeed) => {
      const viaExpression = compileExpression(
        parseExpression(
          `hash_fnv1a(:v, :s) = ${hashFnv1a(value, hashSeed)} and hash(:v, :s) = ${hashMurmur2(value, hashSeed)}`
        )
      )
      const ctx = {
        variables: new Variables([
          ['v', value],
          ['s', hashSeed]
        ]),
        random: new Random()
      }
      return (
        viaExpression(ctx) === true &&
        viaExpression(ctx) === true &&
        hashFnv1a(value, hashSeed) === hashFnv1a(value, hashSeed + 2n ** 64n) &&
        hashMurmur2(value, BigInt.asIntN(64, hashSeed)) === hashMurmur2(value, BigInt.asUintN(64, hashSeed))
      )
    }),
    settings(500)
  )
  t.pass('the same inputs give the same hashes, a seed is the same signed or unsigned')
})

t.test('the text of a value reads back as the value', async t => {
  fc.assert(
    fc.property(int64, n => new Variables([['x', String(n)]]).get('x') === n),
    settings(500)
  )
  fc.assert(
    fc.property(fc.double(), x => {
      const variables = new Variables([['x', formatGeneral(x, 17)]])
      if (x !== 0 && Math.abs(x) < 2.2250738585072014e-308) {
        try {
          variables.get('x')
        } catch (error) {
          return error instanceof ScriptRuntimeError
        }
        return false
      }
      const got = variables.get('x')
      if (Number.isNaN(x)) return Number.isNaN(got)
      if (typeof got === 'bigint') return Number(got) === x && Number.isInteger(x)
      return got === x || (x === 0 && got === 0)
    }),
    settings(2000)
  )
  t.pass("ints exactly; doubles through 17 significant digits, denormals refused as strtod's ERANGE")
})
