// The pgbench script interpreter on PostgreSQL 15, with the tables made by
// the real `pgbench -i`: the built-in scripts in every protocol keep the
// TPC-B books balanced; \gset, \aset, conditionals, functions, \sleep,
// pipelines and compound commands work; each runtime error fails its run
// with pgbench's words and leaves the connection ready for the next one;
// and pgbench itself, run on the same scripts, agrees.
import t from 'tap'
import { execFile } from 'node:child_process'
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createTestDatabase, query } from '../helpers/pg.js'
import { requireTool } from '../helpers/tools.js'
import { WireConnection, ServerError } from '../../lib/wire/wire-connection.js'
import { ScriptRuntimeError } from '../../lib/pgbench/errors.js'
import { builtinScript, loadScripts, parseScript } from '../../lib/pgbench/scripts.js'
import { ScriptClient } from '../../lib/pgbench/runner.js'
import { Variables } from '../../lib/pgbench/variables.js'
import { deriveRandomStates } from '../../lib/pgbench/random.js'

const run = promisify(execFile)
requireTool('pgbench', 'postgresql-15')
const FIXTURES = fileURLToPath(new URL('../fixtures/pgbench/', import.meta.url))
const PROTOCOLS = /** @type {const} */ (['prepared', 'extended', 'simple'])

const db = await createTestDatabase(t, 'pgbench_runner')
await run('pgbench', ['-i', '-s', '1', '-q', db.url])
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pgbench-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/**
 * A client as the workload makes one: pgbench's automatic variables.
 * @param {number} clientId
 * @param {bigint} [seed]
 */
function client(clientId = 0, seed = 42n) {
  const randoms = deriveRandomStates(seed, { clients: clientId + 1 })
  const variables = new Variables([
    ['scale', 1n],
    ['client_id', BigInt(clientId)],
    ['default_seed', randoms.defaultSeed],
    ['random_seed', randoms.randomSeed]
  ])
  return new ScriptClient({ clientId, variables, random: randoms.clients[clientId] })
}

/**
 * @param {import('tap').Test} t
 * @param {'prepared' | 'extended' | 'simple'} protocol
 */
async function connect(t, protocol) {
  const conn = await WireConnection.connect(db.url, { protocol })
  t.teardown(() => conn.close())
  return conn
}

/** @param {string} name */
const fixture = async name => (await loadScripts({ files: [path.join(FIXTURES, name)] }))[0]

/** @param {string} text */
const script = text => parseScript(text, { file: 'err.sql' })

async function books() {
  const {
    rows: [row]
  } = await query(
    db.url,
    `SELECT (SELECT sum(abalance) FROM pgbench_accounts)::bigint AS a,
    (SELECT sum(bbalance) FROM pgbench_branches)::bigint AS b, (SELECT sum(tbalance) FROM pgbench_tellers)::bigint AS t,
    (SELECT coalesce(sum(delta), 0) FROM pgbench_history)::bigint AS h,
    (SELECT count(*) FROM pgbench_history)::bigint AS n`
  )
  return {
    accounts: Number(row.a),
    branches: Number(row.b),
    tellers: Number(row.t),
    history: Number(row.h),
    rows: Number(row.n)
  }
}

t.test('the built-in scripts, many times per protocol, keep the TPC-B books balanced', async t => {
  const tpcb = builtinScript('tpcb-like')
  const pipelined = await fixture('pipeline.sql')
  let runs = 0
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client(PROTOCOLS.indexOf(protocol))
    for (let i = 0; i < 150; i++) await me.run(tpcb, conn)
    if (protocol !== 'simple') for (let i = 0; i < 50; i++) await me.run(pipelined, conn)
    runs += protocol === 'simple' ? 150 : 200
  }
  const after = await books()
  t.equal(after.rows, runs, 'one history row per run')
  t.not(after.history, 0)
  t.same(
    [after.accounts, after.branches, after.tellers],
    [after.history, after.history, after.history],
    'sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)'
  )

  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client(3)
    for (let i = 0; i < 100; i++) await me.run(builtinScript('simple-update'), conn)
    for (let i = 0; i < 200; i++) await me.run(builtinScript('select-only'), conn)
    t.equal(conn.transactionStatus, 'I')
  }
  const later = await books()
  t.equal(later.rows, runs + 300)
  t.equal(later.accounts, later.history, 'simple-update keeps sum(abalance) = sum(delta)')
  t.same([later.branches, later.tellers], [after.branches, after.tellers], 'and leaves branches and tellers alone')
})

