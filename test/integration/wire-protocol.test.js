// The wire client's three query protocols (pgbench's -M prepared, extended,
// simple) against PostgreSQL 15 and an embedded PostgreSQL 18: the same
// statements with parameters of every type give the same results in each;
// prepared keeps named statements on the server, the others leave none;
// rows are captured on request; the transaction status follows BEGIN, a
// failure and ROLLBACK; simpleQuery runs several statements; server errors
// carry their fields.
import t from 'tap'
import { createTestDatabase } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { WireConnection, ServerError } from '../../lib/wire/wire-connection.js'

const PROTOCOLS = /** @type {const} */ (['prepared', 'extended', 'simple'])

const pg15 = await createTestDatabase(t, 'wire_protocol')
const pg18 = await startEmbedded(t)
const servers = [
  { server: 'PostgreSQL 15', url: pg15.url, version: /^15\./ },
  { server: 'PostgreSQL 18', url: pg18.url, version: /^18\./ }
]

/**
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {'prepared' | 'extended' | 'simple'} protocol
 */
async function connect(t, url, protocol) {
  const connection = await WireConnection.connect(url, { protocol, applicationName: 'pgloadgen-wire-test' })
  t.teardown(() => connection.close())
  return connection
}

// [what, value, the text PostgreSQL gives back for value::text]
/** @type {Array<[string, string | number | bigint | boolean | null, string | null]>} */
const VALUES = [
  ['a plain string', 'hello', 'hello'],
  ['the empty string', '', ''],
  ['single quotes', "it's 'quoted'", "it's 'quoted'"],
  ['backslashes', 'C:\\temp\\new \\\\ \\', 'C:\\temp\\new \\\\ \\'],
  ['a quote after a backslash', "a\\'b", "a\\'b"],
  ['double quotes', 'say "hi"', 'say "hi"'],
  ['unicode', 'héllo ✓ 日本語 😀', 'héllo ✓ 日本語 😀'],
  ['placeholders and dollar quotes in the value', "$1 $2 $$ $q$ -- /* '", "$1 $2 $$ $q$ -- /* '"],
  ['control characters', 'a\nb\tc\rd', 'a\nb\tc\rd'],
  ['an integer', 42, '42'],
  ['a negative integer', -7, '-7'],
  ['zero', 0, '0'],
  ['a fraction', 3.25, '3.25'],
  ['a negative fraction', -0.5, '-0.5'],
  ['a bigint beyond 2^53', 9007199254740993n, '9007199254740993'],
  ['a negative bigint', -9007199254740993n, '-9007199254740993'],
  ['true', true, 'true'],
  ['false', false, 'false'],
  ['null', null, null]
]

// Statements whose results must not depend on the protocol: typed
// parameters, repeated and reordered placeholders, and "$1" where it is no
// placeholder (strings, identifiers, dollar quotes, comments).
/**
 * @type {Array<{ statement: { name: string, text: string }, params: Array<string | number | bigint | boolean | null>,
 *     rows: Array<Array<string | null>> }>}
 */
const STATEMENTS = [
  { statement: { name: 'wt_int', text: 'SELECT $1::int + 1' }, params: [41], rows: [['42']] },
  { statement: { name: 'wt_neg_int', text: 'SELECT $1::int * 2' }, params: [-21], rows: [['-42']] },
  { statement: { name: 'wt_numeric', text: 'SELECT $1::numeric * 2' }, params: [1.25], rows: [['2.50']] },
  {
    statement: { name: 'wt_bigint', text: 'SELECT $1::bigint - 1' },
    params: [9007199254740993n],
    rows: [['9007199254740992']]
  },
  { statement: { name: 'wt_bool', text: 'SELECT NOT $1::boolean' }, params: [false], rows: [['t']] },
  {
    statement: { name: 'wt_null', text: "SELECT $1::int IS NULL, coalesce($2::text, 'none')" },
    params: [null, null],
    rows: [['t', 'none']]
  },
  {
    statement: { name: 'wt_order', text: 'SELECT $2::text || $1::text || $2::text' },
    params: ['b', "'a"],
    rows: [["'ab'a"]]
  },
  {
    statement: {
      name: 'wt_ten',
      text:
        'SELECT $10::text || $1::text || $2::int + $3::int + $4::int + $5::int + $6::int + $7::int + ' +
        '$8::int + $9::int'
    },
    params: ['one', 2, 3, 4, 5, 6, 7, 8, 9, 'ten'],
    rows: [['tenone44']]
  },
  {
    statement: {
      name: 'wt_not_placeholders',
      text:
        "SELECT $1::text AS \"$1 col\", '$1' AS s, E'\\'$1' AS e, $$ $1 $$ AS d, $q$ $1 '$q$ AS q, " +
        '1 AS a$1 -- $1 in a comment\n /* $1 /* nested $1 */ $1 */'
    },
    params: ['v'],
    rows: [['v', '$1', "'$1", ' $1 ', " $1 '", '1']]
  },
  {
    statement: { name: 'wt_in_where', text: 'SELECT count(*) FROM generate_series(1, 10) g WHERE g > $1 AND g <= $2' },
    params: [3, 8n],
    rows: [['5']]
  }
]

