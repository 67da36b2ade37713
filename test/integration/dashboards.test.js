// The Grafana dashboards in dashboards/ work: statically (current schema, a
// datasource and a table variable, nothing hard-coded to test_table, every
// panel of the original experiment's dashboard, only metric names and labels
// that exist, latency quantiles from histogram_quantile over bucket rates),
// and live: a real Prometheus (Debian's package) scrapes a real
// `pgloadgen run` against PostgreSQL 15 at 1 s while a slowed-down manual
// VACUUM runs, and every PromQL expression of every panel and annotation,
// with Grafana's variables substituted, returns at least one series with a
// finite value over the test window.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, query as pgQuery } from '../helpers/pg.js'
import { startPrometheus, missingBinary, finitePoints, PROMETHEUS_BIN } from '../helpers/prometheus.js'
import {
  DASHBOARD_DIR,
  loadDashboards,
  panelsOf,
  panelQueries,
  annotationQueries,
  substitute,
  metricNames
} from '../helpers/dashboards.js'
import { cliHasOption } from '../helpers/cli-options.js'
import { slowVacuum } from '../helpers/vacuum.js'
import { metricOnVersion, VERSION_SPECIFIC } from '../../lib/pgstats/metric-versions.js'

const TABLE = 'test_table' // the manta workload's table
const RUN_SECONDS = 30
const SCRAPE_INTERVAL_S = 1

// Every metric the dashboards may read, with its labels (besides the job and
// instance labels Prometheus adds). The generator's exist now; the PostgreSQL
// side is the stats collector's contract (issue 4).
const T = ['datname', 'schemaname', 'relname']
/** @type {Record<string, string[]>} */
const KNOWN_METRICS = {
  pgloadgen_nconns: ['pgUrl'],
  pgloadgen_query_latency_max_us: ['type'],
  pgloadgen_nqueries_started: ['type'],
  pgloadgen_nqueries_done: ['type'],
  pgloadgen_nqueries_failed: ['type'],
  pgloadgen_error_messages: ['errorMessage'],
  pgloadgen_query_latency_us: ['type', 'result', 'le'],
  pgloadgen_cpu_user_us: [],
  pgloadgen_cpu_system_us: [],
  process_cpu_seconds_total: [],
  process_cpu_user_seconds_total: [],
  process_cpu_system_seconds_total: [],
  process_resident_memory_bytes: [],
  pgloadgen_pgstats_polls_total: [],
  pgloadgen_pgstats_poll_errors_total: ['query'],
  ...Object.fromEntries(
    [
      'n_live_tup',
      'n_dead_tup',
      'n_tup_ins',
      'n_tup_upd',
      'n_tup_del',
      'n_tup_hot_upd',
      'vacuum_count',
      'autovacuum_count',
      'analyze_count',
      'autoanalyze_count',
      'seq_scan',
      'idx_scan',
      'last_vacuum',
      'last_autovacuum'
    ].map(c => [`pg_stat_user_tables_${c}`, T])
  ),
  ...Object.fromEntries(
    ['heap_blks_read', 'heap_blks_hit', 'idx_blks_read', 'idx_blks_hit'].map(c => [`pg_statio_user_tables_${c}`, T])
  ),
  ...Object.fromEntries(
    ['row_estimate', 'total_bytes', 'index_bytes', 'toast_bytes'].map(c => [`pg_relation_size_${c}`, T])
  ),
  pg_stat_activity_connections: ['datname', 'state'],
  ...Object.fromEntries(
    [
      'buffers_alloc',
      'buffers_clean',
      'buffers_backend',
      'buffers_checkpoint',
      'checkpoints_timed',
      'checkpoints_req'
    ].map(c => [`pg_stat_bgwriter_${c}`, []])
  ),
  ...Object.fromEntries(
    [
      'phase',
      'heap_blks_total',
      'heap_blks_scanned',
      'heap_blks_vacuumed',
      'index_vacuum_count',
      'max_dead_tuples',
      'num_dead_tuples',
      'query_start',
      'running',
      'max_dead_tuple_bytes',
      'dead_tuple_bytes'
    ].map(c => [`pg_stat_progress_vacuum_${c}`, ['datname', 'relname', 'vacuum_mode']])
  ),
  pg_stat_wal_bytes_total: [],
  pg_stat_database_active_time_seconds_total: ['datname'],
  pg_stat_database_idle_in_transaction_time_seconds_total: ['datname'],
  pg_vacuum_xid_age: T,
  pg_vacuum_tx_until_wraparound_autovacuum: T,
  pg_vacuum_mxid_age: T,
  pg_vacuum_mxid_until_wraparound_autovacuum: T,
  pg_xmin_horizon_age: ['kind'],
  pg_xmin_horizon_oldest_age: [],
  pg_xmin_holder_age: ['kind', 'pid', 'application_name', 'name', 'datname'],
  pg_xmin_holder_xact_age_seconds: ['kind', 'pid', 'application_name', 'name', 'datname'],
  pg_locks_waiting_backends: ['datname'],
  pg_locks_longest_wait_seconds: [],
  pg_database_size_bytes: ['datname'],
  ...Object.fromEntries(
    ['xact_commit', 'xact_rollback', 'blks_read', 'blks_hit'].map(c => [`pg_stat_database_${c}`, ['datname']])
  ),
  // "pg_settings_autovacuum_freeze_max_age etc.": the settings as gauges;
  // their labels are not fixed by the contract, so the dashboards use them
  // only through max() and on().
  pg_settings_autovacuum_freeze_max_age: [],
  pg_settings_autovacuum_vacuum_threshold: [],
  pg_settings_autovacuum_vacuum_scale_factor: [],
  pg_bloat_table_ratio: T,
  pg_bloat_table_estimated_bytes: T,
  pg_bloat_index_ratio: [...T, 'indexrelname'],
  pg_autovacuum_next_seconds: [...T, 'reason'],
  pg_autovacuum_threshold_crossing_seconds: [...T, 'reason'],
  pg_autovacuum_next_duration_seconds: [...T, 'reason']
}
const KNOWN = new Set(Object.keys(KNOWN_METRICS))
const SCRAPE_LABELS = ['job', 'instance']