t.test('the scripts of the fixtures run with no error', async t => {
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client()
    for (const name of ['gset-aset.sql', 'conditionals.sql', 'functions.sql']) {
      const fixtureScript = await fixture(name)
      for (let i = 0; i < 40; i++) await me.run(fixtureScript, conn)
    }
    t.equal(me.variables.text('nothing'), '', `${protocol}: a NULL stored by \\gset is the empty string`)
    t.equal(me.variables.text('last_g'), '5', `${protocol}: \\aset keeps the last row`)
    t.notOk(me.variables.has('untouched'), `${protocol}: \\aset of no row sets nothing`)
    t.ok(me.variables.has('branch_taken'))
  }
})

t.test('compound commands: simple protocol only, as with pgbench', async t => {
  const compound = await fixture('compound.sql')
  const simple = client()
  const conn = await connect(t, 'simple')
  for (let i = 0; i < 10; i++) await simple.run(compound, conn)
  t.same(
    ['p_two', 'p_three', 'four', 'five'].map(name => simple.variables.text(name)),
    ['2', '3', '4', '5']
  )
  t.notOk(simple.variables.has('p_one'), '\\gset takes the last query only')
  const extended = await connect(t, 'extended')
  await t.rejects(client().run(compound, extended), {
    name: 'ServerError',
    message: 'cannot insert multiple commands into a prepared statement'
  })
})

t.test('\\sleep sleeps', async t => {
  const sleeper = await fixture('sleep.sql')
  const conn = await connect(t, 'prepared')
  const started = process.hrtime.bigint()
  await client().run(sleeper, conn)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  t.ok(ms >= 34, `20 ms + 10000 us + 5 ms, slept ${ms.toFixed(1)} ms`)
  t.ok(ms < 1000, 'and not much longer')
})

t.test('variables in SQL: parameters, or text put in place in the simple protocol', async t => {
  const prepared = await connect(t, 'prepared')
  const simple = await connect(t, 'simple')
  const me = client()
  await me.run(
    script('\\set v 5\nSELECT :v::int + :v::int AS twice, :nope::text IS NULL AS undefined_is_null \\gset\n'),
    prepared
  )
  t.same(
    [me.variables.text('twice'), me.variables.text('undefined_is_null')],
    ['10', 't'],
    'an undefined variable is sent as NULL, as pgbench sends it'
  )
  await me.run(script("\\set v 7\nSELECT ':v' AS quoted, :v * 2 AS doubled \\gset\n"), simple)
  t.same(
    [me.variables.text('quoted'), me.variables.text('doubled')],
    ['7', '14'],
    'substituted as is, even inside quotes'
  )
  await t.rejects(
    me.run(script('SELECT :nope;\n'), simple),
    { name: 'ServerError', code: '42601' },
    'an undefined :name stays in the text'
  )
  await me.run(script('\\set f 1.5\n\\set b true\nSELECT :f::float8 * 2 AS f2, :b::bool AS b2 \\gset\n'), prepared)
  t.same([me.variables.text('f2'), me.variables.text('b2')], ['3', 't'])
})

/**
 * Each script fails with this error, and the connection serves the next run.
 * @type {Array<[string, string | RegExp | Record<string, unknown>, ReadonlyArray<string>?]>}
 */
