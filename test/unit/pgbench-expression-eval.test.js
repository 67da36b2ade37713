// Evaluation of pgbench expressions: every operator and function, the
// coercions between int, double, boolean and NULL, pgbench's error
// messages, the text a value puts into SQL, \if's truth, and the
// Variables that hold values and -D/\gset text. pgbench-expression-pgbench
// checks the same against the real pgbench.
import t from 'tap'
import { ScriptRuntimeError } from '../../lib/pgbench/errors.js'
import { formatFixed, formatGeneral } from '../../lib/pgbench/expression/cformat.js'
import { compileExpression, valueToBoolean, valueToText, valueTypeName } from '../../lib/pgbench/expression/compile.js'
import { parseExpression } from '../../lib/pgbench/expression/parse.js'
import { rint } from '../../lib/pgbench/expression/values.js'
import { Random } from '../../lib/pgbench/random.js'
import { Variables, isValidVariableName } from '../../lib/pgbench/variables.js'

const MIN = -(2n ** 63n)
const MAX = 2n ** 63n - 1n

/**
 * Evaluates text with variables :i = 7, :d = 2.5, :b = true, :n = NULL,
 * :default_seed = 5432 (and extra ones).
 * @param {string} text
 * @param {Array<[string, import('../../lib/pgbench/expression/values.js').Value | string]>} [extra]
 */
function evaluate(text, extra = []) {
  const variables = new Variables([['i', 7n], ['d', 2.5], ['b', true], ['n', null], ['default_seed', 5432n], ...extra])
  return compileExpression(parseExpression(text))({ variables, random: new Random(1n), debug: () => {} })
}

/**
 * @param {import('tap').Test} t
 * @param {string} text
 * @param {string} message
 */
function fails(t, text, message) {
  t.throws(() => evaluate(text), { name: 'ScriptRuntimeError', message }, text)
}

t.test("integer arithmetic: int64, C division, pgbench's overflow errors", async t => {
  t.equal(evaluate('1 + 2'), 3n)
  t.equal(evaluate('7 - 10'), -3n)
  t.equal(evaluate('6 * 7'), 42n)
  t.equal(evaluate('7 / 2'), 3n)
  t.equal(evaluate('-7 / 2'), -3n, 'division truncates toward zero')
  t.equal(evaluate('-7 % 3'), -1n, "the remainder has the dividend's sign")
  t.equal(evaluate('7 % -3'), 1n)
  t.equal(evaluate('mod(54, 32)'), 22n)
  t.equal(evaluate('5 / -1'), -5n)
  t.equal(evaluate('(-9223372036854775807 - 1) % -1'), 0n)
  t.equal(evaluate('9223372036854775807'), MAX)
  t.equal(evaluate('-9223372036854775808'), MIN)
  t.equal(evaluate('-:i'), -7n)
  t.equal(evaluate('+:i'), 7n)
  fails(t, '9223372036854775807 + 1', 'bigint add out of range')
  fails(t, '-9223372036854775808 - 1', 'bigint sub out of range')
  fails(t, '-(-9223372036854775808)', 'bigint sub out of range')
  fails(t, '4611686018427387904 * 2', 'bigint mul out of range')
  fails(t, '(-9223372036854775807 - 1) / -1', 'bigint div out of range')
  fails(t, '1 / 0', 'division by zero')
  fails(t, '1 % 0', 'division by zero')
  fails(t, '1 % 0.4', 'division by zero')
})

t.test('double arithmetic when either operand is a double, except %', async t => {
  t.equal(evaluate('1 + 0.5'), 1.5)
  t.equal(evaluate('7 / 2.0'), 3.5)
  t.equal(evaluate(':i * :d'), 17.5)
  t.equal(evaluate('1 / 0.0'), Infinity, 'no error for doubles')
  t.equal(evaluate('-1 / 0.0'), -Infinity)
  t.ok(Number.isNaN(evaluate('0.0 / 0.0')))
  t.equal(evaluate('5.5 % 2'), 0n, '% rounds doubles to ints: rint(5.5) = 6')
  t.equal(evaluate('4.5 % 3'), 1n, 'rint(4.5) = 4')
  t.equal(evaluate('1e308 * 10'), Infinity)
  t.ok(Object.is(evaluate('-1 * 0.0'), -0))
})

