// The expression evaluator against the real pgbench (PostgreSQL 15's
// binary), wherever pgbench is deterministic: the same expressions are
// run by pgbench (-d shows each SQL statement after substitution, so a
// final SELECT ':v0|:v1...' gives every value as pgbench writes it) and by
// parseExpression/compileExpression with the variables and random state
// pgbench would have for the same --random-seed. Runtime errors, syntax
// errors (message and column), variables set with -D, \if's truth and the
// random draws of several clients are compared the same way.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ScriptRuntimeError, ScriptSyntaxError } from '../../lib/pgbench/errors.js'
import { compileExpression, valueToBoolean } from '../../lib/pgbench/expression/compile.js'
import { parseExpression } from '../../lib/pgbench/expression/parse.js'
import { Random, deriveRandomStates } from '../../lib/pgbench/random.js'
import { Variables } from '../../lib/pgbench/variables.js'
import { createTestDatabase } from '../helpers/pg.js'
import { requireTool } from '../helpers/tools.js'

const run = promisify(execFile)
const PGBENCH = '/usr/bin/pgbench'
requireTool(PGBENCH, 'postgresql-15')
const db = await createTestDatabase(t, 'pgbench_expr')
const directory = await mkdtemp(join(tmpdir(), 'pgloadgen-expr-'))
t.teardown(() => rm(directory, { recursive: true, force: true }))

let scripts = 0
let running = 0
/** @type {Array<() => void>} */
const waiting = []

/**
 * Runs pgbench once on a script (at most four at a time) and returns its
 * exit code and everything it wrote.
 * @param {string} script
 * @param {{ seed?: number | bigint, clients?: number, transactions?: number, defines?: Array<[string,
 *     string]> }} [options]
 */
async function pgbench(script, { seed = 1, clients = 1, transactions = 1, defines = [] } = {}) {
  while (running >= 4) await new Promise(resolve => waiting.push(() => resolve(undefined)))
  running++
  const file = join(directory, `script-${scripts++}.sql`)
  try {
    await writeFile(file, script)
    const args = [
      '-n',
      '-M',
      'simple',
      '-d',
      '-t',
      String(transactions),
      '-c',
      String(clients),
      `--random-seed=${seed}`,
      ...defines.flatMap(([name, value]) => ['-D', `${name}=${value}`]),
      '-f',
      file,
      db.url
    ]
    try {
      const { stdout, stderr } = await run(PGBENCH, args, { maxBuffer: 64 << 20 })
      return { code: 0, output: stderr + stdout }
    } catch (error) {
      const failure = /** @type {{ code: number, stdout: string, stderr: string }} */ (error)
      return { code: failure.code, output: failure.stderr + failure.stdout }
    }
  } finally {
    running--
    waiting.shift()?.()
  }
}

/**
 * What each client sent, in order: the text between the quotes of
 * SELECT '...';
 * @param {string} output
 * @returns {Map<number, string[]>}
 */
function sentByClient(output) {
  /** @type {Map<number, string[]>} */
  const sent = new Map()
  for (const match of output.matchAll(/^pgbench: client (\d+) sending SELECT '(.*)';$/gm)) {
    const client = Number(match[1])
    sent.set(client, [...(sent.get(client) ?? []), match[2]])
  }
  return sent
}

/**
 * The variables and random state pgbench gives client `client` of
 * `clients` for a base seed, with -D values set first.
 * @param {{ seed?: number | bigint, client?: number, clients?: number, defines?: Array<[string, string]> }} [options]
 */
function ourClient({ seed = 1, client = 0, clients = 1, defines = [] } = {}) {
  const states = deriveRandomStates(BigInt(seed), { clients })
  const variables = new Variables(defines)
  if (!variables.has('scale')) variables.set('scale', 1n)
  if (!variables.has('client_id')) variables.set('client_id', BigInt(client))
  if (!variables.has('default_seed')) variables.set('default_seed', states.defaultSeed)
  if (!variables.has('random_seed')) variables.set('random_seed', states.randomSeed)
  /** @type {string[]} */
  const debugLines = []
  return {
    variables,
    random: states.clients[client],
    debug: (/** @type {string} */ line) => debugLines.push(line),
    debugLines
  }
}