// Only the generator's own metrics exist without the PostgreSQL stats collector.
const fromCollector = (/** @type {string} */ name) => !/^(pgloadgen_(?!pgstats_)|process_|nodejs_)/.test(name)

// The original experiment's 15 panels (reference: original-tools.md), then
// what issue 4 adds. Matched against panel titles.
const REQUIRED_PANELS = {
  'completed queries by type': /^Completed queries by type$/,
  'latency p50/p90/p95/p99 and mean': /^Latency p50 \/ p90 \/ p95 \/ p99 and mean$/,
  'live and dead tuples': /^Live and dead tuples$/,
  'insert and update rates': /^Insert and update rates$/,
  'vacuums running': /^Vacuums running$/,
  'vacuum progress': /^Vacuum progress/,
  'relation and index bytes': /^Relation and index bytes$/,
  'buffer activity': /^Buffer activity$/,
  'loadgen connections': /^Loadgen connections$/,
  'outstanding queries': /^Outstanding queries$/,
  'PostgreSQL connections by state': /^PostgreSQL connections by state$/,
  'expected normal autovacuums': /expected normal autovacuums/,
  'loadgen CPU': /^Loadgen CPU$/,
  'error messages': /^Error messages$/,
  'failed queries by type': /^Failed queries by type$/,
  'xid age': /^XID age$/,
  'distance to the anti-wraparound threshold': /until anti-wraparound autovacuum/,
  bloat: /bloat/i,
  'vacuum mode and duration': /^Vacuum duration by mode$/,
  'p99 latency per request type': /^p99 latency by request type$/,
  'outstanding requests': /^Outstanding (requests|queries)$/,
  'xmin horizon by holder kind': /^xmin horizon age by holder kind$/,
  'xmin holders': /^xmin holders/,
  'lock waits': /^Backends waiting for a lock$/,
  'multixact age': /^Multixact age$/,
  'distance to the multixact anti-wraparound threshold': /^Multixacts until anti-wraparound autovacuum$/,
  'the autovacuum forecast': /^Next autovacuum, forecast$/
}

