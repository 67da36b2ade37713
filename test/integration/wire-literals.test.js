// Parameters written into the text as literals (-M simple), checked with
// random input against PostgreSQL 15: any string comes back exactly as
// sent, and a statement whose strings, quoted identifiers, comments and
// dollar quotes hold random text (placeholders included) gives the same
// result as through the extended protocol, which sends parameters apart.
// The inputs come from a seeded generator: a failure names its seed, and
// PGLOADGEN_FUZZ_SEED / PGLOADGEN_FUZZ_RUNS replay or widen the search.
import t from 'tap'
import { createTestDatabase } from '../helpers/pg.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { quoteLiteral, splitPlaceholders } from '../../lib/wire/literals.js'

const SEED = Number(process.env.PGLOADGEN_FUZZ_SEED ?? 20240611)
const RUNS = Number(process.env.PGLOADGEN_FUZZ_RUNS ?? 1500)
const BATCH = 100

/**
 * mulberry32: a small seeded generator of floats in [0, 1).
 * @param {number} seed
 */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

// Pieces that matter to quoting and to finding placeholders, and random
// characters from the whole of Unicode but NUL and lone surrogates (which
// PostgreSQL text cannot hold in any protocol).
const PIECES = [
  "'",
  "''",
  '"',
  '\\',
  "\\'",
  '\\\\',
  '$',
  '$1',
  '$2',
  '$10',
  '$$',
  '$q$',
  '$a$',
  '--',
  '/*',
  '*/',
  '\n',
  '\r',
  '\t',
  ' ',
  "E'",
  'e',
  'U&',
  ';',
  ':',
  '::text',
  '?',
  'é',
  '日本',
  '😀',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u00a0',
  '\u2028',
  '\ufeff',
  'NULL',
  'abc',
  '0',
  '-1'
]

/** @param {() => number} random */
function randomCodePoint(random) {
  const kind = random()
  if (kind < 0.5) return String.fromCodePoint(0x20 + Math.floor(random() * 0x5f))
  if (kind < 0.85) {
    const c = 1 + Math.floor(random() * (0xfffd - 0x800))
    return String.fromCodePoint(c >= 0xd800 && c <= 0xdfff ? c - 0x800 : c)
  }
  return String.fromCodePoint(0x10000 + Math.floor(random() * 0xfffff))
}

/** @param {() => number} random */
function randomString(random) {
  let s = ''
  const parts = Math.floor(random() * 16)
  for (let i = 0; i < parts; i++)
    s += random() < 0.6 ? PIECES[Math.floor(random() * PIECES.length)] : randomCodePoint(random)
  return s
}

/**
 * Sends the runs in corked batches; returns each one's rows or error code.
 * @param {WireConnection} connection
 * @param {Array<[{ name: string, text: string }, Array<string>]>} runs
 */
async function outcomes(connection, runs) {
  const all = []
  for (let i = 0; i < runs.length; i += BATCH) {
    connection.cork()
    const pending = runs
      .slice(i, i + BATCH)
      .map(([statement, params]) => connection.run(statement, params, { rows: true }))
    connection.uncork()
    for (const outcome of await Promise.allSettled(pending)) {
      all.push(
        outcome.status === 'fulfilled' ? outcome.value.rows : `error ${outcome.reason.code ?? outcome.reason.message}`
      )
    }
  }
  return all
}

const db = await createTestDatabase(t, 'wire_literals')
const simple = await WireConnection.connect(db.url, { protocol: 'simple' })
const extended = await WireConnection.connect(db.url, { protocol: 'extended' })
t.teardown(() => Promise.all([simple.close(), extended.close()]))

t.test('the split finds the placeholders the server sees', async t => {
  t.same(splitPlaceholders('SELECT $1, $2'), ['SELECT ', 1, ', ', 2, ''])
  t.same(splitPlaceholders("SELECT '$1', \"$1\", $$ $1 $$, $x$ $1 $x$, a$1, E'\\'$1', $1"), [
    "SELECT '$1', \"$1\", $$ $1 $$, $x$ $1 $x$, a$1, E'\\'$1', ",
    1,
    ''
  ])
  t.same(
    splitPlaceholders('SELECT 1 -- $1\n+ $2 -- $3\r+ $4'),
    ['SELECT 1 -- $1\n+ ', 2, ' -- $3\r+ ', 4, ''],
    'a line comment ends at a newline or a carriage return'
  )
  t.same(
    splitPlaceholders('SELECT /* $1 /* $2 */ $3 */ $4'),
    ['SELECT /* $1 /* $2 */ $3 */ ', 4, ''],
    'block comments nest'
  )
  t.same(
    splitPlaceholders("SELECT 'a\\' $1"),
    ["SELECT 'a\\' ", 1, ''],
    'a backslash does not escape a quote in a standard string'
  )
  t.same(splitPlaceholders('SELECT 1e5+$1'), ['SELECT 1e5+', 1, ''])
  t.same(splitPlaceholders('SELECT 1'), ['SELECT 1'], 'no placeholder: the text alone')
  t.equal(quoteLiteral("it's"), "'it''s'")
  t.equal(quoteLiteral('a\\b'), "E'a\\\\b'")
  t.equal(quoteLiteral(-3), '(-3)')
  t.equal(quoteLiteral(Number.NaN), "'NaN'")
  t.equal(quoteLiteral(null), 'NULL')
})

