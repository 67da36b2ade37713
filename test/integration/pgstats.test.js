// The PostgreSQL stats collector against real servers: the machine's
// PostgreSQL 15 and an embedded PostgreSQL 18. The same metric names on
// both; right values for a table we know; vacuum progress with the right
// vacuum_mode during a manual VACUUM and during an anti-wraparound
// autovacuum; a statement held up by a lock times out and is counted while
// /metrics keeps answering; the standalone `stats` command and the
// collector inside `run`.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import client from 'prom-client'
import pg from 'pg'
import { StatsCollector } from '../../lib/pgstats/collector.js'
import { METRIC_SPECS, EXACT_BLOAT_SPECS } from '../../lib/pgstats/metric-specs.js'
import { metricOnVersion } from '../../lib/pgstats/metric-versions.js'
import { createLogger } from '../../lib/log.js'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, urlFor, query, withClient } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { parsePrometheusText, scrape, sampleValue } from '../helpers/prom.js'

const PASSWORD = 's3cret'
const KNOWN = { inserted: 5000, updated: 100, deleted: 50, live: 4950 }

// PostgreSQL 18, embedded, with a profile that lets autovacuum act within a
// second and makes anti-wraparound vacuums reachable by burning ~100k xids:
// the global limit is 150000, and the `wrap` table gets 100000 of its own.
const profileDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pgstats-'))
t.teardown(() => rm(profileDir, { recursive: true, force: true }))
const profile = path.join(profileDir, 'pgstats.conf')
await writeFile(
  profile,
  ['max_connections = 100', 'autovacuum_naptime = 1s', 'autovacuum_freeze_max_age = 150000', ''].join('\n')
)
const pg18 = await startEmbedded(t, { profile })
const pg15 = await createTestDatabase(t, 'pgstats')

/**
 * A collector on its own registry, stopped at teardown.
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {{ intervalS?: number, pgstattuple?: boolean }} [options]
 */
async function startCollector(t, url, { intervalS = 1, pgstattuple = false } = {}) {
  const registry = new client.Registry()
  const collector = new StatsCollector({
    connectionString: url,
    intervalS,
    registry,
    log: createLogger({ level: 'error' }),
    pgstattuple
  })
  t.teardown(() => collector.stop())
  await collector.start()
  return { collector, families: async () => parsePrometheusText(await registry.metrics()) }
}

/**
 * A table whose statistics we know, with autovacuum kept away from it.
 * @param {string} url
 */
async function prepareKnownTable(url) {
  await withClient(url, async c => {
    await c.query('CREATE EXTENSION IF NOT EXISTS pgstattuple')
    await c.query('DROP TABLE IF EXISTS known')
    await c.query('CREATE TABLE known (id bigint PRIMARY KEY, v text) WITH (autovacuum_enabled = false)')
    await c.query(`INSERT INTO known SELECT g, md5(g::text) FROM generate_series(1, ${KNOWN.inserted}) g`)
    await c.query(`UPDATE known SET v = 'updated' WHERE id <= ${KNOWN.updated}`)
    await c.query(`DELETE FROM known WHERE id > ${KNOWN.live}`)
  })
  // ANALYZE once the changes are in the statistics: counted later, they
  // would be added to the live tuples ANALYZE sets.
  await waitFor(
    async () => {
      const row = (await query(url, "SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = 'known'")).rows[0]
      return Number(row?.n_tup_del) === KNOWN.deleted
    },
    { what: 'the changes to known in pg_stat_user_tables' }
  )
  await query(url, 'ANALYZE known')
}

/**
 * Waits until the collector reports the known table's counters.
 * @param {() => Promise<Map<string, import('../helpers/prom.js').Family>>} families
 * @param {string} datname
 */
async function knownTableReady(families, datname) {
  const labels = { datname, schemaname: 'public', relname: 'known' }
  return waitFor(
    async () => {
      const f = await families()
      return (
        sampleValue(f, 'pg_stat_user_tables_n_tup_ins', labels) === KNOWN.inserted &&
        sampleValue(f, 'pg_stat_user_tables_analyze_count', labels) === 1 &&
        sampleValue(f, 'pg_relation_size_row_estimate', labels) === KNOWN.live &&
        (f.get('pg_bloat_table_exact_ratio')?.samples.length ?? 0) > 0 &&
        f
      )
    },
    { what: `the statistics of ${datname}.public.known`, timeoutMs: 20000, intervalMs: 250 }
  )
}

/** @param {Map<string, import('../helpers/prom.js').Family>} families */
const withSamples = families => new Set([...families.values()].filter(f => f.samples.length > 0).map(f => f.name))