/**
 * The value of each expression as pgbench's \set vN would leave it, as SQL
 * text, evaluated in order in one client (later ones may use earlier ones).
 * @param {string[]} expressions
 * @param {ReturnType<typeof ourClient>} ctx
 */
function ourValues(expressions, ctx) {
  return expressions.map((expression, i) => {
    ctx.variables.set(`v${i}`, compileExpression(parseExpression(expression))({ ...ctx, command: i }))
    return /** @type {string} */ (ctx.variables.text(`v${i}`))
  })
}

/**
 * Runs expressions as \set v0 ... in one pgbench transaction and in ours,
 * and compares every value.
 * @param {import('tap').Test} t
 * @param {string[]} expressions
 * @param {{ seed?: number }} [options]
 */
async function compareValues(t, expressions, { seed = 1 } = {}) {
  const script =
    expressions.map((expression, i) => `\\set v${i} ${expression}\n`).join('') +
    `SELECT '${expressions.map((_, i) => `:v${i}`).join('|')}';\n`
  const { code, output } = await pgbench(script, { seed })
  t.equal(code, 0, 'pgbench evaluates them all')
  const sent = sentByClient(output).get(0)?.[0]?.split('|') ?? []
  t.equal(sent.length, expressions.length, 'one value each')
  const ctx = ourClient({ seed })
  const ours = ourValues(expressions, ctx)
  expressions.forEach((expression, i) => t.equal(ours[i], sent[i], expression))
  const debugOutput = output.split('\n').filter(line => line.startsWith('debug('))
  t.same(ctx.debugLines, debugOutput, 'debug() writes what pgbench writes')
}