t.test('comparisons: on doubles if either is one, else on ints', async t => {
  t.equal(evaluate('1 < 2'), true)
  t.equal(evaluate('2 <= 2'), true)
  t.equal(evaluate('1 > 2'), false)
  t.equal(evaluate('2 >= 3'), false)
  t.equal(evaluate('1 = 1.0'), true)
  t.equal(evaluate('1 <> 1'), false)
  t.equal(evaluate('1 != 2'), true)
  t.equal(evaluate('9007199254740993 = 9007199254740992'), false, 'ints compare exactly')
  t.equal(evaluate('9007199254740993 = 9007199254740992.0'), true, 'an int becomes a double next to one')
  t.equal(evaluate('0.0 / 0.0 = 0.0 / 0.0'), false)
  t.equal(evaluate('0.0 / 0.0 <> 0.0 / 0.0'), true)
  t.equal(evaluate('null = null'), null)
  fails(t, 'true = true', 'cannot coerce boolean to int')
  fails(t, 'true < 1.5', 'cannot coerce boolean to double')
})

t.test('bitwise operators on ints; shifts count modulo 64 as on x86-64', async t => {
  t.equal(evaluate('5 & 3'), 1n)
  t.equal(evaluate('5 | 3'), 7n)
  t.equal(evaluate('5 # 3'), 6n)
  t.equal(evaluate('~5'), -6n)
  t.equal(evaluate('~-1'), 0n)
  t.equal(evaluate('1 << 62'), 2n ** 62n)
  t.equal(evaluate('1 << 63'), MIN, 'wraps')
  t.equal(evaluate('1 << 64'), 1n)
  t.equal(evaluate('1 << -1'), MIN)
  t.equal(evaluate('-16 >> 2'), -4n, 'arithmetic shift')
  t.equal(evaluate('-1 >> 70'), -1n)
  t.equal(evaluate('5.5 & 7'), 6n, 'doubles are rounded')
  fails(t, '1 << true', 'cannot coerce boolean to int')
})

t.test("logic: pgbench's NULL handling and lazy AND, OR, CASE", async t => {
  t.equal(evaluate('true and false'), false)
  t.equal(evaluate('true or false'), true)
  t.equal(evaluate('not true'), false)
  t.equal(evaluate('null and 1 / 0'), null, 'NULL AND x is NULL without evaluating x')
  t.equal(evaluate('null or true'), null, "not SQL's three-valued logic")
  t.equal(evaluate('true and null'), null)
  t.equal(evaluate('false and null'), false)
  t.equal(evaluate('false and 1 / 0'), false, 'lazy')
  t.equal(evaluate('true or 1 / 0'), true)
  t.equal(evaluate('false or null'), null)
  t.equal(evaluate('not null'), null)
  fails(t, 'not 1', 'cannot coerce int to boolean')
  fails(t, '1 and true', 'cannot coerce int to boolean')
  fails(t, 'true and 1.5', 'cannot coerce double to boolean')
  fails(t, 'false or 1', 'cannot coerce int to boolean')
  t.equal(evaluate('null is null'), true)
  t.equal(evaluate(':n isnull'), true)
  t.equal(evaluate('1 is null'), false)
  t.equal(evaluate('1 notnull'), true)
  t.equal(evaluate(':b is true'), true)
  t.equal(evaluate('1 is true'), false, 'IS never coerces')
  t.equal(evaluate('null is true'), false)
  t.equal(evaluate('null is not false'), true)
  t.equal(evaluate('case when 1 > 2 then 1 else 2 end'), 2n)
  t.equal(evaluate('case when 0 then 1 end'), null)
  t.equal(evaluate('case when 0.5 then 1 end'), 1n, 'conditions are true as \\if takes them')
  t.equal(evaluate('case when null then 1 else 2 end'), 2n)
  t.equal(evaluate('case when 0 then 1 / 0 when 1 then 2 else 1 / 0 end'), 2n, 'only the chosen branch runs')
  fails(t, 'case when 1 / 0 then 1 end', 'division by zero')
})