await prepareKnownTable(pg15.url)
await prepareKnownTable(pg18.url)
const c15 = await startCollector(t, pg15.url, { pgstattuple: true })
const c18 = await startCollector(t, pg18.url, { pgstattuple: true })

t.test('the same metric names on PostgreSQL 15 and 18', async t => {
  const f15 = await knownTableReady(c15.families, pg15.name)
  const f18 = await knownTableReady(c18.families, 'pgloadgen')
  t.equal(c15.collector.serverVersionNum && Math.floor(c15.collector.serverVersionNum / 10000), 15, 'PostgreSQL 15')
  t.equal(c18.collector.serverVersionNum && Math.floor(c18.collector.serverVersionNum / 10000), 18, 'PostgreSQL 18')

  const declared = [...METRIC_SPECS, ...EXACT_BLOAT_SPECS].map(s => s.name)
  t.same(
    [...f15.keys()].filter(name => name.startsWith('pg_')).sort(),
    [...f18.keys()].filter(name => name.startsWith('pg_')).sort(),
    'the same families declared'
  )
  t.same(
    [...f15.keys()].filter(name => name.startsWith('pg_')).sort(),
    [...declared].sort(),
    'exactly the documented names'
  )

  // Vacuum progress has series only while a vacuum runs (autovacuum may on 18).
  // vacuum progress and xmin holders have series only while there is one
  const whileSomething = (/** @type {string} */ name) =>
    name.startsWith('pg_stat_progress_vacuum_') || Boolean(METRIC_SPECS.find(s => s.name === name)?.onlyWhile)
  const steady = (/** @type {Set<string>} */ names) => [...names].filter(name => !whileSomething(name)).sort()
  const s15 = steady(withSamples(f15))
  const s18 = steady(withSamples(f18))
  t.same(
    s15.filter(name => !s18.includes(name)),
    [],
    'nothing on 15 that 18 lacks'
  )
  const steadyOn = (/** @type {number} */ version) =>
    declared.filter(name => !whileSomething(name) && metricOnVersion(name, version)).sort()
  t.same(
    s18.filter(name => !s15.includes(name)),
    steadyOn(180000).filter(name => !steadyOn(150000).includes(name)),
    'on 18 only the PostgreSQL 18 vacuum timing counters in addition'
  )
  const pgNames = (/** @type {string[]} */ names) => names.filter(name => name.startsWith('pg_'))
  t.same(pgNames(s15), steadyOn(150000), 'every metric 15 has but vacuum progress has series on 15')
  t.same(pgNames(s18), steadyOn(180000), 'and on 18')

  for (const [version, families] of [
    [15, f15],
    [18, f18]
  ]) {
    for (const spec of [...METRIC_SPECS, ...EXACT_BLOAT_SPECS]) {
      const family = /** @type {Map<string, import('../helpers/prom.js').Family>} */ (families).get(spec.name)
      const labelSets = new Set(family?.samples.map(s => Object.keys(s.labels).sort().join(',')))
      if (labelSets.size === 0) continue
      t.same(
        [...labelSets],
        [[...spec.labels].sort().join(',')],
        `PG ${version}: ${spec.name} {${spec.labels.join(',')}}`,
        { diagnostic: false }
      )
    }
    const ours = /** @type {Map<string, import('../helpers/prom.js').Family>} */ (families)
    t.equal(ours.get('pgloadgen_pgstats_polls_total')?.type, 'counter', `PG ${version}: pgloadgen_pgstats_polls_total`)
    t.equal(
      ours.get('pgloadgen_pgstats_poll_duration_seconds')?.type,
      'histogram',
      `PG ${version}: poll duration histogram`
    )
    t.equal(sampleValue(ours, 'pgloadgen_pgstats_polls_skipped_total'), 0, `PG ${version}: no poll skipped`)
    const errors = (ours.get('pgloadgen_pgstats_poll_errors_total')?.samples ?? []).filter(s => s.value > 0)
    t.same(
      errors.map(s => s.labels.query),
      [],
      `PG ${version}: no statement failed`
    )
    t.ok(
      (sampleValue(ours, 'pgloadgen_pgstats_last_success_timestamp_seconds') ?? 0) > Date.now() / 1000 - 10,
      `PG ${version}: a recent successful poll`
    )
  }
})