for (const { server, url, version } of servers) {
  t.test(server, async t => {
    const probe = await connect(t, url, 'prepared')
    t.match((await probe.run({ name: '', text: 'SHOW server_version' }, [])).first, version, `talking to ${server}`)

    for (const protocol of PROTOCOLS) {
      t.test(`-M ${protocol}: parameters of every type`, async t => {
        const connection = await connect(t, url, protocol)
        t.equal(connection.protocol, protocol, 'the connection reports its protocol')
        const asText = { name: 'wt_as_text', text: 'SELECT $1::text' }
        for (const [what, value, expected] of VALUES) {
          const result = await connection.run(asText, [value])
          t.equal(result.first, expected, what)
          t.equal(result.rowCount, 1, `${what}: one row`)
          t.equal(result.command, 'SELECT', `${what}: a SELECT`)
        }
        for (const { statement, params, rows } of STATEMENTS) {
          const result = await connection.run(statement, params, { rows: true })
          t.same(result.rows, rows, statement.name)
        }
        const result = await connection.run(STATEMENTS[8].statement, ['v'], { rows: true })
        t.same(
          result.fields,
          ['$1 col', 's', 'e', 'd', 'q', 'a$1'],
          'column names, "$1" in a quoted identifier included'
        )
      })

      t.test(`-M ${protocol}: rows on request`, async t => {
        const connection = await connect(t, url, protocol)
        const values = {
          name: 'wt_values',
          text:
            "SELECT * FROM (VALUES (1, 'a', NULL), (2, NULL, 'x'), ($1::int, 'c', 'z')) AS v(id, name, " +
            'other) ORDER BY id'
        }
        const all = await connection.run(values, [3], { rows: true })
        t.same(all.fields, ['id', 'name', 'other'], 'the column names')
        t.same(
          all.rows,
          [
            ['1', 'a', null],
            ['2', null, 'x'],
            ['3', 'c', 'z']
          ],
          'every row, NULL as null'
        )
        t.equal(all.rowCount, 3)
        t.equal(all.first, '1')
        const lean = await connection.run(values, [3])
        t.equal(lean.first, '1', 'without rows: the first value')
        t.equal(lean.rowCount, 3, 'without rows: the row count')
        t.notOk('rows' in lean || 'fields' in lean, 'without rows: no rows are kept')
        const none = await connection.run({ name: 'wt_none', text: 'SELECT 1 AS one WHERE $1::boolean' }, [false], {
          rows: true
        })
        t.same([none.fields, none.rows, none.first], [['one'], [], null], 'no rows: the columns still named')
        const nullFirst = await connection.run({ name: 'wt_null_first', text: 'SELECT NULL::int, 2' }, [])
        t.equal(nullFirst.first, null, 'a NULL first value is null')
      })

      t.test(`-M ${protocol}: command tags and row counts`, async t => {
        const connection = await connect(t, url, protocol)
        const table = `wt_tags_${protocol}`
        const steps = /** @type {Array<[string, Array<string | number>, string, number]>} */ ([
          [`CREATE TEMP TABLE ${table} (id int PRIMARY KEY, v text)`, [], 'CREATE TABLE', 0],
          [`INSERT INTO ${table} SELECT g, $1::text FROM generate_series(1, 3) g`, ['x'], 'INSERT', 3],
          [`UPDATE ${table} SET v = $1 WHERE id >= $2`, ['y', 2], 'UPDATE', 2],
          [`SELECT * FROM ${table}`, [], 'SELECT', 3],
          [`DELETE FROM ${table} WHERE id = $1`, [1], 'DELETE', 1],
          ['BEGIN', [], 'BEGIN', 0],
          ['COMMIT', [], 'COMMIT', 0]
        ])
        for (const [text, params, command, rowCount] of steps) {
          const result = await connection.run({ name: '', text }, params)
          t.same([result.command, result.rowCount], [command, rowCount], text)
        }
      })

      t.test(`-M ${protocol}: transaction status through BEGIN, a failure and ROLLBACK`, async t => {
        const connection = await connect(t, url, protocol)
        t.equal(connection.transactionStatus, 'I', 'idle after connecting')
        await connection.run({ name: 'wt_begin', text: 'BEGIN' }, [])
        t.equal(connection.transactionStatus, 'T', 'in a transaction after BEGIN')
        await connection.run({ name: 'wt_one', text: 'SELECT $1::int' }, [1])
        t.equal(connection.transactionStatus, 'T', 'still in it after a statement')
        const failure = await connection.run({ name: 'wt_fail', text: 'SELECT 1 / $1::int' }, [0]).catch(err => err)
        t.ok(failure instanceof ServerError, 'the failed statement rejects with a ServerError')
        t.equal(failure.code, '22012')
        t.equal(connection.transactionStatus, 'E', 'in a failed transaction')
        const refused = await connection.run({ name: 'wt_one', text: 'SELECT $1::int' }, [1]).catch(err => err)
        t.equal(refused.code, '25P02', 'later statements are refused')
        t.equal(connection.transactionStatus, 'E')
        await connection.simpleQuery('ROLLBACK')
        t.equal(connection.transactionStatus, 'I', 'idle after ROLLBACK')
        t.equal((await connection.run({ name: 'wt_one', text: 'SELECT $1::int' }, [5])).first, '5', 'usable afterwards')
      })
    }

    t.test('prepared parses a named statement once; extended and simple leave none', async t => {
      const listPrepared = {
        name: '',
        text: 'SELECT name, statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements ORDER BY name'
      }
      const prepared = await connect(t, url, 'prepared')
      for (let i = 0; i < 3; i++)
        t.equal((await prepared.run({ name: 'wt_reuse', text: 'SELECT $1::int + 100' }, [i])).first, String(100 + i))
      // Same name, another text: a reused statement still runs the first text.
      t.equal(
        (await prepared.run({ name: 'wt_reuse', text: 'SELECT $1::int + 200' }, [7])).first,
        '107',
        'the name is not parsed again'
      )
      const kept = (await prepared.run(listPrepared, [], { rows: true })).rows
      t.same(kept, [['wt_reuse', 'SELECT $1::int + 100', '4']], 'one prepared statement on the server, run four times')

      for (const protocol of /** @type {const} */ (['extended', 'simple'])) {
        const connection = await connect(t, url, protocol)
        t.equal((await connection.run({ name: 'wt_reuse', text: 'SELECT $1::int + 100' }, [1])).first, '101')
        t.equal(
          (await connection.run({ name: 'wt_reuse', text: 'SELECT $1::int + 200' }, [1])).first,
          '201',
          `${protocol}: the text is sent every time`
        )
        t.same(
          (await connection.run(listPrepared, [], { rows: true })).rows,
          [],
          `${protocol}: no prepared statement on the server`
        )
      }
    })

    t.test('a named statement whose Parse failed is parsed again next time', async t => {
      const connection = await connect(t, url, 'prepared')
      const late = { name: 'wt_late', text: 'SELECT count(*) FROM wt_later_table' }
      const failure = await connection.run(late, []).catch(err => err)
      t.equal(failure.code, '42P01', 'the table does not exist yet')
      await connection.simpleQuery('CREATE TEMP TABLE wt_later_table (a int)')
      t.equal((await connection.run(late, [])).first, '0', 'parsed again once the table exists')
    })

    t.test('simpleQuery: several statements, and an error', async t => {
      const connection = await connect(t, url, 'prepared')
      const results = await connection.simpleQuery(
        'CREATE TEMP TABLE wt_multi (a int); INSERT INTO wt_multi VALUES (1), (2); SELECT a FROM wt_multi ORDER BY ' +
          'a; UPDATE wt_multi SET a = a + 1',
        { rows: true }
      )
      t.same(
        results.map(r => [r.command, r.rowCount]),
        [
          ['CREATE TABLE', 0],
          ['INSERT', 2],
          ['SELECT', 2],
          ['UPDATE', 2]
        ],
        'a result per statement'
      )
      t.same(results[2].rows, [['1'], ['2']], "the SELECT's rows")
      t.same(results[2].fields, ['a'])
      t.same(results[0].rows, [], 'no rows for the others')
      const lean = await connection.simpleQuery('SELECT 1; SELECT 2, 3')
      t.same(
        lean.map(r => r.first),
        ['1', '2'],
        'the first value of each'
      )
      t.notOk('rows' in lean[0], 'rows only on request')
      const failure = await connection
        .simpleQuery('INSERT INTO wt_multi VALUES (10); SELECT 1 / 0; INSERT INTO wt_multi VALUES (11)')
        .catch(err => err)
      t.ok(failure instanceof ServerError, 'rejects with the ServerError')
      t.equal(failure.code, '22012')
      t.equal(connection.transactionStatus, 'I', 'the implicit transaction is over')
      t.equal(
        (await connection.simpleQuery('SELECT count(*) FROM wt_multi'))[0].first,
        '2',
        'the statements of the failed query were rolled back'
      )
      t.same(
        (await connection.simpleQuery('')).map(r => r.command),
        [''],
        'an empty query: one empty result'
      )
      t.same(await connection.simpleQuery('BEGIN; SELECT 1').then(r => r.map(x => x.command)), ['BEGIN', 'SELECT'])
      t.equal(connection.transactionStatus, 'T', 'BEGIN in a simple query opens a transaction')
      await connection.simpleQuery('ROLLBACK')
      t.equal(connection.transactionStatus, 'I')
    })

    t.test('server errors carry their fields', async t => {
      const connection = await connect(t, url, 'extended')
      const missingColumn = await connection
        .run({ name: '', text: 'SELECT nosuchcolumn FROM (SELECT 1) s' }, [])
        .catch(err => err)
      t.match(
        missingColumn,
        { name: 'ServerError', code: '42703', severity: 'ERROR', position: 8 },
        'code, severity, position'
      )
      const noFunction = await connection
        .run({ name: '', text: 'SELECT wt_no_such_function($1::int)' }, [1])
        .catch(err => err)
      t.equal(noFunction.code, '42883')
      t.match(noFunction.hint, /No function matches/, 'the hint')
      await connection.simpleQuery('CREATE TEMP TABLE wt_unique (id int PRIMARY KEY)')
      await connection.run({ name: '', text: 'INSERT INTO wt_unique VALUES ($1)' }, [1])
      const duplicate = await connection
        .run({ name: '', text: 'INSERT INTO wt_unique VALUES ($1)' }, [1])
        .catch(err => err)
      t.equal(duplicate.code, '23505')
      t.equal(duplicate.detail, 'Key (id)=(1) already exists.', 'the detail')
      t.notOk('hint' in duplicate, 'no hint field when the server sent none')
    })

    t.test('replies larger than the read buffer arrive whole, in every protocol', async t => {
      // The socket reads every reply into one reused 64 KiB buffer: a reply
      // that spans several reads is put together from copies.
      for (const protocol of PROTOCOLS) {
        const connection = await connect(t, url, protocol)
        const big = await connection.run(
          { name: 'wt_big_value', text: "SELECT repeat('ab', $1::int) || 'z'" },
          [300000]
        )
        t.equal(big.first?.length, 600001, `${protocol}: one value of 600001 characters`)
        t.ok(big.first?.endsWith('abz'), `${protocol}: ends as it should`)
        const many = await connection.run(
          { name: 'wt_many_rows', text: "SELECT g, repeat('x', g % 50) FROM generate_series(1, $1::int) g" },
          [20000],
          { rows: true }
        )
        t.equal(many.rows?.length, 20000, `${protocol}: every row`)
        t.ok(
          many.rows?.every((row, i) => row[0] === String(i + 1) && row[1] === 'x'.repeat((i + 1) % 50)),
          `${protocol}: every row intact`
        )
        t.equal(
          (await connection.run({ name: 'wt_after', text: 'SELECT $1::int + 1' }, [41])).first,
          '42',
          `${protocol}: the next reply is read from the start`
        )
      }
    })

    t.test('bad input is refused with a clear error, and the connection stays usable', async t => {
      await t.rejects(
        WireConnection.connect(url, { protocol: /** @type {any} */ ('turbo') }),
        /unknown query protocol "turbo"/
      )
      const simple = await connect(t, url, 'simple')
      await t.rejects(
        simple.run({ name: '', text: 'SELECT $1::text' }, ['a\0b']),
        /NUL/,
        'a NUL character cannot be inlined'
      )
      await t.rejects(
        simple.run({ name: '', text: 'SELECT $1::text' }, [/** @type {any} */ ({})]),
        /cannot send a parameter of type object/
      )
      const missing = await simple.run({ name: '', text: 'SELECT $2::text' }, ['only one']).catch(err => err)
      t.equal(missing.code, '42P02', 'a placeholder without a value is left for the server to report')
      t.equal((await simple.run({ name: '', text: 'SELECT $1::text' }, ['fine'])).first, 'fine', 'still usable')
    })
  })
}