t.test('values: arithmetic, doubles and their text, comparisons, logic', async t => {
  await compareValues(
    t,
    [
      '1 + 2',
      '7 / 2',
      '-7 / 2',
      '7 % 3',
      '-7 % 3',
      '7 % -3',
      '5 / -1',
      '5 % -1',
      'mod(54, 32)',
      'mod(-54, 32)',
      '9223372036854775807',
      '-9223372036854775808',
      '- 9223372036854775808',
      '-9223372036854775807 - 1',
      '(-9223372036854775807 - 1) / 2',
      '(-9223372036854775807 - 1) % -1',
      '2 * 3 + 4',
      '2 + 3 * 4',
      '(2 + 3) * 4',
      '10 - 2 - 3',
      '100 / 10 / 5',
      '2 * -3',
      '- - 5',
      '+5',
      '~5',
      '~0',
      '~-1',
      '5 & 3',
      '5 | 3',
      '5 # 3',
      '1 << 62',
      '1 << 63',
      '1 << 64',
      '1 << 65',
      '1 << -1',
      '-16 >> 2',
      '-1 >> 70',
      '7 >> -63',
      '~1 + 2',
      '~1 | 2',
      '1 + 2 & 3',
      '5 & 3 = 1',
      '5.5 & 3',
      '0.1 + 0.2',
      '1.5 * 2',
      '7.0 / 2',
      '1 / 3.0',
      '2.0 / 3',
      '1e15',
      '1e16',
      '1e14 + 0.5',
      '123456789012345678.0',
      '1e-5',
      '0.0001',
      '0.00001234',
      '1.0e300 * 1e300',
      '-1.0e300 * 1e300',
      '0.0 / 0.0',
      '5.0 / 0',
      '-5 / 0.0',
      '-0.0',
      '-1 * 0.0',
      '3.0 % 2',
      '5.5 % 2',
      '4.5 % 2',
      '-2.5 % 10',
      '.5',
      '5.',
      '1.e3',
      '1E+3',
      '01',
      '007.5',
      'double(5432)',
      'double(9223372036854775807)',
      'int(5.4 + 3.8)',
      'int(-2.5)',
      'int(2.5)',
      'int(3.5)',
      'int(-0.5)',
      'int(9.2e18)',
      'int(-9223372036854775808.0)',
      'pi()',
      'sqrt(2.0)',
      'sqrt(-1)',
      'exp(1.0)',
      'exp(710)',
      'exp(-1000)',
      'ln(2.718281828459045)',
      'ln(0)',
      'ln(-1)',
      'ln(10)',
      'pow(2.0, 10)',
      'power(2, 0.5)',
      'pow(-8, 1.0 / 3)',
      'pow(0, -1)',
      'pow(1, 0.0 / 0.0)',
      'pow(-1, 1e308 * 10)',
      'pow(0.0 / 0.0, 0)',
      'pow(-2, 3)',
      'pow(10, -2)',
      'abs(-17)',
      'abs(-17.5)',
      'abs(-9223372036854775807 - 1)',
      'abs(-1 * 0.0)',
      '1 < 2',
      '2 <= 2',
      '3 > 2',
      '3 >= 4',
      '1 = 1.0',
      '1 <> 1',
      '1 != 2',
      '0.1 + 0.2 = 0.3',
      '0.0 / 0.0 = 0.0 / 0.0',
      '0.0 / 0.0 <> 0.0 / 0.0',
      '9007199254740993 = 9007199254740992.0',
      '9007199254740993 = 9007199254740992',
      'true and false',
      'true or false',
      'not true',
      'not false',
      'null and true',
      'true and null',
      'false and null',
      'null or true',
      'true or null',
      'false or null',
      'not null',
      'null is null',
      '1 is null',
      'null is not null',
      '1 isnull',
      '1 notnull',
      'null notnull',
      'true is true',
      'false is not true',
      'null is true',
      'null is not false',
      '1 is true',
      '1 < 2 is true',
      '1 isnull isnull',
      'not 1 = 2',
      'not 1 < 2 and true',
      'null and 1 / 0',
      'false and 1',
      'true or 1',
      'case when 1 > 2 then 1 else 2 end',
      'case when 0 then 1 end',
      'case when 1 then 2 when 2 then 3 end',
      'case when null then 1 else 2 end',
      'case when 0.0 then 1 when 0.5 then 2 end',
      'CASE WHEN false THEN 1 WHEN true THEN 2 ELSE 3 END',
      'case when 1 then case when 0 then 5 else 6 end end',
      'case when 0.0 / 0.0 then 1 else 2 end',
      'null',
      'null + 1',
      'abs(null)',
      'least(1, null, 3)',
      'hash(null)',
      'int(null)',
      'random(null, 5)',
      'null = null',
      'true',
      'false',
      'TRUE',
      'NuLL',
      'least(5, 4, 3, 2.1)',
      'greatest(5, 4, 3, 2)',
      'least(1)',
      'greatest(1, 2.5)',
      'least(, 3, 1)',
      'least(1, 0.0 / 0.0)',
      'least(0.0 / 0.0, 1)',
      'greatest(0.0, -1 * 0.0)',
      'greatest(-1 * 0.0, 0.0)',
      'least(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0)',
      'random(1, 10.7)',
      ':v0 + :v1',
      ':v3 * 1.5',
      ':client_id',
      ':scale',
      ':default_seed',
      ':random_seed',
      '1 + \\\n  2',
      'debug(5432.1)',
      'debug(null)',
      'debug(true)',
      'debug(-7)',
      'debug(1e100)',
      'debug(0.0 / 0.0)'
    ],
    { seed: 42 }
  )
})

t.test('values: doubles written with 15 significant digits, ties to even', async t => {
  const random = new Random(7n)
  const doubles = [
    '0.0078125',
    '1234567890123445.0',
    '1234567890123455.0',
    '0.5',
    '2.5e-7',
    '123456789012345.5',
    '999999999999999.5',
    '9999999999999995.0',
    '1e21',
    '1e22',
    '0.000123456789012345',
    '0.0001',
    '0.00001',
    '2.2250738585072014e-308'
  ]
  for (let i = 0; i < 120; i++) {
    const magnitude = 10 ** (random.uniformNumber(0, 60) - 30)
    const x = random.double() * magnitude * (random.double() < 0.5 ? -1 : 1)
    doubles.push(`${x.toPrecision(17)} * 1.0`)
  }
  for (let i = 0; i < 40; i++) doubles.push(`${random.uniformNumber(0, 2 ** 40)} / 1024.0`)
  await compareValues(t, doubles)
})