for (const server of [
  { version: 15, db: pg15, datname: pg15.name, collector: c15 },
  { version: 18, db: pg18, datname: 'pgloadgen', collector: c18 }
]) {
  t.test(`PG ${server.version}: values of a known table and of the server`, async t => {
    const url = server.version === 15 ? pg15.url : pg18.url
    const f = await knownTableReady(server.collector.families, server.datname)
    const labels = { datname: server.datname, schemaname: 'public', relname: 'known' }
    const value = (/** @type {string} */ name, /** @type {Record<string, string>} */ l = labels) =>
      sampleValue(f, name, l)
    t.equal(value('pg_stat_user_tables_n_tup_ins'), KNOWN.inserted, 'n_tup_ins')
    t.equal(value('pg_stat_user_tables_n_tup_upd'), KNOWN.updated, 'n_tup_upd')
    t.equal(value('pg_stat_user_tables_n_tup_del'), KNOWN.deleted, 'n_tup_del')
    t.equal(value('pg_stat_user_tables_n_live_tup'), KNOWN.live, 'n_live_tup after ANALYZE')
    t.ok((value('pg_stat_user_tables_n_dead_tup') ?? -1) >= 0, 'n_dead_tup')
    t.equal(value('pg_stat_user_tables_analyze_count'), 1, 'analyze_count')
    t.equal(value('pg_stat_user_tables_vacuum_count'), 0, 'vacuum_count')
    t.equal(value('pg_stat_user_tables_last_vacuum'), 0, 'last_vacuum: 0 when never')
    const lastAnalyze = value('pg_stat_user_tables_last_analyze') ?? 0
    t.ok(Math.abs(lastAnalyze - Date.now() / 1000) < 120, `last_analyze is epoch seconds, recent (${lastAnalyze})`)
    t.equal(value('pg_relation_size_row_estimate'), KNOWN.live, 'row_estimate = reltuples')

    const actual = (
      await query(
        url,
        `SELECT pg_total_relation_size('known') AS total, pg_indexes_size('known') AS indexes,
      coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0) AS toast, age(relfrozenxid) AS age,
      (SELECT age(datfrozenxid) FROM pg_database WHERE datname = current_database()) AS db_age,
      pg_database_size(current_database()) AS db_size,
      current_setting('autovacuum_freeze_max_age')::int AS freeze_max_age
      FROM pg_class WHERE oid = 'known'::regclass`
      )
    ).rows[0]
    t.equal(value('pg_relation_size_total_bytes'), Number(actual.total), 'total_bytes = pg_total_relation_size')
    t.equal(value('pg_relation_size_index_bytes'), Number(actual.indexes), 'index_bytes = pg_indexes_size')
    t.equal(value('pg_relation_size_toast_bytes'), Number(actual.toast), 'toast_bytes')
    const xidAge = value('pg_vacuum_xid_age') ?? -1
    t.ok(
      xidAge > 0 && xidAge <= actual.age && actual.age - xidAge < 100000,
      `pg_vacuum_xid_age = age(relfrozenxid) (${xidAge}, now ${actual.age})`
    )
    t.equal(
      value('pg_vacuum_tx_until_wraparound_autovacuum'),
      actual.freeze_max_age - xidAge,
      'tx_until_wraparound_autovacuum = autovacuum_freeze_max_age - age'
    )
    const dbLabels = { datname: server.datname, schemaname: '', relname: '' }
    const dbAge = value('pg_vacuum_xid_age', dbLabels) ?? -1
    t.ok(dbAge > 0 && dbAge <= actual.db_age, `per database: age(datfrozenxid) (${dbAge}, now ${actual.db_age})`)
    t.equal(
      value('pg_vacuum_tx_until_wraparound_autovacuum', dbLabels),
      actual.freeze_max_age - dbAge,
      'per database: distance to the limit'
    )
    const dbSize = value('pg_database_size_bytes', { datname: server.datname }) ?? 0
    t.ok(
      Math.abs(dbSize - Number(actual.db_size)) < 8 * 1024 * 1024,
      `pg_database_size_bytes ≈ pg_database_size (${dbSize})`
    )
    t.ok((value('pg_stat_database_xact_commit', { datname: server.datname }) ?? 0) > 0, 'pg_stat_database_xact_commit')
    t.ok(
      (value('pg_stat_database_numbackends', { datname: server.datname }) ?? 0) >= 1,
      'numbackends counts the collector'
    )

    t.ok((value('pg_statio_user_tables_heap_blks_hit') ?? 0) > 0, 'heap_blks_hit')
    t.ok(
      (value('pg_statio_user_indexes_idx_blks_hit', { ...labels, indexrelname: 'known_pkey' }) ?? -1) >= 0,
      'index I/O of known_pkey'
    )
    const bloat = value('pg_bloat_table_ratio') ?? -1
    t.ok(bloat >= 0 && bloat <= 1, `estimated table bloat ratio in [0, 1] (${bloat})`)
    const indexBloat = value('pg_bloat_index_ratio', { ...labels, indexrelname: 'known_pkey' }) ?? -1
    t.ok(indexBloat >= 0 && indexBloat <= 1, `estimated index bloat ratio in [0, 1] (${indexBloat})`)
    const exact = value('pg_bloat_table_exact_bytes') ?? -1
    t.ok(exact > 0, `pgstattuple: dead tuples and free space of the table (${exact} bytes)`)
    t.same(
      [...new Set((f.get('pg_bloat_table_exact_bytes')?.samples ?? []).map(s => s.labels.method))],
      ['pgstattuple'],
      'the exact table figures say they are pgstattuple\'s (method="pgstattuple")'
    )
    t.ok(
      (value('pg_bloat_index_exact_ratio', { ...labels, indexrelname: 'known_pkey' }) ?? -1) >= 0,
      'pgstattuple on the index'
    )

    const states = (f.get('pg_stat_activity_connections')?.samples ?? []).filter(
      s => s.labels.datname === server.datname
    )
    t.same(
      states.map(s => s.labels.state).sort(),
      [
        'active',
        'disabled',
        'fastpath function call',
        'idle',
        'idle in transaction',
        'idle in transaction (aborted)'
      ].sort(),
      'every connection state, zero-filled'
    )
    t.ok(states.find(s => s.labels.state === 'active')?.value, 'the collector itself is active while it polls')

    const settings = (
      await query(
        url,
        "SELECT name, setting FROM pg_settings WHERE name IN ('autovacuum_freeze_max_age', 'autovacuum_naptime', " +
          "'autovacuum_max_workers', 'autovacuum')"
      )
    ).rows
    const setting = (/** @type {string} */ name) => settings.find(row => row.name === name)?.setting
    t.equal(
      value('pg_settings_autovacuum_freeze_max_age', {}),
      Number(setting('autovacuum_freeze_max_age')),
      'pg_settings_autovacuum_freeze_max_age'
    )
    t.equal(
      value('pg_settings_autovacuum_naptime_seconds', {}),
      Number(setting('autovacuum_naptime')),
      'pg_settings_autovacuum_naptime_seconds'
    )
    t.equal(
      value('pg_settings_autovacuum_max_workers', {}),
      Number(setting('autovacuum_max_workers')),
      'pg_settings_autovacuum_max_workers'
    )
    t.equal(value('pg_settings_autovacuum', {}), setting('autovacuum') === 'on' ? 1 : 0, 'pg_settings_autovacuum')
    t.ok((value('pg_stat_bgwriter_buffers_alloc', {}) ?? 0) > 0, 'pg_stat_bgwriter_buffers_alloc')
    t.ok((value('pg_stat_bgwriter_buffers_backend', {}) ?? -1) >= 0, 'pg_stat_bgwriter_buffers_backend')

    const latest = server.collector.collector.latest()
    const table = latest?.tables.find(table => table.relname === 'known')
    t.equal(latest?.datname, server.datname, 'latest(): the database')
    t.equal(table?.liveTuples, KNOWN.live, 'latest(): live tuples')
    t.equal(table?.totalBytes, Number(actual.total), 'latest(): total bytes')
    t.ok(
      table && table.deadFraction !== null && table.deadFraction >= 0 && table.deadFraction < 1,
      'latest(): dead fraction'
    )
    // latest() may be a poll later than the scrape, and the server (shared
    // with the other test files) may have assigned many transaction ids in
    // between: the age it read lies between the scrape's and the age now
    const ageNow = Number(
      (await query(url, "SELECT age(relfrozenxid) AS age FROM pg_class WHERE oid = 'known'::regclass")).rows[0].age
    )
    t.ok(
      table && table.xidAge !== null && table.xidAge >= xidAge - 10 && table.xidAge <= ageNow,
      `latest(): xid age (${table?.xidAge}, the scrape's ${xidAge}, now ${ageNow})`
    )
    t.ok(latest?.databases.find(db => db.datname === server.datname)?.sizeBytes, 'latest(): database size')
    t.ok(Array.isArray(latest?.vacuums), 'latest(): vacuums running')
  })
}

