// Prometheus's own checker on what pgloadgen serves and ships:
// `promtool check metrics` on the /metrics text of a real run (with the
// PostgreSQL stats collector polling every second, and a manual VACUUM
// running so that the vacuum-progress series are in the page) finds no format
// errors, and its naming lints name only the original metrics kept for
// compatibility; `promtool check config` accepts prometheus/prometheus.yml.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { CliRun, REPO, waitFor } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { PROMTOOL_BIN, missingBinary } from '../helpers/prometheus.js'
import { cliHasOption } from '../helpers/cli-options.js'
import { slowVacuum } from '../helpers/vacuum.js'

const TABLE = 'test_table'
const FORMAT_ERROR_EXIT = 1 // promtool: 0 clean, 3 lint problems only, 1 errors

// The original tools' names, kept so that existing queries keep working
// (reference: original-tools.md). Any lint is accepted for the generator's
// nine; the exporter's cumulative columns are counters without "_total".
const ORIGINAL_GENERATOR_NAMES = new Set([
  'pgloadgen_nconns',
  'pgloadgen_query_latency_max_us',
  'pgloadgen_nqueries_started',
  'pgloadgen_nqueries_done',
  'pgloadgen_nqueries_failed',
  'pgloadgen_error_messages',
  'pgloadgen_query_latency_us',
  'pgloadgen_cpu_user_us',
  'pgloadgen_cpu_system_us'
])
const ORIGINAL_COUNTER_PREFIXES = ['pg_stat_user_tables_', 'pg_stat_bgwriter_', 'pg_statio_', 'pg_stat_database_']
const COUNTER_WITHOUT_TOTAL = 'counter metrics should have "_total" suffix'
const GAUGE_WITH_TOTAL = 'non-counter metrics should not have "_total" suffix'
const COUNT_SUFFIX = 'non-histogram and non-summary metrics should not have "_count" suffix'
// The exporter's columns whose names end like Prometheus suffixes: the
// *_count columns of pg_stat_user_tables (vacuum_count, analyze_count, …) and
// pg_stat_progress_vacuum.index_vacuum_count, and the gauge
// pg_stat_progress_vacuum.heap_blks_total.
const ORIGINAL_COUNT_COLUMN = /^pg_stat_user_tables_\w+_count$/
const ORIGINAL_GAUGES = new Map([
  ['pg_stat_progress_vacuum_heap_blks_total', GAUGE_WITH_TOTAL],
  ['pg_stat_progress_vacuum_index_vacuum_count', COUNT_SUFFIX]
])
// Not ours: prom-client's default Node.js metrics (collectDefaultMetrics), the
// same names every Node exporter serves. Three are gauges ending in "_total".
const PROM_CLIENT_GAUGES_ENDING_IN_TOTAL = new Set([
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total'
])

/**
 * Why a lint is accepted, or null when it is not.
 * @param {string} name
 * @param {string} problem
 */
function accepted(name, problem) {
  if (ORIGINAL_GENERATOR_NAMES.has(name)) return 'original generator name'
  if (problem === COUNTER_WITHOUT_TOTAL && ORIGINAL_COUNTER_PREFIXES.some(prefix => name.startsWith(prefix))) {
    return 'original exporter counter'
  }
  if (problem === COUNT_SUFFIX && ORIGINAL_COUNT_COLUMN.test(name)) return 'original exporter column ending in _count'
  if (ORIGINAL_GAUGES.get(name) === problem) return 'original exporter gauge'
  if (problem === GAUGE_WITH_TOTAL && PROM_CLIENT_GAUGES_ENDING_IN_TOTAL.has(name)) return 'prom-client default metric'
  return null
}

/**
 * Lint lines of promtool check metrics ("<metric> <problem>").
 * @param {string} output
 */
function parseLints(output) {
  return output
    .split('\n')
    .map(line => line.trim())
    .filter(Boolean)
    .map(line => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*):?\s+(.+)$/.exec(line)
      return match ? { line, name: match[1], problem: match[2] } : { line, name: null, problem: line }
    })
}

const missing = missingBinary(PROMTOOL_BIN)

