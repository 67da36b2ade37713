// One bloat case measured: the shape built in a schema of its own, then the
// exporter's figures for its heap and its two B-tree indexes beside the
// truth of pgstattuple (heap) and pgstatindex (B-tree), and for the heap the
// figure of --pgstattuple-approx (pgstattuple_approx).
import pg from 'pg'
import { tableBloatSql, indexBloatSql } from '../../../lib/pgstats/bloat-sql.js'
import { heapTruthSql, btreeTruthSql } from '../../../lib/pgstats/bloat-truth.js'
import { scanExactBloat } from '../../../lib/pgstats/pgstattuple.js'

/** @typedef {import('./shapes.js').Shape} Shape */
/** @typedef {import('./shapes.js').ShapeSizes} ShapeSizes */

/**
 * @typedef {object} Figures
 * @property {number} truth              0 … 1
 * @property {number | null} estimate    the exporter's figure, null when it shows none
 * @property {string | null} method      what the exporter's figure is
 * @property {number | null} onDemand    the exporter's exact figure (--pgstattuple), null when it shows none
 * @property {number | null} [approx]    heap only: the exporter's figure with --pgstattuple-approx
 *   (pgstattuple_approx), null when it shows none
 */

/**
 * @typedef {object} CaseResult
 * @property {Figures} heap
 * @property {Figures[]} btrees   the primary key, the secondary index
 */

/** @param {string} url */
async function connect(url) {
  const client = new pg.Client({ connectionString: url, application_name: 'pgloadgen-bloat-known-answers' })
  client.on('error', () => {})
  await client.connect()
  return client
}

/**
 * Waits (at most 20 s) until the statistics system counts what was done to
 * the table: the rows inserted, updated and deleted, the VACUUMs and
 * ANALYZEs run, and the live rows. Up to PostgreSQL 14 the counts travel to
 * a collector process, a VACUUM's often later than the deletes before it: on
 * a loaded machine PostgreSQL 13 still showed the deleted rows as dead, and
 * no VACUUM, when the live rows already matched.
 * @param {string} url @param {string} schema
 * @param {{ ins: number, upd: number, del: number, vacuums: number, analyzes: number, live?: number }} done
 */
async function settle(url, schema, done) {
  const reader = await connect(url)
  try {
    for (let waited = 0; waited < 20000; waited += 250) {
      const { rows } = await reader.query(
        'SELECT n_tup_ins, n_tup_upd, n_tup_del, n_live_tup, vacuum_count, analyze_count ' +
          'FROM pg_stat_user_tables WHERE schemaname = $1',
        [schema]
      )
      const r = rows[0]
      const counted =
        r &&
        Number(r.n_tup_ins) === done.ins &&
        Number(r.n_tup_upd) === done.upd &&
        Number(r.n_tup_del) === done.del &&
        Number(r.vacuum_count) === done.vacuums &&
        Number(r.analyze_count) === done.analyzes &&
        (done.live === undefined || Math.abs(Number(r.n_live_tup) - done.live) <= done.live * 0.01)
      if (counted) return
      await new Promise(resolve => setTimeout(resolve, 250))
    }
  } finally {
    await reader.end().catch(() => {})
  }
}

/**
 * Builds the shape in `schema`. Before each VACUUM or ANALYZE the session
 * ends and the statistics system is waited for, as when a later session or
 * autovacuum visits the table (a session's own counts would otherwise be
 * added after the vacuum's); at the end, the live rows are waited for.
 * @param {string} url @param {string} schema @param {Shape} shape @param {ShapeSizes} sizes
 */
async function build(url, schema, shape, sizes) {
  const done = { ins: 0, upd: 0, del: 0, vacuums: 0, analyzes: 0 }
  let client = await connect(url)
  try {
    await client.query(`CREATE SCHEMA ${schema}`)
    for (const sql of shape.build(sizes)) {
      if (/^(VACUUM|ANALYZE)/.test(sql) && done.ins > 0) {
        await client.end().catch(() => {})
        await settle(url, schema, done)
        client = await connect(url)
      }
      await client.query(`SET search_path = ${schema}`)
      const result = await client.query(sql)
      if (/^VACUUM/.test(sql)) done.vacuums++
      if (/^(VACUUM ANALYZE|ANALYZE)/.test(sql)) done.analyzes++
      const kind = /^(INSERT|UPDATE|DELETE)/.exec(sql)?.[1]
      if (kind) done[kind === 'INSERT' ? 'ins' : kind === 'UPDATE' ? 'upd' : 'del'] += result.rowCount ?? 0
    }
    if (shape.role) await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${shape.role}`)
    const live = Number((await client.query('SELECT count(*) AS n FROM t')).rows[0].n)
    await client.end().catch(() => {})
    await settle(url, schema, { ...done, live })
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * @param {pg.Client} client @param {string} schema @param {string | undefined} role
 */
async function estimates(client, schema, role) {
  if (role) await client.query(`SET ROLE ${role}`)
  try {
    const tables = (await client.query(tableBloatSql())).rows.filter(r => r.schemaname === schema)
    const indexes = (await client.query(indexBloatSql())).rows.filter(r => r.schemaname === schema)
    return { table: tables[0], indexes }
  } finally {
    if (role) await client.query('RESET ROLE')
  }
}

/**
 * @param {Record<string, unknown> | undefined} row   the estimate's
 * @param {Record<string, unknown> | undefined} exact   the on-demand figure's
 */
const figure = (row, exact) => ({
  estimate: row ? Number(row.bloat_ratio) : null,
  method: row ? String(row.method) : null,
  onDemand: exact ? Number(exact.bloat_ratio) : null
})

/**
 * Builds and measures one case; the schema is dropped afterwards.
 * @param {string} url   a superuser's connection to a database with pgstattuple
 * @param {string} schema
 * @param {Shape} shape
 * @param {ShapeSizes} sizes
 * @returns {Promise<CaseResult>}
 */
export async function measureCase(url, schema, shape, sizes) {
  await build(url, schema, shape, sizes)
  const client = await connect(url)
  try {
    const est = await estimates(client, schema, shape.role)
    const exact = await scanExactBloat({
      schema: 'public',
      datname: '',
      run: async (sql, params) => (await client.query(sql, params)).rows
    })
    const approx = await scanExactBloat({
      schema: 'public',
      datname: '',
      run: async (sql, params) => (await client.query(sql, params)).rows,
      approx: true
    })
    const approxHeap = approx?.tables.find(r => r.schemaname === schema && r.method === 'pgstattuple_approx')
    const onDemand = (/** @type {string | null} */ index) =>
      (index === null ? exact?.tables : exact?.indexes)?.find(
        r => r.schemaname === schema && (index === null || r.indexrelname === index)
      )
    const heapTruth = (await client.query(heapTruthSql('public'), [`${schema}.t`])).rows[0]
    /** @type {Figures[]} */
    const btrees = []
    for (const index of ['t_pkey', 't_k']) {
      const truth = (await client.query(btreeTruthSql('public'), [`${schema}.${index}`])).rows[0]
      const row = est.indexes.find(r => r.indexrelname === index)
      btrees.push({ truth: Number(truth.bloat_ratio), ...figure(row, onDemand(index)) })
    }
    const heap = {
      truth: Number(heapTruth.bloat_ratio),
      ...figure(est.table, onDemand(null)),
      approx: approxHeap ? Number(approxHeap.bloat_ratio) : null
    }
    return { heap, btrees }
  } finally {
    await client.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {})
    await client.end().catch(() => {})
  }
}
