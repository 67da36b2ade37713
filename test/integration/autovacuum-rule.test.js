// The autovacuum rule's inputs read off the machine's PostgreSQL 15 and an
// embedded 18 (lib/pgstats/autovacuum-sql.js): each setting with the
// table's reloption in its place, the counters the rule reads, and the
// rule's verdict on them, against what was done to the table. Autovacuum is off on the
// tables, so that nothing moves their counters but the test.
import t from 'tap'
import { createTestDatabase, query } from '../helpers/pg.js'
import { autovacuumInputsSql, countsOf, paramsOf } from '../../lib/pgstats/autovacuum-sql.js'
import { thresholds, vacuumReason } from '../../lib/pgstats/autovacuum-rule.js'
import { startEmbedded } from '../helpers/embedded.js'

const FAR = { xidsToForce: 1e8, mxidsToForce: 1e8 }

/**
 * The inputs of a table, once its dead rows read `dead` (the statistics reach the view within a second or so).
 * @param {string} url
 * @param {string} table
 * @param {number} dead
 */
async function inputsOf(url, table, dead) {
  const version = Number((await query(url, 'SHOW server_version_num')).rows[0].server_version_num)
  for (let tries = 0; ; tries++) {
    const rows = (await query(url, autovacuumInputsSql({ inserts: version >= 130000, capped: version >= 180000 }))).rows
    const row = rows.find(r => r.relname === table)
    if (row && Number(row.n_dead_tup) === dead) return row
    if (tries > 100) throw new Error(`${table}: n_dead_tup never reached ${dead} (last ${row?.n_dead_tup})`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

t.test("a table's reloptions take the place of the server's settings", async t => {
  const db = await createTestDatabase(t, 'av_rule')
  await query(
    db.url,
    `CREATE TABLE own (id int) WITH (autovacuum_enabled = off, autovacuum_vacuum_threshold = 10,
      autovacuum_vacuum_scale_factor = 0.5, autovacuum_vacuum_insert_threshold = -1)`
  )
  await query(db.url, 'CREATE TABLE plain (id int) WITH (autovacuum_enabled = off)')
  for (const table of ['own', 'plain']) {
    await query(db.url, `INSERT INTO ${table} SELECT generate_series(1, 1000)`)
    await query(db.url, `ANALYZE ${table}`)
    await query(db.url, `DELETE FROM ${table} WHERE id <= 300`)
  }
  const own = await inputsOf(db.url, 'own', 300)
  const params = paramsOf(own)
  t.match(params, { enabled: false, vacuumThreshold: 10, vacuumScaleFactor: 0.5, insertThreshold: -1 })
  t.equal(params.vacuumMaxThreshold, -1, '15 has no cap on the vacuum threshold')
  t.match(paramsOf(await inputsOf(db.url, 'plain', 300)), {
    vacuumThreshold: 50,
    vacuumScaleFactor: 0.2,
    insertThreshold: 1000,
    insertScaleFactor: 0.2,
    analyzeThreshold: 50,
    analyzeScaleFactor: 0.1
  })
  const counts = countsOf(own, FAR)
  t.match(counts, { reltuples: 1000, deadTuples: 300, relallfrozen: null })
  t.same(thresholds(params, counts), { vacuum: 510, insert: null, analyze: 150 }, '10 + 0.5 × 1000; 50 + 0.1 × 1000')
  t.equal(vacuumReason(params, counts), null, 'autovacuum off on the table: no threshold counts')
  const on = { ...params, enabled: true }
  t.equal(vacuumReason(on, counts), null, 'on, 300 dead rows are under 510')
  await query(db.url, 'DELETE FROM own WHERE id <= 700')
  t.equal(vacuumReason(on, countsOf(await inputsOf(db.url, 'own', 700), FAR)), 'dead_rows', '700 are over it')
  t.equal(vacuumReason(params, countsOf(own, { ...FAR, xidsToForce: -1 })), 'wraparound', 'off, but forced')
})

t.test('18: the cap on the vacuum threshold, and the insert threshold on the pages not yet frozen', async t => {
  const { url } = await startEmbedded(t)
  await query(
    url,
    'CREATE TABLE capped (id int) WITH (autovacuum_enabled = off, autovacuum_vacuum_max_threshold = 100)'
  )
  await query(url, 'INSERT INTO capped SELECT generate_series(1, 10000)')
  await query(url, 'VACUUM (FREEZE, ANALYZE) capped')
  await query(url, 'DELETE FROM capped WHERE id <= 150')
  const row = await inputsOf(url, 'capped', 150)
  const params = paramsOf(row)
  const counts = countsOf(row, FAR)
  t.equal(params.vacuumMaxThreshold, 100, "the table's cap")
  t.ok(counts.relallfrozen !== null && counts.relallfrozen > 0, `relallfrozen read: ${counts.relallfrozen}`)
  t.equal(counts.relallfrozen, counts.relpages, 'VACUUM FREEZE left every page frozen')
  t.same(thresholds(params, counts), { vacuum: 100, insert: 1000, analyze: 1050 }, 'capped; no unfrozen share')
  t.equal(vacuumReason({ ...params, enabled: true }, counts), 'dead_rows', '150 dead rows pass the cap of 100')
})