t.test('promtool check config accepts prometheus/prometheus.yml', async t => {
  if (missing) return t.fail(missing)
  const result = spawnSync(PROMTOOL_BIN, ['check', 'config', join(REPO, 'prometheus', 'prometheus.yml')], {
    encoding: 'utf8'
  })
  t.equal(result.status, 0, `promtool check config exit 0\n${result.stdout}${result.stderr}`)
})

t.test('promtool check metrics on the /metrics of a real run', async t => {
  if (missing) return t.fail(missing)
  const collector = cliHasOption('run', '--stats-interval')
  if (!collector) {
    t.comment(
      'this pgloadgen has no --stats-interval: the PostgreSQL stats collector has not landed; ' +
        "only the generator's metrics are checked"
    )
  }

  const db = await createTestDatabase(t, 'promtool')
  const args = ['run', db.url, '-c', '2', '-p', '0', '-d', '60']
  if (collector) args.push('--stats-interval', '1')
  const run = new CliRun(args, { t })
  const metricsUrl = await run.metricsUrl()
  const fetchText = async () => {
    const response = await fetch(metricsUrl)
    return response.text()
  }

  let text = await waitFor(
    async () => {
      const page = await fetchText()
      return /^pgloadgen_nqueries_done\{type="insert_row"\} [1-9]/m.test(page) ? page : null
    },
    { what: 'requests to be counted' }
  )

  if (collector) {
    await waitFor(async () => (await fetchText()).includes(`relname="${TABLE}"`), {
      timeoutMs: 20000,
      what: `the stats collector's ${TABLE} series`
    })
    // A page with vacuum-progress series in it: scrape while a slowed manual
    // VACUUM runs, until the series shows or the VACUUM has ended (a loaded
    // machine can take seconds to connect it and to poll)
    let ended = false
    const vacuum = slowVacuum(db.url, TABLE, 15000).finally(() => {
      ended = true
    })
    const page = await waitFor(
      async () => {
        const scraped = await fetchText()
        return /^pg_stat_progress_vacuum_running\{/m.test(scraped) || ended ? scraped : null
      },
      { timeoutMs: 20000, what: 'pg_stat_progress_vacuum_running on /metrics during a manual VACUUM' }
    )
    const { visibleMs } = await vacuum
    t.ok(
      /^pg_stat_progress_vacuum_running\{/m.test(page),
      `pg_stat_progress_vacuum_running on /metrics during the VACUUM (in pg_stat_progress_vacuum for ${Math.round(visibleMs)} ms)`
    )
    text = page
  }
  run.kill('SIGTERM')
  await run.exited

  const result = spawnSync(PROMTOOL_BIN, ['check', 'metrics'], { input: text, encoding: 'utf8' })
  t.not(
    result.status,
    FORMAT_ERROR_EXIT,
    `no format errors ` +
      `(exit ${result.status})${result.status === FORMAT_ERROR_EXIT ? `\n${result.stdout}${result.stderr}` : ''}`
  )
  t.ok(result.status === 0 || result.status === 3, `exit 0 or 3 (lints only), got ${result.status}`)

  const lints = parseLints(`${result.stdout}\n${result.stderr}`)
  const rejected = lints.filter(lint => lint.name === null || accepted(lint.name, lint.problem) === null)
  for (const lint of lints) {
    const why = lint.name === null ? null : accepted(lint.name, lint.problem)
    if (why) t.comment(`accepted (${why}): ${lint.line}`)
  }
  t.same(
    rejected.map(lint => lint.line),
    [],
    'every naming lint names an original metric kept for compatibility'
  )

  // Names promtool does not lint: our own counters end in _total.
  const counters = [...text.matchAll(/^# TYPE (\S+) counter$/gm)].map(match => match[1])
  const ours = counters.filter(
    name => !ORIGINAL_GENERATOR_NAMES.has(name) && !ORIGINAL_COUNTER_PREFIXES.some(prefix => name.startsWith(prefix))
  )
  t.same(
    ours.filter(name => !name.endsWith('_total')),
    [],
    'every counter that is not an original name ends in _total'
  )
})