t.test('functions', async t => {
  t.equal(evaluate('abs(-17)'), 17n)
  t.equal(evaluate('abs(-17.5)'), 17.5)
  t.equal(evaluate('abs(-9223372036854775807 - 1)'), MIN, 'wraps as pgbench does')
  t.equal(evaluate('double(5432)'), 5432)
  t.equal(evaluate('exp(0)'), 1)
  t.equal(evaluate('ln(1)'), 0)
  t.equal(evaluate('ln(0)'), -Infinity)
  t.equal(evaluate('sqrt(16)'), 4)
  t.ok(Number.isNaN(evaluate('sqrt(-1)')))
  t.equal(evaluate('pi()'), Math.PI)
  t.equal(evaluate('pow(2, 10)'), 1024)
  t.equal(evaluate('power(2.0, -1)'), 0.5)
  t.equal(evaluate('pow(1, 0.0 / 0.0)'), 1, "C's pow, not Math.pow")
  t.equal(evaluate('pow(-1, 1e308 * 10)'), 1)
  t.equal(evaluate('int(5.4 + 3.8)'), 9n)
  t.equal(evaluate('int(2.5)'), 2n, 'rint: ties to even')
  t.equal(evaluate('int(-3.5)'), -4n)
  t.equal(evaluate('int(-9223372036854775808.0)'), MIN)
  fails(t, 'int(9223372036854775807.0)', 'double to int overflow for 9223372036854775808.000000')
  fails(t, 'int(1e19)', 'double to int overflow for 10000000000000000000.000000')
  fails(t, 'int(0.0 / 0.0)', 'double to int overflow for NaN')
  fails(t, 'int(-1e308 * 10)', 'double to int overflow for -Infinity')
  t.equal(evaluate('least(5, 4, 3, 2.1)'), 2.1)
  t.equal(evaluate('greatest(5, 4, 3, 2)'), 5n)
  t.equal(evaluate('least(1, null)'), null)
  t.ok(Number.isNaN(evaluate('least(1, 0.0 / 0.0)')), "pgbench's Min() lets a NaN through")
  t.equal(evaluate('least(0.0 / 0.0, 1)'), 1)
  fails(t, 'least(1, true)', 'cannot coerce boolean to int')
  fails(t, 'least(1.5, true)', 'cannot coerce boolean to double')
  fails(
    t,
    'greatest(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)',
    'too many function arguments, maximum is 16'
  )
  t.equal(evaluate('hash(10, 5432)'), -5817877081768721676n, "the example of pgbench's documentation")
  t.equal(evaluate('hash_murmur2(10)'), -5817877081768721676n, ':default_seed is 5432 here')
  t.equal(evaluate('hash_fnv1a(10, 5432)'), -7793829335365542153n)
  t.equal(evaluate('permute(0, 1)'), 0n)
  fails(t, 'permute(1, 0)', 'permute size parameter must be greater than zero')
  t.equal(evaluate('debug(5)'), 5n)
  t.equal(evaluate('debug(null)'), null, 'debug passes NULL')
  t.throws(
    () => compileExpression(parseExpression('hash(1)'))({ variables: new Variables(), random: new Random() }),
    { message: 'undefined variable "default_seed"' },
    'without a seed, hash needs :default_seed'
  )
})

t.test('debug writes what pgbench writes', async t => {
  /** @type {string[]} */
  const lines = []
  const ctx = {
    variables: new Variables(),
    random: new Random(),
    script: 1,
    command: 4,
    debug: (/** @type {string} */ line) => lines.push(line)
  }
  for (const text of ['debug(5)', 'debug(2.5)', 'debug(1e100)', 'debug(true)', 'debug(null)'])
    compileExpression(parseExpression(text))(ctx)
  t.same(lines, [
    'debug(script=1,command=5): int 5',
    'debug(script=1,command=5): double 2.5',
    'debug(script=1,command=5): double 1e+100',
    'debug(script=1,command=5): boolean true',
    'debug(script=1,command=5): null'
  ])
})

t.test('NULL in, NULL out, for all but IS and debug', async t => {
  for (const text of [
    'null + 1',
    '1 - null',
    'null * 2.5',
    'null / 0',
    'null % 0',
    'null < 1',
    'null & 1',
    'null << 1',
    'abs(null)',
    'double(null)',
    'exp(null)',
    'int(null)',
    'ln(null)',
    'sqrt(null)',
    'pow(null, 2)',
    'hash(null)',
    'hash_fnv1a(1, null)',
    'permute(null, 10)',
    'random(null, 5)',
    'random_gaussian(1, 10, null)',
    'greatest(1, null, 3)',
    'mod(null, 0)'
  ]) {
    t.equal(evaluate(text), null, text)
  }
  fails(t, 'null + 1 / 0', 'division by zero')
})