const RUNTIME_ERRORS = [
  ['SELECT 1;\n\\set x :nope + 1\n', 'err.sql:2: undefined variable "nope"'],
  ['\\set zero 0\n\\set x 1 / :zero\n', 'err.sql:2: division by zero'],
  ['\\if :nope\n\\endif\n', 'err.sql:1: undefined variable "nope"'],
  ['\\if false\n\\elif :nope > 1\n\\endif\n', 'err.sql:2: undefined variable "nope"'],
  ['BEGIN;\nSELECT 1 AS a WHERE false \\gset\nEND;\n', 'err.sql:2: expected one row, got 0'],
  ['SELECT g FROM generate_series(1, 3) AS g \\gset\n', 'err.sql:1: expected one row, got 3'],
  ['UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1 \\gset\n', 'err.sql:1: expected one row, got 0'],
  ['SELECT 1 \\gset\n', 'err.sql:1: gset: invalid variable name: "?column?"'],
  ['SELECT 1 \\aset x.\n', 'err.sql:1: aset: invalid variable name: "x.?column?"'],
  ['\\sleep :nope ms\n', 'err.sql:1: sleep: undefined variable "nope"'],
  ["SELECT 'abc' AS s \\gset\n\\sleep :s\n", 'err.sql:2: sleep: invalid sleep time "abc" for variable "s"'],
  ['BEGIN;\nSELECT 1;\n', 'err.sql:2: end of script reached without completing the last transaction'],
  ['\\startpipeline\nSELECT 1;\n', 'err.sql:2: end of script reached with pipeline open', ['prepared', 'extended']],
  ['\\endpipeline\n', 'err.sql:1: not in pipeline mode', ['prepared', 'extended']],
  ['\\syncpipeline\n', 'err.sql:1: not in pipeline mode', ['prepared', 'extended']],
  [
    '\\startpipeline\n\\startpipeline\n\\endpipeline\n',
    'err.sql:2: already in pipeline mode',
    ['prepared', 'extended']
  ],
  [
    '\\startpipeline\nBEGIN;\nSELECT 1 AS a \\gset\nEND;\n\\endpipeline\n',
    'err.sql:3: \\gset is not allowed in pipeline mode',
    ['prepared', 'extended']
  ],
  [
    '\\startpipeline\nSELECT 1 AS a \\aset\n\\endpipeline\n',
    'err.sql:2: \\aset is not allowed in pipeline mode',
    ['prepared', 'extended']
  ],
  [
    '\\startpipeline\n\\endpipeline\n',
    'err.sql:1: cannot use pipeline mode with the simple query protocol',
    ['simple']
  ],
  [
    'BEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + 1000000 WHERE aid = 1;\nSELECT 1/0;\nEND;\n',
    { name: 'ServerError', code: '22012', message: 'division by zero' }
  ],
  [
    '\\startpipeline\nBEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + 1000000 WHERE aid = 1;\nSELECT ' +
      '1/0;\nSELECT 2;\nEND;\n\\endpipeline\n',
    { name: 'ServerError', code: '22012' },
    ['prepared', 'extended']
  ],
  [
    '\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT nosuchcolumn;\n\\endpipeline\n',
    { name: 'ServerError', code: '42703' },
    ['prepared', 'extended']
  ]
]

t.test("runtime errors fail the run, with pgbench's words, and the next run succeeds", async t => {
  const selectOnly = builtinScript('select-only')
  const {
    rows: [before]
  } = await query(db.url, 'SELECT abalance FROM pgbench_accounts WHERE aid = 1')
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client()
    for (const [text, expected, protocols = PROTOCOLS] of RUNTIME_ERRORS) {
      if (!protocols.includes(protocol)) continue
      const label = `${protocol}: ${JSON.stringify(text)}`
      const err = await me.run(script(text), conn).then(
        () => null,
        e => e
      )
      if (typeof expected === 'string') {
        t.ok(err instanceof ScriptRuntimeError, label)
        t.equal(err?.message, expected, label)
      } else {
        t.ok(err instanceof ServerError, label)
        t.match(err, expected, label)
      }
      t.equal(conn.transactionStatus, 'I', `${label}: no transaction left open`)
      t.notOk(conn.broken)
      await me.run(selectOnly, conn)
    }
  }
  const {
    rows: [after]
  } = await query(db.url, 'SELECT abalance FROM pgbench_accounts WHERE aid = 1')
  t.equal(after.abalance, before.abalance, 'the failed transactions were rolled back')
})