t.test(
  'PG 15: the catalog bloat estimate of a table with half its rows deleted and vacuumed is about half',
  async t => {
    await withClient(pg15.url, async c => {
      await c.query('CREATE TABLE halved (id bigint PRIMARY KEY, v text) WITH (autovacuum_enabled = false)')
      await c.query('INSERT INTO halved SELECT g, md5(g::text) FROM generate_series(1, 20000) g')
      await c.query('ANALYZE halved')
      await c.query('DELETE FROM halved WHERE id % 2 = 0')
      // the session's counts reach the cumulative statistics before the VACUUM
      // does: sent after it (a session flushes at most once a second), they
      // count the inserted and deleted rows again, and the index estimate,
      // which reads them, is 0 until the next VACUUM (notes/pgstats-metrics.md)
      await c.query('SELECT pg_stat_force_next_flush()')
      await c.query('VACUUM halved')
    })
    const labels = { datname: pg15.name, schemaname: 'public', relname: 'halved' }
    const f = await waitFor(
      async () => {
        const f = await c15.families()
        // The table's and the index's estimates come from two queries sampled on
        // their own clocks: wait until both have been read after the VACUUM.
        const table = sampleValue(f, 'pg_bloat_table_ratio', labels) ?? 0
        const index = sampleValue(f, 'pg_bloat_index_ratio', { ...labels, indexrelname: 'halved_pkey' }) ?? 0
        return table > 0 && index > 0 && f
      },
      { what: 'a bloat estimate for halved and its primary key', timeoutMs: 25000, intervalMs: 250 }
    )
    const ratio = sampleValue(f, 'pg_bloat_table_ratio', labels) ?? 0
    t.ok(ratio > 0.4 && ratio < 0.6, `table: ${ratio.toFixed(3)}`)
    const index = sampleValue(f, 'pg_bloat_index_ratio', { ...labels, indexrelname: 'halved_pkey' }) ?? 0
    t.ok(index > 0.3 && index < 0.6, `its primary key: ${index.toFixed(3)}`)
    const bytes = sampleValue(f, 'pg_bloat_table_estimated_bytes', labels) ?? 0
    const heap = Number((await query(pg15.url, "SELECT pg_relation_size('halved') AS n")).rows[0].n)
    t.ok(Math.abs(bytes - ratio * heap) <= 8192, `estimated bytes = ratio × heap size (${bytes} of ${heap})`)
  }
)