t.test('coercions', async t => {
  fails(t, 'true + 1', 'cannot coerce boolean to int')
  fails(t, 'true + 1.5', 'cannot coerce boolean to double')
  fails(t, 'double(true)', 'cannot coerce boolean to double')
  fails(t, 'int(false)', 'cannot coerce boolean to int')
  fails(t, 'abs(true)', 'cannot coerce boolean to double')
  t.equal(valueTypeName(null), 'null')
  t.equal(valueTypeName(1n), 'int')
  t.equal(valueTypeName(1.5), 'double')
  t.equal(valueTypeName(false), 'boolean')
  t.same(
    [rint(0.5), rint(1.5), rint(2.5), rint(-0.5), rint(-1.5), rint(2.4), rint(-2.6), rint(0.49999999999999994)],
    [0, 2, 2, -0, -2, 2, -3, 0]
  )
})

t.test('random functions check their arguments as pgbench does', async t => {
  fails(t, 'random(5, 1)', 'empty range given to random')
  fails(t, 'random(0, 9223372036854775807)', 'random range is too large')
  fails(t, 'random_gaussian(1, 10, 1.5)', 'gaussian parameter must be at least 2.000000 (not 1.500000)')
  fails(t, 'random_gaussian(5, 1, true)', 'empty range given to random')
  fails(t, 'random_gaussian(1, 10, true)', 'cannot coerce boolean to double')
  fails(t, 'random_exponential(1, 10, 0)', 'exponential parameter must be greater than zero (not 0.000000)')
  fails(t, 'random_zipfian(1, 10, 1.0)', 'zipfian parameter must be in range [1.001, 1000] (not 1.000000)')
  fails(t, 'random_zipfian(1, 10, 1000.5)', 'zipfian parameter must be in range [1.001, 1000] (not 1000.500000)')
  // Where pgbench would loop forever or return garbage, an error instead.
  fails(t, 'random_zipfian(1, 10, 0.0 / 0.0)', 'zipfian parameter must be in range [1.001, 1000] (not NaN)')
  fails(t, 'random_gaussian(1, 10, 1e308 * 10)', 'gaussian parameter must be at least 2.000000 (not Infinity)')
  fails(t, 'random_exponential(1, 10, 0.0 / 0.0)', 'exponential parameter must be greater than zero (not NaN)')
  t.equal(evaluate('random(7, 7)'), 7n)
  t.equal(evaluate('random_exponential(3, 9, 1e308 * 10)'), 3n, 'an infinite parameter always gives the lower bound')
})

t.test('variables', async t => {
  fails(t, ':nosuch + 1', 'undefined variable "nosuch"')
  t.equal(evaluate(':x', [['x', ' 12']]), 12n)
  t.equal(evaluate(':x', [['x', '1.5']]), 1.5)
  t.equal(evaluate(':x', [['x', 'ye']]), true)
  t.equal(evaluate(':x', [['x', 'OF']]), false)
  t.equal(evaluate(':x', [['x', 'Null']]), null)
  t.ok(Number.isNaN(evaluate(':x', [['x', 'nan']])))
  t.equal(evaluate(':x', [['x', '0x1p3']]), 8)
  t.throws(() => evaluate(':x', [['x', '12 ']]), { message: 'malformed variable "x" value: "12 "' })
  t.throws(() => evaluate(':x', [['x', '-']]), { message: 'invalid input syntax for type bigint: "-"' })
  t.throws(() => evaluate(':x', [['x', '99999999999999999999']]), {
    message: 'value "99999999999999999999" is out of range for type bigint'
  })
  t.throws(() => evaluate(':x', [['x', '1e400']]), { message: 'malformed variable "x" value: "1e400"' })
  t.throws(() => evaluate(':x', [['x', '']]), { message: 'malformed variable "x" value: ""' })

  const variables = new Variables([
    ['a', '1.50'],
    ['b', 3n]
  ])
  t.equal(variables.text('a'), '1.50', 'text keeps what was given')
  t.equal(variables.get('a'), 1.5)
  t.equal(variables.text('a'), '1.50')
  t.equal(variables.text('b'), '3')
  t.equal(variables.text('nosuch'), undefined)
  t.ok(variables.has('a'))
  t.notOk(variables.has('c'))
  variables.set('b', 0.1 + 0.2)
  t.equal(variables.text('b'), '0.3')
  variables.set('b', 'abc')
  t.equal(variables.text('b'), 'abc')
  t.throws(() => variables.get('b'), ScriptRuntimeError)
  const copy = variables.clone()
  copy.set('a', 2n)
  copy.set('c', true)
  t.equal(variables.get('a'), 1.5, 'a clone is independent')
  t.notOk(variables.has('c'))
  t.same([...copy.names()], ['a', 'b', 'c'])
  t.throws(() => variables.set('1x', 1n), { name: 'ScriptRuntimeError', message: 'invalid variable name: "1x"' })
  t.throws(() => variables.set('a-b', 1n, 'startup'), { message: 'startup: invalid variable name: "a-b"' })
  t.same(['aid', '_x9', 'é', 'Ab_1'].map(isValidVariableName), [true, true, true, true])
  t.same(['', '9a', 'a-b', 'a b', 'a:b'].map(isValidVariableName), [false, false, false, false, false])
})