t.test('values: hash functions and permute, exactly', async t => {
  const random = new Random(11n)
  const int64 = () => BigInt.asIntN(64, random.uint64())
  const expressions = [
    'hash(10, 5432)',
    'hash_fnv1a(10, 5432)',
    'hash_murmur2(10, 5432)',
    'hash(0)',
    'hash_fnv1a(0)',
    'hash(-1, -1)',
    'hash_fnv1a(9223372036854775807, 0)',
    'hash_fnv1a(-9223372036854775808, 123)',
    'hash(1.5, 2)',
    'permute(0, 4)',
    'permute(5, 1)',
    'permute(-1, 10)',
    'permute(3, 2, 0)',
    'permute(9223372036854775807, 9223372036854775807, 1)',
    'permute(12345, 67108864, 9)',
    'permute(12345, 67108865, 9)'
  ]
  for (let i = 0; i < 60; i++) {
    expressions.push(`hash_fnv1a(${int64()}, ${int64()})`, `hash_murmur2(${int64()}, ${int64()})`, `hash(${int64()})`)
  }
  for (let i = 0; i < 150; i++) {
    const bits = random.uniformNumber(1, 62)
    const size = BigInt(random.uniformNumber(1, 2 ** 20)) << BigInt(Math.max(0, bits - 20))
    expressions.push(`permute(${int64()}, ${size + BigInt(random.uniformNumber(0, 3))}, ${int64()})`)
  }
  for (let i = 0; i < 20; i++)
    expressions.push(`permute(${random.uniformNumber(0, 100)}, ${random.uniformNumber(1, 12)})`)
  await compareValues(t, expressions, { seed: 3 })
})

t.test('values: random functions draw what pgbench draws for the same seed', async t => {
  const expressions = []
  for (let i = 0; i < 15; i++) {
    expressions.push(
      'random(1, 10)',
      'random(-5000, 5000)',
      'random(1, 100000 * :scale)',
      'random(5, 5)',
      'random(0, 9223372036854775806)',
      'random(-9223372036854775808, -2)',
      'random_exponential(1, 10, 3.0)',
      'random_exponential(1, 100000, 0.5)',
      'random_exponential(-100, 100, 1e308 * 10)',
      'random_gaussian(1, 10, 2.5)',
      'random_gaussian(1, 1000000, 5)',
      'random_zipfian(1, 10, 1.5)',
      'random_zipfian(1, 1000000, 1.07)',
      'random_zipfian(1, 100, 3)',
      'random_zipfian(7, 7, 2)',
      'permute(random(1, 1000), 1000)'
    )
  }
  await compareValues(t, expressions, { seed: 12345 })
  await compareValues(t, expressions, { seed: 0 })
})

/**
 * The message pgbench logged for a failed \set r, or undefined.
 * @param {string} output
 */
function runtimeError(output) {
  const lines = output.split('\n')
  const aborted = lines.findIndex(line => /client 0 aborted in command \d+ \(set\)/.test(line))
  if (aborted < 0) return { aborted: false, message: undefined }
  const before = lines[aborted - 1]
  return {
    aborted: true,
    message: before.startsWith('pgbench: error: ') ? before.slice('pgbench: error: '.length) : undefined
  }
}

/**
 * The message our evaluator throws for an expression, or its value.
 * @param {string} expression
 * @param {Array<[string, string]>} [defines]
 */
function ourError(expression, defines = []) {
  try {
    return { value: compileExpression(parseExpression(expression))(ourClient({ defines })) }
  } catch (error) {
    if (error instanceof ScriptRuntimeError) return { message: error.message }
    throw error
  }
}