t.test(
  'PG 15: a manual VACUUM shows in the vacuum progress with vacuum_mode="manual", and goes when it ends',
  async t => {
    await withClient(pg15.url, async c => {
      await c.query('CREATE TABLE big (id bigint, v text) WITH (autovacuum_enabled = false)')
      await c.query('INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 100000) g')
      await c.query('DELETE FROM big WHERE id % 2 = 0')
    })
    // Slowed down by the cost-based delay, so it lasts long enough to be seen.
    const vacuumer = new pg.Client({ connectionString: pg15.url, application_name: 'pgloadgen-tests' })
    vacuumer.on('error', () => {})
    await vacuumer.connect()
    t.teardown(() => vacuumer.end().catch(() => {}))
    await vacuumer.query("SET vacuum_cost_delay = '100ms'")
    await vacuumer.query('SET vacuum_cost_limit = 10')
    const pid = (await vacuumer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    const started = Date.now() / 1000
    const vacuum = vacuumer.query('VACUUM big').then(
      () => 'done',
      err => err.code
    )

    const labels = { datname: pg15.name, relname: 'big', vacuum_mode: 'manual' }
    const f = await waitFor(
      async () => {
        const f = await c15.families()
        return (
          sampleValue(f, 'pg_stat_progress_vacuum_running', labels) === 1 &&
          (sampleValue(f, 'pg_stat_progress_vacuum_heap_blks_total', labels) ?? 0) > 0 &&
          f
        )
      },
      { what: 'the manual vacuum in pg_stat_progress_vacuum_running', timeoutMs: 10000, intervalMs: 200 }
    )
    t.pass('pg_stat_progress_vacuum_running{vacuum_mode="manual"} = 1')
    const phase = sampleValue(f, 'pg_stat_progress_vacuum_phase', labels) ?? -1
    t.ok(phase >= 0 && phase <= 6, `phase is a number from the documented list (${phase})`)
    const start = sampleValue(f, 'pg_stat_progress_vacuum_query_start', labels) ?? 0
    t.ok(Math.abs(start - started) < 5, `query_start is when the VACUUM began, epoch seconds (${start})`)
    for (const name of [
      'heap_blks_scanned',
      'heap_blks_vacuumed',
      'index_vacuum_count',
      'max_dead_tuples',
      'num_dead_tuples'
    ]) {
      t.ok((sampleValue(f, `pg_stat_progress_vacuum_${name}`, labels) ?? -1) >= 0, `pg_stat_progress_vacuum_${name}`)
    }
    const modes = new Set(
      (f.get('pg_stat_progress_vacuum_running')?.samples ?? [])
        .filter(s => s.labels.relname === 'big')
        .map(s => s.labels.vacuum_mode)
    )
    t.same([...modes], ['manual'], 'one series, manual')
    t.same(
      c15.collector
        .latest()
        ?.vacuums.filter(v => v.relname === 'big')
        .map(v => v.mode),
      ['manual'],
      'latest(): the vacuum running'
    )

    // Ending it (cancelled) removes its series at the next poll.
    await query(pg15.adminUrl, 'SELECT pg_cancel_backend($1)', [pid])
    t.equal(await vacuum, '57014', 'the vacuum was cancelled')
    await waitFor(
      async () => sampleValue(await c15.families(), 'pg_stat_progress_vacuum_running', labels) === undefined,
      { what: 'the vacuum series to go', timeoutMs: 5000, intervalMs: 200 }
    )
    t.pass('the series disappear when the vacuum ends')
  }
)

t.test('PG 18: an anti-wraparound autovacuum shows with vacuum_mode="wraparound"', async t => {
  // Never vacuumed by autovacuum for dead tuples; its own freeze limit
  // 100000 (the global one is 150000); slow, so that it can be seen.
  await withClient(pg18.url, async c => {
    await c.query(`CREATE TABLE wrap (id bigint, v text)
      WITH (autovacuum_enabled = false, autovacuum_freeze_max_age = 100000,
      autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 10)`)
    await c.query('INSERT INTO wrap SELECT g, md5(g::text) FROM generate_series(1, 100000) g')
  })
  const labels = { datname: 'pgloadgen', schemaname: 'public', relname: 'wrap' }
  const before = await waitFor(
    async () => {
      const f = await c18.families()
      return sampleValue(f, 'pg_vacuum_xid_age', labels) !== undefined && f
    },
    { what: 'the xid age of wrap', timeoutMs: 5000 }
  )
  const age = /** @type {number} */ (sampleValue(before, 'pg_vacuum_xid_age', labels))
  t.equal(
    sampleValue(before, 'pg_vacuum_tx_until_wraparound_autovacuum', labels),
    100000 - age,
    "the table's own autovacuum_freeze_max_age is used"
  )
  const known = /** @type {number} */ (sampleValue(before, 'pg_vacuum_xid_age', { ...labels, relname: 'known' }))
  t.equal(
    sampleValue(before, 'pg_vacuum_tx_until_wraparound_autovacuum', { ...labels, relname: 'known' }),
    150000 - known,
    'the global one elsewhere'
  )

  // Age the table past its limit: 101000 transactions, each committed.
  await query(pg18.url, 'DO $$ BEGIN FOR i IN 1..101000 LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$')
  const wrapLabels = { datname: 'pgloadgen', relname: 'wrap', vacuum_mode: 'wraparound' }
  const f = await waitFor(
    async () => {
      const f = await c18.families()
      return sampleValue(f, 'pg_stat_progress_vacuum_running', wrapLabels) === 1 && f
    },
    { what: 'an anti-wraparound autovacuum of wrap', timeoutMs: 20000, intervalMs: 200 }
  )
  t.pass('pg_stat_progress_vacuum_running{vacuum_mode="wraparound"} = 1')
  t.ok((sampleValue(f, 'pg_stat_progress_vacuum_heap_blks_total', wrapLabels) ?? 0) > 0, 'heap_blks_total')
  // PG 17+: num_dead_item_ids under the old name; the store's size in bytes under its own.
  t.equal(
    sampleValue(f, 'pg_stat_progress_vacuum_max_dead_tuples', wrapLabels),
    undefined,
    'no max_dead_tuples on 18: its store is sized in bytes'
  )
  t.ok((sampleValue(f, 'pg_stat_progress_vacuum_max_dead_tuple_bytes', wrapLabels) ?? 0) > 0, 'max_dead_tuple_bytes')
  t.ok(
    (sampleValue(f, 'pg_stat_progress_vacuum_num_dead_tuples', wrapLabels) ?? -1) >= 0,
    'num_dead_tuples (num_dead_item_ids on 18)'
  )
  t.ok((sampleValue(f, 'pg_stat_progress_vacuum_indexes_total', wrapLabels) ?? -1) >= 0, 'indexes_total')
  // from a scrape that has the table's figures after the aging: one taken
  // while a poll is under way may not have them yet, or have the last poll's
  let left
  await waitFor(
    async () => {
      left = sampleValue(await c18.families(), 'pg_vacuum_tx_until_wraparound_autovacuum', labels)
      return typeof left === 'number' && left < 0
    },
    { what: "the transactions left before wrap's limit to go below 0", timeoutMs: 15000, intervalMs: 200 }
  ).catch(() => {})
  t.ok(typeof left === 'number' && left < 0, `the table is past its limit (${left})`)
  t.same(
    c18.collector
      .latest()
      ?.vacuums.filter(v => v.relname === 'wrap')
      .map(v => v.mode),
    ['wraparound'],
    'latest(): the vacuum running'
  )
})

t.test('pgloadgen stats: /metrics, a statement held up by a lock, a connection killed, SIGTERM', async t => {
  const url = urlFor(pg15.url, pg15.name, { password: PASSWORD })
  const inProcessPid =
    (
      await query(
        pg15.adminUrl,
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgloadgen-stats' AND datname = $1",
        [pg15.name]
      )
    ).rows[0]?.pid ?? 0
  const run = new CliRun(['stats', url, '-p', '0', '--stats-interval', '1'], { t })
  const metricsUrl = await run.metricsUrl()
  const labels = { datname: pg15.name, schemaname: 'public', relname: 'known' }
  const first = await waitFor(
    async () => {
      const page = await scrape(metricsUrl)
      return sampleValue(page.families, 'pg_relation_size_total_bytes', labels) !== undefined && page
    },
    { what: 'the known table on /metrics', timeoutMs: 10000 }
  )
  t.notMatch(first.text, PASSWORD, 'no password in the metrics')
  t.ok(first.families.get('nodejs_heap_size_used_bytes'), 'process metrics too')
  const counters = (/** @type {Map<string, import('../helpers/prom.js').Family>} */ f) => ({
    sizeErrors: sampleValue(f, 'pgloadgen_pgstats_poll_errors_total', { query: 'relation_size' }) ?? 0,
    skipped: sampleValue(f, 'pgloadgen_pgstats_polls_skipped_total') ?? 0,
    polls: sampleValue(f, 'pgloadgen_pgstats_polls_total') ?? 0
  })
  const start = counters(first.families)

  // pg_total_relation_size waits for a lock on the table: held for 4 s.
  const holder = new pg.Client({ connectionString: pg15.url })
  holder.on('error', () => {})
  await holder.connect()
  t.teardown(() => holder.end().catch(() => {}))
  await holder.query('BEGIN')
  await holder.query('LOCK TABLE known IN ACCESS EXCLUSIVE MODE')
  let slowest = 0
  const until = Date.now() + 4000
  while (Date.now() < until) {
    const began = performance.now()
    await scrape(metricsUrl)
    slowest = Math.max(slowest, performance.now() - began)
    await sleep(100)
  }
  const during = counters((await scrape(metricsUrl)).families)
  await holder.query('ROLLBACK')
  t.ok(slowest < 500, `/metrics answers quickly while a statement waits (slowest ${slowest.toFixed(0)} ms)`)
  t.ok(
    during.sizeErrors - start.sizeErrors >= 2,
    `the waiting statement timed out and was counted (${during.sizeErrors - start.sizeErrors} times)`
  )
  t.ok(
    during.skipped > start.skipped,
    `polls due while one ran were skipped and counted (${during.skipped - start.skipped})`
  )
  t.ok(during.polls - start.polls >= 2, `polls went on (${during.polls - start.polls})`)
  const after = await waitFor(
    async () => {
      const f = (await scrape(metricsUrl)).families
      return (sampleValue(f, 'pgloadgen_pgstats_last_success_timestamp_seconds') ?? 0) > Date.now() / 1000 - 2 && f
    },
    { what: 'a successful poll after the lock is gone', timeoutMs: 10000 }
  )
  t.ok(after, 'successful polls again once the lock is released')

  // The command's connection killed: it reconnects at a later poll. (The
  // in-process collector of the tests above is connected too: not that one.)
  const statsPids = async () =>
    (
      await query(
        pg15.adminUrl,
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgloadgen-stats' AND datname = $1 AND pid <> $2",
        [pg15.name, inProcessPid]
      )
    ).rows.map(r => r.pid)
  const gone = await statsPids()
  t.equal(gone.length, 1, 'one stats connection of the command')
  await query(pg15.adminUrl, 'SELECT pg_terminate_backend($1)', [gone[0]])
  await waitFor(
    async () => {
      const pids = await statsPids()
      const f = (await scrape(metricsUrl)).families
      return (
        pids.length === 1 &&
        !gone.includes(pids[0]) &&
        (sampleValue(f, 'pgloadgen_pgstats_last_success_timestamp_seconds') ?? 0) > Date.now() / 1000 - 2
      )
    },
    { what: 'a new stats connection and successful polls', timeoutMs: 10000 }
  )
  t.pass('reconnected, polling again')

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `SIGTERM: exit 0; stderr: ${result.stderr}`)
  t.notMatch(result.stderr, PASSWORD, 'no password in the log')
  t.match(result.stderr, /relation_size failed: canceling statement due to statement timeout/, 'the timeout is logged')
  t.equal((result.stderr.match(/relation_size failed/g) ?? []).length, 1, 'once, not at every poll')
})

