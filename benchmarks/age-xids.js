// The ways to spend transaction IDs with SQL alone, measured side by side
// on one server, in rounds that alternate the methods (so that a machine
// that slows down does not fall on one of them): docs/age-xids.md.
//
//   node benchmarks/age-xids.js [ADMIN_URL] [XIDS_PER_RUN] [ROUNDS]
//
// A scratch database is created on the server of ADMIN_URL (default the
// tests' PostgreSQL 15) and dropped at the end. Each method spends about
// XIDS_PER_RUN xids (default 1 000 000); the figure is xids assigned (the
// server's next xid moved) over the wall time.
import { performance } from 'node:perf_hooks'
import os from 'node:os'
import pg from 'pg'
import { ageXids } from '../lib/lab/age-xids.js'

const admin = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const perRun = Number(process.argv[3] ?? 1000000)
const rounds = Number(process.argv[4] ?? 2)
const database = `pgloadgen_bench_age_xids_${process.pid}`

/**
 * @template T
 * @param {string} url
 * @param {(client: pg.Client) => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

const url = (() => {
  const u = new URL(admin)
  u.pathname = `/${database}`
  return u.href
})()

/** @param {pg.Client} c */
const nextXid = async c => Number((await c.query('SELECT txid_snapshot_xmax(txid_current_snapshot()) AS x')).rows[0].x)

/**
 * Runs one SQL text per connection, all at once; xids/s from the server's next xid.
 * @param {string[]} texts
 */
async function timed(texts) {
  const clients = await Promise.all(
    texts.map(async () => {
      const c = new pg.Client({ connectionString: url })
      await c.connect()
      return c
    })
  )
  const before = await nextXid(clients[0])
  const started = performance.now()
  await Promise.all(texts.map((text, i) => clients[i].query(text)))
  const seconds = (performance.now() - started) / 1000
  const after = await nextXid(clients[0])
  await Promise.all(clients.map(c => c.end()))
  return { xids: after - before, seconds }
}

/** @type {Record<string, () => Promise<{ xids: number, seconds: number }>>} */
const METHODS = {
  // what age-xids runs: DO blocks of 10 000 commits, on N connections
  'age-xids, 1 connection': async () => {
    const r = await ageXids(url, { by: perRun, parallel: 1 })
    return { xids: r.server_xids, seconds: r.seconds }
  },
  'age-xids, 2 connections': async () => {
    const r = await ageXids(url, { by: perRun, parallel: 2 })
    return { xids: r.server_xids, seconds: r.seconds }
  },
  'age-xids, 4 connections': async () => {
    const r = await ageXids(url, { by: perRun, parallel: 4 })
    return { xids: r.server_xids, seconds: r.seconds }
  },
  // a stored procedure doing the same in one call: needs CREATE on a schema
  'procedure, 1 call': () => timed([`CALL bench_commit(${perRun})`]),
  'procedure, 2 calls': () => timed([`CALL bench_commit(${perRun / 2})`, `CALL bench_commit(${perRun / 2})`]),
  // subtransactions: one xid each only when they write; 1 000 per top-level commit
  'subtransactions with a write, 1 000 a commit': () => timed([`CALL bench_sub(${Math.round(perRun / 1000)}, 1000)`]),
  // one statement a transaction from the client: the round trip per xid
  'client SELECT pg_current_xact_id(), 1 connection': async () => {
    const n = Math.round(perRun / 20)
    return withClient(url, async c => {
      const before = await nextXid(c)
      const started = performance.now()
      for (let i = 0; i < n; i++) await c.query('SELECT pg_current_xact_id()')
      const seconds = (performance.now() - started) / 1000
      return { xids: (await nextXid(c)) - before, seconds }
    })
  }
}

await withClient(admin, c => c.query(`CREATE DATABASE ${database}`))
try {
  await withClient(url, async c => {
    await c.query(
      'CREATE PROCEDURE bench_commit(n int) LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..n LOOP PERFORM ' +
        'pg_current_xact_id(); COMMIT; END LOOP; END $$'
    )
    await c.query('CREATE UNLOGGED TABLE bench_sink (x int)')
    await c.query(
      'CREATE PROCEDURE bench_sub(n int, per int) LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..n LOOP FOR j IN 1..per ' +
        'LOOP BEGIN INSERT INTO bench_sink VALUES (1); EXCEPTION WHEN others THEN NULL; END; END LOOP; ' +
        'TRUNCATE bench_sink; COMMIT; END LOOP; END $$'
    )
  })
  const version = await withClient(url, async c => (await c.query('SHOW server_version')).rows[0].server_version)
  /** @type {Record<string, number[]>} */
  const rates = {}
  for (let round = 0; round < rounds; round++) {
    const names = Object.keys(METHODS)
    // A B C …, then … C B A
    for (const name of round % 2 ? names.reverse() : names) {
      const { xids, seconds } = await METHODS[name]()
      ;(rates[name] ??= []).push(xids / seconds)
    }
  }
  console.log(
    `PostgreSQL ${version}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}); ` +
      `load average ${os.loadavg()[0].toFixed(2)}; ${rounds} rounds of about ${perRun} xids a method`
  )
  for (const [name, values] of Object.entries(rates)) {
    const sorted = [...values].sort((a, b) => a - b)
    console.log(
      `${name.padEnd(50)} ${Math.round(values.reduce((a, b) => a + b, 0) / values.length)
        .toString()
        .padStart(8)} XIDs/s  (${values.map(v => Math.round(v)).join(', ')}; min ${Math.round(sorted[0])})`
    )
  }
} finally {
  await withClient(admin, c => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
}