// Annotations that cannot fire on the test server: it runs with autovacuum
// off and autovacuum_freeze_max_age at its default. Their expressions are
// still evaluated (they must parse); only data is not required.
/** @type {Record<string, string>} */
const ANNOTATIONS_WITHOUT_DATA = {
  'Anti-wraparound vacuum (any table)':
    "needs an anti-wraparound autovacuum (provoked in the stats collector's own tests)",
  'Autovacuum finished': 'the test server runs with autovacuum off'
}

// Panels whose series need what the test server never does.
const PANELS_WITHOUT_DATA = {
  'Next autovacuum duration, forecast':
    "the test server runs with autovacuum off: no autovacuum is seen whole (the forecast's own tests have one)"
}

const dashboards = loadDashboards()

t.test('dashboard structure', async t => {
  t.ok(dashboards.length >= 1, 'at least one dashboard in dashboards/')
  for (const dashboard of dashboards) {
    const { file, json } = dashboard
    t.test(file, async t => {
      const text = readFileSync(join(DASHBOARD_DIR, file), 'utf8')
      t.notMatch(text, new RegExp(TABLE), `nothing hard-coded to ${TABLE}`)
      t.ok(json.schemaVersion >= 39, `current schema (schemaVersion ${json.schemaVersion} ≥ 39)`)
      t.ok(json.uid && json.title, 'a uid and a title')

      const variables = json.templating?.list ?? []
      const datasource = variables.find((/** @type {any} */ v) => v.name === 'datasource')
      t.equal(datasource?.type, 'datasource', 'a datasource variable')
      t.equal(datasource?.query, 'prometheus', 'the datasource variable lists Prometheus datasources')
      const table = variables.find((/** @type {any} */ v) => v.name === 'table')
      t.equal(table?.type, 'query', 'a table variable')
      const tableQuery = typeof table?.query === 'string' ? table.query : table?.query?.query
      t.match(
        tableQuery,
        /^label_values\(pg_stat_user_tables_n_live_tup(\{[^}]*\})?, relname\)$/,
        'the table variable lists the relnames of pg_stat_user_tables_n_live_tup'
      )
      for (const v of variables.filter((/** @type {any} */ v) => v.type === 'query')) {
        t.equal(v.datasource?.uid, '${datasource}', `variable ${v.name} queries the chosen datasource`)
      }

      const panels = panelsOf(json)
      // A panel reading a figure some majors lack says which majors have it.
      for (const panel of panels) {
        const versioned = (panel.targets ?? []).flatMap((/** @type {any} */ target) =>
          metricNames(target.expr ?? '', KNOWN).names.filter(name => name in VERSION_SPECIFIC)
        )
        if (versioned.length === 0) continue
        t.match(
          `${panel.title} ${panel.description ?? ''}`,
          /PostgreSQL \d+/,
          `${panel.title}: says which PostgreSQL majors have ${[...new Set(versioned)].join(', ')}`
        )
      }
      const ids = panels.map(p => p.id)
      t.equal(new Set(ids).size, ids.length, 'panel ids are unique')
      for (const panel of panels) {
        t.ok(['timeseries', 'stat'].includes(panel.type), `${panel.title}: a current panel type (${panel.type})`)
        t.equal(panel.datasource?.uid, '${datasource}', `${panel.title}: uses the datasource variable`)
        t.ok(panel.fieldConfig?.defaults?.unit, `${panel.title}: has a unit (${panel.fieldConfig?.defaults?.unit})`)
        t.ok(panel.gridPos && panel.gridPos.w > 0 && panel.gridPos.h > 0, `${panel.title}: has a place in the grid`)
        t.ok(panel.targets?.length > 0, `${panel.title}: has targets`)
        for (const target of panel.targets ?? []) {
          t.equal(
            target.datasource?.uid,
            '${datasource}',
            `${panel.title} › ${target.refId}: target uses the datasource variable`
          )
        }
      }

      const queries = [...panelQueries(dashboard), ...annotationQueries(dashboard)]
      for (const { where, expr } of queries) {
        t.type(expr, 'string', `${where}: has an expression`)
        if (typeof expr !== 'string') continue
        const { names, unknown } = metricNames(expr, KNOWN)
        t.same(unknown, [], `${where}: only known metric names (no misspelling)`)
        // Grouping only by labels the metrics read actually carry.
        const labels = new Set([...SCRAPE_LABELS, ...names.flatMap(name => KNOWN_METRICS[name] ?? [])])
        for (const [, clause] of expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
          for (const label of clause
            .split(',')
            .map(s => s.trim())
            .filter(Boolean)) {
            t.ok(labels.has(label), `${where}: groups or matches by "${label}", a label of ${names.join(', ')}`)
          }
        }
        // Latency: quantiles from histogram_quantile over bucket rates by le,
        // never max() or anything else over the buckets.
        if (expr.includes('pgloadgen_query_latency_us_bucket')) {
          t.match(
            expr,
            /^histogram_quantile\(0?\.\d+, sum by \(le(, \w+)*\) \(rate\(pgloadgen_query_latency_us_bucket(\{[^}]*\})?\[\$__rate_interval\]\)\)\)$/,
            `${where}: histogram_quantile over rate(bucket) summed by le`
          )
        }
      }
      t.ok(
        annotationQueries(dashboard).some(a => /pg_stat_progress_vacuum_running/.test(a.expr)),
        'an annotation marks running vacuums (start to end)'
      )
      t.ok(
        annotationQueries(dashboard).some(a => /vacuum_count/.test(a.expr)),
        'an annotation marks finished vacuums'
      )
    })
  }
  const titles = dashboards.flatMap(d => panelsOf(d.json).map(p => p.title))
  for (const [what, pattern] of Object.entries(REQUIRED_PANELS)) {
    t.ok(
      titles.some(title => pattern.test(title)),
      `a panel for ${what}`
    )
  }
})