t.test("pgloadgen run: the PostgreSQL statistics on the run's /metrics, unless --no-pg-stats", async t => {
  const db = await createTestDatabase(t, 'pgstats_run')
  const withStats = new CliRun(['run', db.url, '-c', '2', '-d', '4', '-p', '0', '--stats-interval', '1'], { t })
  const metricsUrl = await withStats.metricsUrl()
  await waitFor(
    async () => {
      const f = (await scrape(metricsUrl)).families
      return (
        (sampleValue(f, 'pg_stat_user_tables_n_tup_ins', {
          datname: db.name,
          schemaname: 'public',
          relname: 'test_table'
        }) ?? 0) > 0 && (sampleValue(f, 'pgloadgen_nqueries_done', { type: 'insert_row' }) ?? 0) > 0
      )
    },
    { what: "the workload's table in the run's metrics", timeoutMs: 10000 }
  )
  t.pass("pg_stat_user_tables_n_tup_ins of test_table next to the generator's metrics")
  t.equal((await withStats.exited).code, 0, 'the run ends with exit 0')

  const without = new CliRun(['run', db.url, '-c', '2', '-d', '3', '-p', '0', '--no-pg-stats'], { t })
  const otherUrl = await without.metricsUrl()
  const f = await waitFor(
    async () => {
      const f = (await scrape(otherUrl)).families
      return (sampleValue(f, 'pgloadgen_nqueries_done', { type: 'insert_row' }) ?? 0) > 0 && f
    },
    { what: 'requests done', timeoutMs: 10000 }
  )
  t.same(
    [...f.keys()].filter(name => name.startsWith('pg_') || name.startsWith('pgloadgen_pgstats_')),
    [],
    '--no-pg-stats: no PostgreSQL statistics'
  )
  t.equal((await without.exited).code, 0, 'exit 0')
})

