// The pgbench script interpreter on an embedded PostgreSQL 18, with the
// tables made by the real `pgbench -i`: the built-in scripts and a pipeline
// in every protocol keep the TPC-B books balanced, the fixtures run, and an
// error inside a transaction fails its run and leaves the connection ready.
import t from 'tap'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startEmbedded } from '../helpers/embedded.js'
import { query } from '../helpers/pg.js'
import { requireTool } from '../helpers/tools.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { ScriptRuntimeError } from '../../lib/pgbench/errors.js'
import { builtinScript, loadScripts, parseScript } from '../../lib/pgbench/scripts.js'
import { ScriptClient } from '../../lib/pgbench/runner.js'
import { Variables } from '../../lib/pgbench/variables.js'
import { deriveRandomStates } from '../../lib/pgbench/random.js'

const run = promisify(execFile)
requireTool('pgbench', 'postgresql-15')
const FIXTURES = fileURLToPath(new URL('../fixtures/pgbench/', import.meta.url))
const PROTOCOLS = /** @type {const} */ (['prepared', 'extended', 'simple'])

const { url } = await startEmbedded(t)
await run('pgbench', ['-i', '-s', '1', '-q', url])

/** @param {number} clientId */
function client(clientId) {
  const randoms = deriveRandomStates(7n, { clients: clientId + 1 })
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
  const conn = await WireConnection.connect(url, { protocol })
  t.teardown(() => conn.close())
  return conn
}

t.test('built-in scripts and a pipeline keep the books balanced', async t => {
  const scripts = await loadScripts({
    specs: [{ builtin: 'tpcb' }, { file: path.join(FIXTURES, 'pipeline.sql') }, { builtin: 'select' }]
  })
  t.same(
    scripts.map(s => s.name),
    ['tpcb-like', 'pipeline', 'select-only']
  )
  let transfers = 0
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client(PROTOCOLS.indexOf(protocol))
    for (let i = 0; i < 100; i++) {
      for (const script of scripts) {
        if (script.name === 'pipeline' && protocol === 'simple') continue
        await me.run(script, conn)
        if (script.name !== 'select-only') transfers++
      }
    }
  }
  const {
    rows: [row]
  } = await query(
    url,
    `SELECT (SELECT sum(abalance) FROM pgbench_accounts)::bigint AS a,
    (SELECT sum(bbalance) FROM pgbench_branches)::bigint AS b, (SELECT sum(tbalance) FROM pgbench_tellers)::bigint AS t,
    (SELECT sum(delta) FROM pgbench_history)::bigint AS h, (SELECT count(*) FROM pgbench_history)::bigint AS n`
  )
  t.equal(Number(row.n), transfers)
  t.same([row.a, row.b, row.t], [row.h, row.h, row.h], 'sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta)')
})

t.test('the fixtures run with no error', async t => {
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client(0)
    const names = [
      'gset-aset.sql',
      'conditionals.sql',
      'functions.sql',
      ...(protocol === 'simple' ? ['compound.sql'] : [])
    ]
    const scripts = await loadScripts({ files: names.map(name => path.join(FIXTURES, name)) })
    for (let i = 0; i < 20; i++) for (const script of scripts) await me.run(script, conn)
    t.equal(conn.transactionStatus, 'I', protocol)
  }
})

t.test('errors fail their run and the connection serves the next', async t => {
  const failing = parseScript(
    'BEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2;\nSELECT 1/0;\nEND;\n',
    { file: 'tx.sql' }
  )
  const noRow = parseScript('SELECT aid FROM pgbench_accounts WHERE aid < 0 \\gset\n', { file: 'gset.sql' })
  const pipelined = parseScript(
    '\\startpipeline\nBEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2;\nSELECT ' +
      'nosuch;\nEND;\n\\endpipeline\n',
    { file: 'p.sql' }
  )
  const {
    rows: [before]
  } = await query(url, 'SELECT abalance FROM pgbench_accounts WHERE aid = 2')
  for (const protocol of PROTOCOLS) {
    const conn = await connect(t, protocol)
    const me = client(0)
    await t.rejects(me.run(failing, conn), { name: 'ServerError', code: '22012' }, protocol)
    await me.run(builtinScript('select-only'), conn)
    await t.rejects(me.run(noRow, conn), new ScriptRuntimeError('gset.sql:1: expected one row, got 0'), protocol)
    await me.run(builtinScript('select-only'), conn)
    if (protocol !== 'simple') {
      await t.rejects(me.run(pipelined, conn), { name: 'ServerError', code: '42703' }, protocol)
      await me.run(builtinScript('select-only'), conn)
    }
    t.equal(conn.transactionStatus, 'I')
  }
  const {
    rows: [after]
  } = await query(url, 'SELECT abalance FROM pgbench_accounts WHERE aid = 2')
  t.equal(after.abalance, before.abalance, 'rolled back')
})