t.test(`random strings come back exactly (seed ${SEED}, ${RUNS} runs)`, async t => {
  const random = prng(SEED)
  const asText = { name: '', text: 'SELECT $1::text' }
  const pairs = { name: '', text: 'SELECT $2::text AS b, $1::text AS a, length($1::text) AS n' }
  /** @type {string[]} */
  const strings = []
  for (let i = 0; i < RUNS; i++) strings.push(randomString(random))
  const single = await outcomes(
    simple,
    strings.map(s => [asText, [s]])
  )
  const mismatches = strings.filter((s, i) => JSON.stringify(single[i]) !== JSON.stringify([[s]]))
  t.same(mismatches, [], `every string through SELECT $1::text in simple mode (seed ${SEED})`)
  const twoParams = strings.map(
    (s, i) => /** @type {[typeof pairs, string[]]} */ ([pairs, [s, strings[(i + 1) % strings.length]]])
  )
  const [viaSimple, viaExtended] = await Promise.all([outcomes(simple, twoParams), outcomes(extended, twoParams)])
  t.same(viaSimple, viaExtended, `two parameters: simple and extended agree on every run (seed ${SEED})`)
  t.ok(
    viaExtended.every(rows => Array.isArray(rows)),
    'and every run succeeded'
  )
})

t.test(`random text around the placeholders (seed ${SEED + 1}, ${RUNS} runs)`, async t => {
  const random = prng(SEED + 1)
  /** @type {Array<[{ name: string, text: string }, string[]]>} */
  const runs = []
  for (let i = 0; i < RUNS; i++) {
    const noise = randomString(random)
    const value = randomString(random)
    // The noise inside each kind of quoting, kept from closing it early.
    const inComment = noise.replaceAll('*', 'x').replaceAll('/', 'y')
    const inLine = noise.replaceAll('\n', ' ').replaceAll('\r', ' ')
    const inDollar = noise.replaceAll('$', 's')
    const inIdentifier = Array.from(noise).slice(0, 20).join('').replaceAll('"', '""') || 'x'
    const text =
      `SELECT $1::text AS "${inIdentifier}", ${quoteLiteral(noise)} AS quoted, ` +
      `$fz$${inDollar}$fz$ AS dollar /* ${inComment} */ -- ${inLine}\n, $2::text AS second`
    runs.push([{ name: '', text }, [value, noise]])
  }
  const [viaSimple, viaExtended] = await Promise.all([outcomes(simple, runs), outcomes(extended, runs)])
  const differing = runs
    .filter((_, i) => JSON.stringify(viaSimple[i]) !== JSON.stringify(viaExtended[i]))
    .map(([statement]) => statement.text)
  t.same(differing, [], `simple and extended agree on every statement (seed ${SEED + 1})`)
  const failed = viaExtended.filter(rows => !Array.isArray(rows))
  t.same(failed, [], 'and every statement ran')
})

t.test('numbers, bigints, booleans and null in simple mode match extended', async t => {
  const random = prng(SEED + 2)
  const statement = {
    name: '',
    text: 'SELECT $1::numeric::text, ($1::numeric * -1)::text, $2::bigint::text, $3::boolean::text, $4::int IS NULL'
  }
  /** @type {Array<[typeof statement, any[]]>} */
  const runs = []
  for (let i = 0; i < 500; i++) {
    const number =
      random() < 0.5 ? Math.floor((random() - 0.5) * 2 ** 40) : (random() - 0.5) * 10 ** Math.floor(random() * 12)
    const big = BigInt(Math.floor((random() - 0.5) * 2 ** 52)) * 1000n + BigInt(Math.floor(random() * 1000))
    runs.push([statement, [number, big, random() < 0.5, random() < 0.5 ? null : 1]])
  }
  const [viaSimple, viaExtended] = await Promise.all([outcomes(simple, runs), outcomes(extended, runs)])
  t.same(viaSimple, viaExtended, 'the same text for every value')
  t.ok(
    viaExtended.every(rows => Array.isArray(rows)),
    'and every run succeeded'
  )
})