t.test('pgloadgen stats on the embedded server of a data directory, with --duration', async t => {
  // Already running (this file started it): used, and left running.
  const run = new CliRun(['stats', '--data-dir', pg18.dataDir, '-p', '0', '--stats-interval', '1', '-d', '3'], { t })
  const metricsUrl = await run.metricsUrl()
  await waitFor(
    async () =>
      sampleValue((await scrape(metricsUrl)).families, 'pg_stat_user_tables_n_live_tup', {
        datname: 'pgloadgen',
        schemaname: 'public',
        relname: 'known'
      }) === KNOWN.live,
    { what: 'the known table of the embedded server', timeoutMs: 10000 }
  )
  t.pass("the statistics of the embedded server's pgloadgen database")
  const result = await run.exited
  t.equal(result.code, 0, `exit 0 after the duration; stderr: ${result.stderr}`)
  t.notMatch(result.stderr, /embedded PostgreSQL stopped/, 'the server it found running is left running')
  t.equal((await query(pg18.url, 'SELECT 1 AS one')).rows[0].one, 1, 'and answers')
})

t.test('bad input to the stats options: one line, exit 2', async t => {
  const url = urlFor(pg15.url, pg15.name, { password: PASSWORD })
  const cases = [
    { args: ['stats', url, '--stats-interval', '0'], problem: /--stats-interval/ },
    { args: ['stats', url, '--stats-interval', '2h'], problem: /--stats-interval must be between 1 and 3600/ },
    { args: ['stats', url, '-p', '99999'], problem: /--http-port/ },
    { args: ['stats', url, '--bogus'], problem: /unknown argument.*bogus/i },
    { args: ['stats', '--profile', 'no-such-profile'], problem: /profile/ },
    { args: ['run', url, '--stats-interval', 'often', '-d', '1'], problem: /--stats-interval/ }
  ]
  for (const c of cases) {
    const result = await new CliRun(c.args, { t }).exited
    const errorLines = result.stderr.split('\n').filter(line => line.trim() !== '')
    t.equal(result.code, 2, `${c.args.slice(2).join(' ')}: exit 2`)
    t.equal(errorLines.length, 1, 'one line')
    t.match(errorLines[0], c.problem, errorLines[0])
    t.notMatch(result.stderr, PASSWORD, 'no password')
  }
})