t.test('a run on a broken connection rejects and leaves it to the caller', async t => {
  const conn = await connect(t, 'prepared')
  const me = client()
  await me.run(builtinScript('select-only'), conn)
  const {
    rows: [{ pid }]
  } = await query(
    db.url,
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgloadgen' AND datname = current_database() AND pid " +
      '<> pg_backend_pid() ORDER BY backend_start DESC LIMIT 1'
  )
  await query(db.url, 'SELECT pg_terminate_backend($1)', [pid])
  await t.rejects(me.run(builtinScript('tpcb-like'), conn))
  t.ok(conn.broken)
})

t.test('pgbench and pgloadgen agree on which scripts run and which fail', async t => {
  for (const name of ['gset-aset.sql', 'compound.sql', 'conditionals.sql', 'functions.sql', 'undefined-variable.sql']) {
    const fixtureScript = await fixture(name)
    for (const protocol of PROTOCOLS) {
      const theirs = await run('pgbench', [
        '-n',
        '-t',
        '3',
        '-M',
        protocol,
        '-f',
        path.join(FIXTURES, name),
        db.url
      ]).then(
        () => true,
        () => false
      )
      const conn = await connect(t, protocol)
      const me = client()
      let ours = true
      for (let i = 0; i < 3; i++)
        ours =
          ours &&
          (await me.run(fixtureScript, conn).then(
            () => true,
            () => false
          ))
      t.equal(ours, theirs, `${name} -M ${protocol}: ${theirs ? 'runs' : 'fails'} with both`)
    }
  }
})

t.test('pgbench and pgloadgen send the same SQL text in the simple protocol', async t => {
  const file = path.join(dir, 'split.sql')
  await writeFile(
    file,
    [
      '-- leading comment',
      'SELECT 1 /* x; /* nested ; */ */ ;SELECT',
      '  2 -- y;',
      ';',
      '\\set v 7',
      "SELECT ':v' AS q, $$a;b$$, $t$ $$ ; $t$, E'\\';', \"x;y\" FROM (SELECT 1 AS \"x;y\") s;",
      "SELECT :{?x} AS f, 'x'\\:\\:text, :v::int, (1",
      ');',
      'CREATE TEMP TABLE IF NOT EXISTS tt (a int) \\; INSERT INTO tt VALUES (:v) \\; SELECT count(*) FROM tt;',
      'CREATE OR REPLACE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;',
      'SELECT 5 AS five \\gset',
      'SELECT :five + 1, :undefined_one',
      '  IS NULL   '
    ].join('\n')
  )
  // the last command fails on the server, with both: :undefined_one stays as written
  const { stderr } = await run('pgbench', ['-n', '-t', '1', '--debug', '-f', file, db.url]).catch(err => err)
  const theirs = []
  for (const part of stderr.split(/\n(?=pgbench: )/)) {
    const match = /^pgbench: (?:debug: )?client 0 sending ([\s\S]*)$/.exec(part)
    if (match) theirs.push(match[1].replace(/\n$/, ''))
  }
  const conn = await connect(t, 'simple')
  const ours = []
  const sent = conn.simpleQuery.bind(conn)
  conn.simpleQuery = (text, options) => {
    ours.push(text.replace(/\n$/, ''))
    return sent(text, options)
  }
  const err = await client()
    .run((await loadScripts({ files: [file] }))[0], conn)
    .catch(e => e)
  t.match(err, { name: 'ServerError', code: '42601' })
  t.equal(theirs.length, 8)
  t.same(ours, theirs)
})