t.test("runtime errors: pgbench's messages", async t => {
  const expressions = [
    '5 / 0',
    '5 % 0',
    'mod(5, 0)',
    '5 % 0.4',
    '(-9223372036854775807 - 1) / -1',
    '9223372036854775807 + 1',
    '-9223372036854775807 - 2',
    '9223372036854775807 * 2',
    '-(-9223372036854775808)',
    'int(1e19)',
    'int(-1e19)',
    'int(0.0 / 0.0)',
    'int(9223372036854775807.0)',
    'int(1e308 * 10)',
    'true + 1',
    'true + 1.0',
    '1.0 + true',
    'true = true',
    'true < false',
    'not 1',
    '1 and true',
    'true and 1',
    '1 or true',
    'false or 1.5',
    'double(true)',
    'int(true)',
    'sqrt(true)',
    'exp(false)',
    'pow(true, 1)',
    '1 << true',
    'hash(true)',
    'permute(1, 0)',
    'permute(1, -5, 3)',
    'permute(true, 5)',
    ':nosuch',
    ':1x',
    'least(1, true)',
    'greatest(true)',
    'least(1.5, true)',
    'least(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)',
    '1 < 2 is null < 3',
    'random(5, 1)',
    'random(-9223372036854775808, 9223372036854775807)',
    'random(0, 9223372036854775807)',
    'random(true, 5)',
    'random_gaussian(1, 10, 1.5)',
    'random_gaussian(5, 1, true)',
    'random_gaussian(1, 10, true)',
    'random_exponential(1, 10, 0)',
    'random_exponential(1, 10, -1)',
    'random_zipfian(1, 10, 1.0)',
    'random_zipfian(1, 10, 1001)',
    'random_zipfian(1, 10, 1000.5)',
    'random_zipfian(1, 10, 0.5)',
    'random_zipfian(0, 9223372036854775807, 1.5)',
    'case when 1 then 1 / 0 end',
    'null + 1 / 0',
    'abs(-5 / 0)'
  ]
  const results = await Promise.all(expressions.map(expression => pgbench(`\\set r ${expression}\nSELECT 1;\n`)))
  expressions.forEach((expression, i) => {
    const theirs = runtimeError(results[i].output)
    t.ok(theirs.aborted, `pgbench fails on ${expression}`)
    t.same(ourError(expression), { message: theirs.message }, expression)
  })
})

t.test('variables from -D text: read as pgbench reads them, written back unchanged', async t => {
  const texts = [
    '12',
    ' 12',
    '12 ',
    '+7',
    '-',
    '   ',
    '007',
    'yes',
    'Y',
    'n',
    'of',
    'OFF',
    'o',
    'on',
    'TRUE',
    'tr',
    'f',
    'null',
    'NULL ',
    '1.5',
    ' 1.5',
    '1.50',
    '1e3',
    '0x1p3',
    '0x10',
    'inf',
    '-Infinity',
    'nan',
    'nan(12)',
    '1e400',
    '1e-310',
    '99999999999999999999',
    '-9223372036854775808',
    'abc',
    '.5',
    '5.',
    '1e',
    '0x'
  ]
  const results = await Promise.all(
    texts.map(text => pgbench("\\set r :x\nSELECT ':r|:x';\n", { defines: [['x', text]] }))
  )
  texts.forEach((text, i) => {
    const { output } = results[i]
    const sent = sentByClient(output).get(0)?.[0]
    const ours = ourError(':x', [['x', text]])
    if (sent !== undefined) {
      const variables = new Variables([['x', text]])
      variables.set('r', /** @type {import('../../lib/pgbench/expression/values.js').Value} */ (ours.value))
      t.equal(`${variables.text('r')}|${variables.text('x')}`, sent, JSON.stringify(text))
    } else {
      t.same(ours, { message: runtimeError(output).message }, JSON.stringify(text))
    }
  })
})

t.test(
  'an empty text value (from \\gset; -D refuses one) fails as in pgbench, with a message pgbench does not give',
  async t => {
    const { output } = await pgbench("SELECT '' AS x \\gset\n\\set r :x\nSELECT 1;\n")
    t.same(runtimeError(output), { aborted: true, message: undefined })
    t.same(ourError(':x', [['x', '']]), { message: 'malformed variable "x" value: ""' })
  }
)