t.test('every expression returns data from a real Prometheus scraping a real run', async t => {
  const missing = missingBinary(PROMETHEUS_BIN)
  if (missing) {
    t.fail(missing)
    return
  }
  // The PostgreSQL-side metrics come from the stats collector (--stats-interval
  // on run). Without it, the generator's panels are still checked, and every
  // PostgreSQL expression fails, saying why.
  const collector = cliHasOption('run', '--stats-interval')
  if (!collector) {
    t.comment(
      'this pgloadgen has no --stats-interval: the PostgreSQL stats collector has not landed, its panels will fail'
    )
  }

  const db = await createTestDatabase(t, 'dashboards')
  // A panel of a newer major's figures (its title says so) has no series on an older server.
  const serverVersion = Number((await pgQuery(db.url, 'SHOW server_version_num')).rows[0].server_version_num)
  /** @param {string} expr */
  const newerMajor = expr => metricNames(expr, KNOWN).names.filter(name => !metricOnVersion(name, serverVersion))
  const args = ['run', db.url, '-c', '4', '-p', '0', '--json', '-d', String(RUN_SECONDS)]
  if (collector) args.push('--stats-interval', '1')
  const run = new CliRun(args, { t })
  const metricsUrl = new URL(await run.metricsUrl())
  const prometheus = await startPrometheus(t, { targets: [metricsUrl.host], scrapeIntervalS: SCRAPE_INTERVAL_S })
  const start = Date.now() / 1000

  await waitFor(async () => (await prometheus.query('pgloadgen_nqueries_done')).length > 0, {
    timeoutMs: 20000,
    what: 'Prometheus to scrape the run'
  })
  if (collector) {
    await waitFor(
      async () => (await prometheus.query(`pg_stat_user_tables_n_live_tup{relname="${TABLE}"}`)).length > 0,
      { timeoutMs: 20000, what: `the stats collector's ${TABLE} series in Prometheus` }
    ).catch(err => t.fail(String(err)))
  }
  // Rows for the vacuum to work through (about one heap page per 100 ms).
  await sleep(Math.max(0, start + 8 - Date.now() / 1000) * 1000)
  const vacuum = await slowVacuum(db.url, TABLE, 8000)
  t.ok(
    vacuum.visibleMs >= 3000,
    `the slowed manual VACUUM was in pg_stat_progress_vacuum for ${(vacuum.visibleMs / 1000).toFixed(1)} s (≥ 3 s)`
  )
  // One that completes, for vacuum_count, last_vacuum and the "finished" annotation.
  await pgQuery(db.url, `VACUUM ${TABLE}`)
  await sleep(4000)

  const result = await run.exited
  t.equal(result.code, 0, 'the run exits 0')
  await sleep(2 * SCRAPE_INTERVAL_S * 1000)
  const end = Date.now() / 1000

  /** @type {Record<string, string>} */
  const values = {
    datasource: 'prometheus',
    database: db.name,
    table: TABLE,
    __rate_interval: '15s',
    __interval: '5s',
    __range: `${Math.ceil(end - start)}s`
  }

  /**
   * Evaluates expr over the test window; null when it returns a finite point,
   * else why not.
   * @param {string} expr
   */
  const evaluate = async expr => {
    try {
      const series = await prometheus.queryRange(expr, start, end, SCRAPE_INTERVAL_S)
      if (series.length === 0) return 'no series'
      if (finitePoints(series) === 0) return `${series.length} series, no finite value`
      return null
    } catch (err) {
      return `query error: ${/** @type {Error} */ (err).message}`
    }
  }
  /** @param {string} expr */
  const collectorNote = expr => {
    if (collector) return ''
    const { names } = metricNames(expr, KNOWN)
    return names.some(fromCollector) ? ' (needs the PostgreSQL stats collector, not in this pgloadgen yet)' : ''
  }

  t.test('the manual vacuum is labelled vacuum_mode="manual"', async t => {
    const expr = `pg_stat_progress_vacuum_running{relname="${TABLE}", datname="${db.name}", vacuum_mode="manual"}`
    const problem = await evaluate(expr)
    t.equal(problem, null, `${expr}${collectorNote(expr)}`)
  })

  /** @type {Map<string, string[]>} */
  const dependent = new Map()
  for (const dashboard of dashboards) {
    t.test(`${dashboard.file}: panels`, async t => {
      for (const { where, title, expr } of panelQueries(dashboard)) {
        const substituted = substitute(expr, values)
        const problem = await evaluate(substituted)
        if (metricNames(expr, KNOWN).names.some(fromCollector)) {
          dependent.set(title, [...(dependent.get(title) ?? []), where])
        }
        const newer = newerMajor(expr)
        if (Object.hasOwn(PANELS_WITHOUT_DATA, title)) {
          t.ok(
            problem === null || problem === 'no series',
            `${where}: parses (no data required: ${PANELS_WITHOUT_DATA[title]}): ` +
              `${substituted}${problem?.startsWith('query error') ? ` — ${problem}` : ''}`
          )
        } else if (newer.length > 0) {
          t.ok(
            problem === null || problem === 'no series',
            `${where}: parses (no data required: ${newer.join(', ')} not on server_version_num ${serverVersion}): ` +
              `${substituted}${problem?.startsWith('query error') ? ` — ${problem}` : ''}`
          )
        } else {
          t.equal(problem, null, `${where}: ${substituted}${problem ? collectorNote(expr) : ''}`)
        }
      }
    })
    t.test(`${dashboard.file}: annotations`, async t => {
      for (const { where, title, expr } of annotationQueries(dashboard)) {
        const substituted = substitute(expr, values)
        const problem = await evaluate(substituted)
        if (Object.hasOwn(ANNOTATIONS_WITHOUT_DATA, title)) {
          t.ok(
            problem === null || problem === 'no series',
            `${where}: parses (no data required: ${ANNOTATIONS_WITHOUT_DATA[title]}): ` +
              `${substituted}${problem?.startsWith('query error') ? ` — ${problem}` : ''}`
          )
        } else {
          t.equal(problem, null, `${where}: ${substituted}${problem ? collectorNote(expr) : ''}`)
        }
      }
    })
  }
  t.teardown(() => {
    if (!collector && dependent.size > 0) {
      t.comment(`panels that need the PostgreSQL stats collector: ${[...dependent.keys()].join('; ')}`)
    }
  })
})