t.test('the text a value puts into SQL, and its truth for \\if', async t => {
  t.same(
    [null, true, false, 0n, MIN, 1.5, 0.1 + 0.2, 1e15, 1e16, 1e-5, 1 / 3, -0, NaN, Infinity, -Infinity, 100.0].map(
      valueToText
    ),
    [
      'NULL',
      'true',
      'false',
      '0',
      '-9223372036854775808',
      '1.5',
      '0.3',
      '1e+15',
      '1e+16',
      '1e-05',
      '0.333333333333333',
      '-0',
      'NaN',
      'Infinity',
      '-Infinity',
      '100'
    ]
  )
  t.same([null, true, false, 0n, 2n, -1n, 0, -0, 0.5, NaN].map(valueToBoolean), [
    false,
    true,
    false,
    false,
    true,
    true,
    false,
    false,
    true,
    true
  ])
})

t.test("C's %.15g and %f, ties to even", async t => {
  t.equal(formatGeneral(1234567890123445), '1.23456789012344e+15', 'a tie goes to the even digit')
  t.equal(formatGeneral(1234567890123455), '1.23456789012346e+15')
  t.equal(formatGeneral(0.0001), '0.0001')
  t.equal(formatGeneral(0.00001), '1e-05')
  t.equal(formatGeneral(123456789012345), '123456789012345')
  t.equal(formatGeneral(999999999999999.5), '1e+15')
  t.equal(formatGeneral(5e-324), '4.94065645841247e-324')
  t.equal(formatGeneral(1e100), '1e+100')
  t.equal(formatGeneral(1.7976931348623157e308, 17), '1.7976931348623157e+308')
  t.equal(formatFixed(0.0078125), '0.007812', 'a tie goes to the even digit')
  t.equal(formatFixed(0.0234375), '0.023438', 'ties to even: 0.0234375 is exact')
  t.equal(formatFixed(0.0078135), '0.007813', 'not a tie: the double is just below')
  t.equal(formatFixed(-1e-9), '-0.000000')
  t.equal(formatFixed(2 ** 70), '1180591620717411303424.000000')
  t.equal(formatFixed(1.5, 0), '2')
  t.equal(formatFixed(NaN), 'NaN')
})

t.test('constant parts are computed once, their errors still at run time', async t => {
  const compiled = compileExpression(parseExpression('1 / 0 + :i'))
  t.throws(() => compiled({ variables: new Variables([['i', 1n]]), random: new Random() }), {
    message: 'division by zero'
  })
  const constant = compileExpression(parseExpression('2 * 3 + pi() * 0'))
  t.equal(constant({ variables: new Variables(), random: new Random() }), 6)
  const random = new Random(9n)
  const draws = compileExpression(parseExpression('random(1, 1000000) + 0 * 5'))
  const again = new Random(9n)
  t.equal(
    draws({ variables: new Variables(), random }),
    again.uniform(1n, 1000000n),
    'random functions are never folded'
  )
})