t.test('\\if and \\elif take non-zero numbers as true', async t => {
  const conditions = [
    '0',
    '1',
    '-1',
    '0.0',
    '0.5',
    '-0.0',
    '0.0 / 0.0',
    'null',
    'true',
    'false',
    '1 = 1',
    'case when 1 then null end'
  ]
  const script =
    conditions
      .map((condition, i) => `\\if ${condition}\n\\set b${i} 1\n\\elif true\n\\set b${i} 0\n\\endif\n`)
      .join('') + `SELECT '${conditions.map((_, i) => `:b${i}`).join('|')}';\n`
  const { output } = await pgbench(script)
  const sent = sentByClient(output).get(0)?.[0]?.split('|') ?? []
  const ctx = ourClient()
  conditions.forEach((condition, i) => {
    t.equal(valueToBoolean(compileExpression(parseExpression(condition))(ctx)) ? '1' : '0', sent[i], condition)
  })
})

t.test('syntax errors: message and column as pgbench reports them', async t => {
  const expressions = [
    'not a and b',
    'abs(1,2)',
    'foo(1)',
    '1 < 2 < 3',
    '1 @ 2',
    'foo @ 99999999999999999999',
    '1 +',
    '(1',
    '9223372036854775808',
    '-(9223372036854775808)',
    'least()',
    'hash()',
    'hash(1,2,3)',
    'permute(1)',
    'permute(1,2,3,4)',
    'pi(1)',
    '1 2',
    'abs(1',
    'case when 1 end',
    'x is 1',
    'power(1)',
    '1e400',
    '5e-324',
    '99999999999999999999',
    ':',
    '.',
    '!',
    '1 = 2 = 3',
    '1 < 2 >= 3',
    'not',
    'case end',
    'case when 1 then 2 else 3',
    'least(,)',
    'least(1,)',
    'least(,,1)',
    'CASE WHEN 1 THEN 2 WHEN END',
    ') 1',
    '1 is not 5',
    'isnull',
    'true(1)',
    'ABS(-1',
    ':x +* 2',
    '1 ! 2',
    'a.b',
    'random(1,2) random(3,4)',
    '1 isnull 2',
    '1e',
    '1.5.5',
    '1 + + @',
    'abs(1, 2) 1e999 $',
    '1 \\ 2',
    'é(1)',
    'x = 😀'
  ]
  const results = await Promise.all(expressions.map(expression => pgbench(`\\set r ${expression}\n`)))
  expressions.forEach((expression, i) => {
    const { code, output } = results[i]
    t.equal(code, 1, `pgbench refuses ${expression}`)
    const message = /:1: (.*) in command "set"$/m.exec(output)?.[1]
    const caretLine = output.split('\n').find(line => line.endsWith('^ error found here')) ?? ''
    let ours
    try {
      parseExpression(expression)
    } catch (error) {
      if (error instanceof ScriptSyntaxError) ours = error
      else throw error
    }
    t.equal(ours?.message, message, expression)
    // pgbench counts bytes from the backslash of "\set r "; compare ASCII lines only.
    if (/^[\x20-\x7e]*$/.test(expression)) {
      t.equal(ours?.column, caretLine.indexOf('^') - '\\set r '.length, `column of ${expression}`)
    }
  })
})

t.test("several clients: each draws what pgbench's client of the same id draws", async t => {
  const expressions = [
    'random(1, 1000000000)',
    'random_gaussian(1, 1000, 2.5)',
    'random_exponential(1, 1000, 2)',
    'random_zipfian(1, 1000, 1.1)',
    'permute(:client_id, 100)',
    ':default_seed',
    ':random_seed',
    ':client_id'
  ]
  const script =
    expressions.map((expression, i) => `\\set v${i} ${expression}\n`).join('') +
    `SELECT '${expressions.map((_, i) => `:v${i}`).join('|')}';\n`
  for (const seed of [5n, 18446744073709551615n]) {
    const clients = 4
    const transactions = 3
    const { code, output } = await pgbench(script, { seed, clients, transactions })
    t.equal(code, 0)
    const sent = sentByClient(output)
    for (let client = 0; client < clients; client++) {
      const ctx = ourClient({ seed, client, clients })
      const ours = Array.from({ length: transactions }, () => ourValues(expressions, ctx).join('|'))
      t.same(ours, sent.get(client), `seed ${seed}, client ${client}`)
    }
  }
})
