// The report of the time-series plans, on run and experiment directories
// made up second by second (test/fixtures/report/synthetic.js): retention
// by DROP against DELETE, Tgres at fillfactor 100 against 70, a paced
// fleet ramp. summary.json's whole-run figures are checked against what is
// computed here from the same samples and events; the pages are opened in
// headless Chromium: the tables and charts there, every chart drawn, no
// console output, the cursor on a retention band showing what it removed,
// screenshots kept in test/artifacts/.
import t from 'tap'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, REPO } from '../helpers/cli.js'
import { readExperimentSummary } from '../helpers/summary-schema.js'
import { renderPage, screenshot } from '../helpers/chromium.js'
import { fleetRun, retentionRun, tgresRun, writeExperiment, writeRun } from '../fixtures/report/synthetic.js'
import { writeReport } from '../../lib/report/index.js'
import { readRun } from '../../lib/results/read.js'
import { runCapacity } from '../../lib/report/capacity.js'
import { runWhole } from '../../lib/results/whole-run.js'

const ARTIFACTS = path.join(REPO, 'test', 'artifacts')
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-report-ts-'))
t.teardown(() => rm(work, { recursive: true, force: true }))
await mkdir(ARTIFACTS, { recursive: true })

/** @typedef {import('../fixtures/report/synthetic.js').SyntheticRun} SyntheticRun */

/** @param {number[]} values */
const sum = values => values.reduce((a, b) => a + b, 0)
/** @param {number[]} values */
const average = values => sum(values) / values.length

/**
 * The whole-run figures of a made-up run, computed from its samples and
 * events as WHOLE_RUN_METHOD defines them (every sample covers one second).
 * @param {SyntheticRun} run
 */
function expected(run) {
  const counted = run.samples.slice(1).filter(s => !s.paused)
  const seconds = counted.length
  const pg = run.samples.map(s => s.pg)
  const last = pg[pg.length - 1]
  /** @type {Record<string, number>} */
  const p99 = {}
  for (const type of Object.keys(run.samples[0].requests)) {
    const active = counted.filter(s => s.requests[type].done > 0)
    if (active.length) p99[type] = average(active.map(s => s.requests[type].p99_us))
  }
  const lags = counted.filter(s => s.lag).map(s => s.lag.p99_us)
  const ends = run.events.filter(e => e.kind === 'end' && (e.action === 'drop-partitions' || e.action === 'delete'))
  /** @type {Record<string, { first: number, last: number, mean: number, max: number }>} */
  const workload = {}
  for (const name of new Set(run.samples.flatMap(s => Object.keys(s.workload ?? {})))) {
    const values = run.samples.map(s => s.workload?.[name]).filter(v => typeof v === 'number')
    workload[name] = {
      first: values[0],
      last: values[values.length - 1],
      mean: average(values),
      max: Math.max(...values)
    }
  }
  return {
    seconds,
    requests_per_s: sum(counted.map(s => s.throughput)) / seconds,
    failed_per_s: sum(counted.flatMap(s => Object.values(s.requests).map(r => r.failed))) / seconds,
    rows_per_s: run.samples.some(s => s.rows > 0) ? sum(counted.map(s => s.rows)) / seconds : null,
    points_per_s: run.samples.some(s => s.points > 0) ? sum(counted.map(s => s.points)) / seconds : null,
    p99,
    start_lag_p99_us: lags.length ? average(lags) : null,
    dead_tuples_peak: Math.max(...pg.map(f => f.dead_tuples)),
    table_bytes_end: last.table_bytes,
    table_bytes_peak: Math.max(...pg.map(f => f.table_bytes)),
    xid_age_end: last.xid_age,
    partitions_end: last.partitions ?? null,
    retention:
      ends.length === 0
        ? null
        : {
            runs: ends.length,
            skipped: ends.filter(e => e.detail?.skipped).length,
            rows_removed: sum(ends.map(e => e.detail.rows ?? e.detail.rows_deleted ?? 0)),
            partitions_dropped: sum(ends.map(e => e.detail.dropped ?? 0)),
            bytes_dropped: sum(ends.map(e => e.detail.bytes ?? 0)),
            batches: sum(ends.map(e => e.detail.batches ?? 0)),
            seconds: sum(ends.map(e => e.duration_s))
          },
    workload
  }
}

/**
 * @param {Tap.Test} t
 * @param {number | null} actual
 * @param {number | null} wanted
 * @param {number} digits   decimals the report rounds to
 * @param {string} message
 */
function close(t, actual, wanted, digits, message) {
  if (wanted === null || actual === null) return t.equal(actual, wanted, message)
  return t.ok(Math.abs(actual - wanted) <= 0.5 * 10 ** -digits + 1e-9, `${message}: ${actual}, computed ${wanted}`)
}

/**
 * A rep's whole_run in summary.json against the figures computed here.
 * @param {Tap.Test} t
 * @param {any} whole
 * @param {ReturnType<typeof expected>} want
 * @param {string} name
 */
function checkRep(t, whole, want, name) {
  t.equal(whole.seconds, want.seconds, `${name}: seconds counted`)
  close(t, whole.requests_per_s, want.requests_per_s, 1, `${name}: requests/s`)
  close(t, whole.failed_per_s, want.failed_per_s, 1, `${name}: failed requests/s`)
  close(t, whole.rows_per_s, want.rows_per_s, 1, `${name}: rows/s`)
  close(t, whole.points_per_s, want.points_per_s, 1, `${name}: points/s`)
  t.same(Object.keys(whole.latency_p99_us_by_type), Object.keys(want.p99), `${name}: p99 of the request types that ran`)
  for (const [type, value] of Object.entries(want.p99))
    close(t, whole.latency_p99_us_by_type[type], value, 0, `${name}: p99 of ${type}`)
  close(t, whole.start_lag_p99_us, want.start_lag_p99_us, 0, `${name}: start lag p99`)
  t.equal(whole.dead_tuples_peak, want.dead_tuples_peak, `${name}: peak dead tuples`)
  t.equal(whole.table_bytes_end, want.table_bytes_end, `${name}: size at the end`)
  t.equal(whole.table_bytes_peak, want.table_bytes_peak, `${name}: peak size`)
  t.equal(whole.xid_age_end, want.xid_age_end, `${name}: xid age at the end`)
  t.equal(whole.partitions_end, want.partitions_end, `${name}: partitions at the end`)
  if (want.retention === null) t.equal(whole.retention, null, `${name}: no retention`)
  else t.match(whole.retention, want.retention, `${name}: what retention removed, summed from the end events`)
  t.same(Object.keys(whole.workload), Object.keys(want.workload), `${name}: every statistic of the workload`)
  for (const [stat, figures] of Object.entries(want.workload)) {
    t.equal(whole.workload[stat].first, figures.first, `${name}: ${stat} first`)
    t.equal(whole.workload[stat].last, figures.last, `${name}: ${stat} last`)
    close(t, whole.workload[stat].mean, figures.mean, 4, `${name}: ${stat} mean`)
    t.equal(whole.workload[stat].max, figures.max, `${name}: ${stat} max`)
  }
}

/**
 * A variant's aggregate: mean, min and max of its repetitions' figures.
 * @param {Tap.Test} t
 * @param {any} variant   summary.json's
 * @param {string[]} keys
 */
function checkAggregate(t, variant, keys) {
  for (const key of keys) {
    const values = variant.repetitions.map((/** @type {any} */ r) => r.whole_run[key])
    const s = variant.whole_run[key]
    t.ok(
      s &&
        s.n === values.length &&
        s.min === Math.min(...values) &&
        s.max === Math.max(...values) &&
        Math.abs(s.mean - average(values)) <= 0.05 + 1e-9,
      `${variant.name}: ${key} over the repetitions (${JSON.stringify(s)})`
    )
  }
}

/**
 * Opens a page in Chromium: nothing on the console, every chart drawn with
 * data; keeps a screenshot. Returns the DOM.
 * @param {Tap.Test} t
 * @param {string} report
 * @param {string} png
 * @param {number} height
 */
async function checkInBrowser(t, report, png, height) {
  const page = await renderPage(report)
  t.same(page.console, [], 'no console output')
  const charts = [...page.dom.matchAll(/<figure\b[^>]*\bdata-chart="([^"]+)"[^>]*>/g)].map(m => ({
    id: m[1],
    points: Number(/\bdata-points="(\d+)"/.exec(m[0])?.[1] ?? NaN)
  }))
  t.equal(
    Number(/<body\b[^>]*\bdata-charts-rendered="(\d+)"/.exec(page.dom)?.[1]),
    charts.length,
    `every chart drawn (${charts.length})`
  )
  t.same(
    charts.filter(c => !(c.points > 0)).map(c => c.id),
    [],
    'every chart has data'
  )
  const file = path.join(ARTIFACTS, png)
  await rm(file, { force: true })
  await screenshot(report, file, { width: 1400, height })
  t.ok((await stat(file)).size > 20000, `screenshot ${path.relative(REPO, file)}`)
  return page.dom
}

/**
 * The chart specifications of a page.
 * @param {string} html
 * @returns {Record<string, any>}
 */
function chartData(html) {
  return JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}')
    .charts
}

t.test('retention by DROP against DELETE', async t => {
  const dir = path.join(work, 'retention')
  const runs = {
    drop: [retentionRun('drop', 1), retentionRun('drop', 2)],
    delete: [retentionRun('delete', 1), retentionRun('delete', 2)]
  }
  await writeExperiment(dir, {
    name: 'retention-drop-vs-delete',
    description: 'retention by DROP of partitions against retention by DELETE',
    workload: 'tsbs-cpu',
    variants: [
      {
        name: 'drop',
        steps: [
          { load: '10s' },
          { action: { action: 'drop-partitions', table: 'tsbs_cpu', older_than: '3m', yes: true } }
        ],
        runs: runs.drop
      },
      {
        name: 'delete',
        steps: [
          { load: '10s' },
          { action: { action: 'delete', table: 'tsbs_cpu', older_than: '3m', batch: 10000, yes: true } }
        ],
        runs: runs.delete
      }
    ]
  })
  const result = await runCli(['report', dir], { t })
  t.equal(result.code, 0, `pgloadgen report exits 0 (stderr: ${result.stderr.trim()})`)
  const summary = await readExperimentSummary(path.join(dir, 'summary.json'))

  for (const key of Object.keys(summary.variants[0].repetitions[0].whole_run)) {
    t.type(summary.whole_run_method[key], 'string', `the method defines ${key}`)
  }
  for (const [v, variant] of summary.variants.entries()) {
    const made = v === 0 ? runs.drop : runs.delete
    variant.repetitions.forEach((/** @type {any} */ rep, /** @type {number} */ i) =>
      checkRep(t, rep.whole_run, expected(made[i]), rep.dir)
    )
    checkAggregate(t, variant, [
      'requests_per_s',
      'rows_per_s',
      'points_per_s',
      'dead_tuples_peak',
      'table_bytes_end',
      'table_bytes_peak',
      'xid_age_end',
      'autovacuum_runs'
    ])
    t.equal(
      variant.repetitions[0].action?.name,
      v === 0 ? 'drop-partitions' : 'delete',
      'the before / during / after comparison is about the first retention run'
    )
  }
  const [drop, del] = summary.variants
  t.same(
    drop.repetitions.map((/** @type {any} */ r) => r.whole_run.autovacuum_runs),
    [1, 1],
    'drop: one autovacuum seen in the samples'
  )
  t.same(
    del.repetitions.map((/** @type {any} */ r) => r.whole_run.autovacuum_runs),
    [3, 3],
    'delete: three, two of them back to back on different partitions'
  )
  t.equal(del.whole_run.autovacuum_source, 'samples', 'counted in the samples: tsbs-cpu has no autovacuum statistic')
  t.equal(drop.whole_run.retention.partitions_dropped.mean, 4, 'drop: four partitions a run')
  t.equal(drop.whole_run.retention.skipped.mean, 1, 'drop: the run that found another running is skipped')
  t.equal(del.whole_run.retention.batches.mean, 231, 'delete: its batches')
  t.ok(
    del.whole_run.latency_p99_us_by_type.insert_batch.mean > drop.whole_run.latency_p99_us_by_type.insert_batch.mean,
    'the p99 of insert_batch, side by side'
  )

  const report = path.join(dir, 'report.html')
  const html = await readFile(report, 'utf8')
  t.notMatch(html, /<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=/i, 'self-contained: it opens offline')
  t.match(html, /var uPlot=/, 'uPlot inlined')
  t.ok(
    html.indexOf('Whole runs compared') < html.indexOf('Variants compared around the first action'),
    'not one action under load: the whole runs compared first'
  )
  for (const row of [
    'rows written/s',
    'latency p99, insert_batch',
    'dead tuples, peak',
    'size at the end',
    'autovacuum runs (seen in the samples)',
    'rows removed',
    'partitions dropped',
    'DELETE batches',
    'tsbs cpu partitions, max'
  ]) {
    t.match(
      html,
      new RegExp(`<table class="whole-run" id="whole-run">[\\s\\S]*<td>${row.replace(/[()]/g, '\\$&')}</td>`),
      `the whole-run table: ${row}`
    )
  }
  t.match(html, /id="whole-run-0"[\s\S]*id="whole-run-1"/, "each variant's repetitions")
  const charts = chartData(html)
  for (const id of [
    'compare-rows',
    'compare-points',
    'compare-p99-0',
    'compare-dead',
    'compare-size',
    'compare-statistic-0',
    'variant-0-rows',
    'variant-1-points'
  ]) {
    t.ok(charts[id], `chart ${id}`)
  }
  t.equal(charts['compare-p99-0'].title, 'Latency p99 of insert_batch')
  t.equal(charts['compare-statistic-0'].note, 'pgloadgen_workload_tsbs_cpu_partitions')
  const dropBand = charts['variant-0-throughput'].events.find((/** @type {any} */ e) => e.label === 'drop partitions')
  t.match(
    dropBand,
    { color: '#9c36b5', detail: /^2 partitions dropped: 1,200,000 rows, 114 MiB; cutoff .*; took 0\.40 s$/ },
    'a drop band: its colour, and what it removed'
  )
  t.ok(
    charts['variant-0-throughput'].events.some((/** @type {any} */ e) =>
      /^skipped: another retention action/.test(e.detail ?? '')
    ),
    'the skipped run says so'
  )
  const deleteBand = charts['variant-1-throughput'].events.find((/** @type {any} */ e) => e.label === 'delete')
  t.match(deleteBand, { color: '#e64980', detail: /^1,150,000 rows deleted in 115 batches of 10,000/ }, 'a delete band')
  t.ok(
    charts['compare-rows'].events.some((/** @type {any} */ e) => e.label === 'delete: delete' && e.detail),
    "the overlaid charts: each run's actions in its variant's colour"
  )
  t.notOk(
    charts['compare-rows'].events.some((/** @type {any} */ e) => /rollback/.test(e.label)),
    'without the rollbacks before t0'
  )

  await checkInBrowser(t, report, 'report-retention.png', 3200)

  // the cursor on a drop band: the box says what the drop removed
  const probe = path.join(dir, 'probe.html')
  await writeFile(
    probe,
    html.replace(
      '</body>',
      `<script>
(function () {
  const figure = document.querySelector('[data-chart="compare-rows"]')
  const over = figure.querySelector('.u-over')
  const spec = JSON.parse(document.getElementById('report-data').textContent).charts['compare-rows']
  const band = spec.events.find(e => /partitions dropped/.test(e.detail || ''))
  const box = over.getBoundingClientRect()
  const x = box.left + (band.from + 0.2 - spec.xRange[0]) / (spec.xRange[1] - spec.xRange[0]) * box.width
  over.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: box.top + 30, bubbles: true }))
  const tip = figure.querySelector('.band-tip')
  document.body.dataset.tip = tip && tip.style.display !== 'none' ? tip.textContent : 'none'
})()
</script></body>`
    )
  )
  const probed = await renderPage(probe)
  t.same(probed.console, [], 'no console output')
  t.match(
    /data-tip="([^"]*)"/.exec(probed.dom)?.[1],
    /drop: drop partitions2 partitions dropped: 1,200,000 rows/,
    "the band's box shows what it removed"
  )
})

t.test('Tgres at fillfactor 100 against 70', async t => {
  const dir = path.join(work, 'tgres')
  const runs = { ff100: [tgresRun('ff100', 1), tgresRun('ff100', 2)], ff70: [tgresRun('ff70', 1), tgresRun('ff70', 2)] }
  await writeExperiment(dir, {
    name: 'tgres-fillfactor',
    description: "Tgres's vertical layout at fillfactor 100 against 70",
    workload: 'tgres',
    variants: [
      {
        name: 'ff100',
        steps: [{ action: { action: 'vacuum', table: 'ts', full: true } }, { load: '40s' }],
        runs: runs.ff100
      },
      {
        name: 'ff70',
        steps: [
          { action: { action: 'fillfactor', table: 'ts', fillfactor: 70 } },
          { action: { action: 'vacuum', table: 'ts', full: true } },
          { load: '40s' }
        ],
        runs: runs.ff70
      }
    ]
  })
  await writeReport(dir)
  const summary = await readExperimentSummary(path.join(dir, 'summary.json'))
  for (const [v, variant] of summary.variants.entries()) {
    const made = v === 0 ? runs.ff100 : runs.ff70
    variant.repetitions.forEach((/** @type {any} */ rep, /** @type {number} */ i) => {
      checkRep(t, rep.whole_run, expected(made[i]), rep.dir)
      const counter = made[i].samples.map(s => s.workload.pgloadgen_workload_tgres_autovacuum_runs)
      t.equal(
        rep.whole_run.autovacuum_runs,
        counter[counter.length - 1] - counter[0],
        `${rep.dir}: autovacuum runs from the workload's counter`
      )
      t.equal(
        rep.whole_run.autovacuums_seen,
        made[i].samples.filter(s => s.pg.vacuum).length,
        `${rep.dir}: and as many seen in the samples`
      )
    })
    t.equal(variant.whole_run.autovacuum_source, 'pgloadgen_workload_tgres_autovacuum_runs')
    t.equal(variant.whole_run.rows_per_s, null, 'no rows reported: no rows/s')
    checkAggregate(t, variant, ['points_per_s', 'autovacuum_runs', 'table_bytes_end'])
  }
  const [ff100, ff70] = summary.variants
  t.equal(ff70.whole_run.fillfactor.mean, 70, 'the fillfactor the variant set')
  t.equal(ff100.whole_run.fillfactor, null, 'none set')
  const hot = 'pgloadgen_workload_tgres_hot_update_share'
  t.ok(
    ff70.whole_run.workload[hot].mean.mean > 0.9 && ff100.whole_run.workload[hot].mean.mean < 0.2,
    'HOT update share side by side'
  )

  const report = path.join(dir, 'report.html')
  const html = await readFile(report, 'utf8')
  t.ok(
    html.indexOf('Whole runs compared') < html.indexOf('Variants compared around the first action'),
    'a VACUUM FULL before any load is not the point: the whole runs first'
  )
  for (const row of [
    'fillfactor set',
    'autovacuum runs (tgres autovacuum runs)',
    'tgres hot update share, mean',
    'tgres bloat ratio, last',
    'points written/s'
  ]) {
    t.match(html, new RegExp(`<td>${row.replace(/[()]/g, '\\$&')}</td>`), `the whole-run table: ${row}`)
  }
  t.notMatch(html, /<td>rows written\/s<\/td>/, 'no rows/s row: no run wrote rows')
  t.notMatch(html, /<td>failed requests\/s<\/td>/, 'no failures: no row for them')
  const charts = chartData(html)
  const titles = Object.values(charts)
    .filter(c => c.id.startsWith('compare-statistic-'))
    .map(c => c.title)
    .sort()
  t.same(
    titles,
    ['tgres autovacuum runs', 'tgres bloat ratio', 'tgres hot update share'],
    'a chart per statistic, every variant overlaid'
  )
  const share = Object.values(charts).find(c => c.title === 'tgres hot update share')
  t.equal(share.format, 'pct', 'a share in per cent')
  t.equal(share.series.length, 4, 'two variants, two repetitions each')
  t.match(
    charts['variant-1-throughput'].events.find((/** @type {any} */ e) => e.label === 'fillfactor 70'),
    { color: '#f59f00', detail: 'ALTER TABLE ts SET (fillfactor = 70); took 0.05 s' },
    'the fillfactor band'
  )
  t.ok(
    charts['variant-1-throughput'].events.some((/** @type {any} */ e) => e.label === 'vacuum full'),
    'the VACUUM FULL band'
  )
  await checkInBrowser(t, report, 'report-tgres.png', 2600)
})

t.test("a paced run: start lag, rows and points, the workload's statistics, its capacity", async t => {
  const dir = path.join(work, 'fleet')
  const made = fleetRun()
  await writeRun(dir, made)
  const run = await readRun(dir)
  const capacity = runCapacity(run)
  t.equal(capacity?.lag_kind, 'start', 'the capacity is found on the start lag')
  t.equal(capacity?.verdict, 'knee', 'and finds the knee')
  await writeReport(dir)
  const report = path.join(dir, 'report.html')
  const html = await readFile(report, 'utf8')
  const charts = chartData(html)
  for (const id of ['run-written', 'run-lag', 'capacity-0']) t.ok(charts[id], `chart ${id}`)
  t.same(
    charts['run-written'].series.map((/** @type {any} */ s) => s.label),
    ['rows/s', 'points/s (right axis)'],
    'rows and points written'
  )
  t.same(
    charts['run-lag'].series.map((/** @type {any} */ s) => s.label),
    ['p50', 'p99']
  )
  const lag = made.samples.map(s => s.lag.p99_us)
  t.same(
    charts['run-lag'].series[1].y,
    lag.map(v => (v >= 100 ? Math.round(v) : v)),
    'the start lag of each second'
  )
  const statistics = Object.values(charts)
    .filter(c => c.id.startsWith('run-statistic-'))
    .map(c => c.note)
  t.same(statistics, Object.keys(made.samples[0].workload), 'a chart per statistic')
  const want = expected(made)
  t.equal(want.seconds, 56, 'the first and the 3 paused seconds left out')
  const whole = runWhole(run)
  checkRep(t, whole, want, 'the fleet run')
  t.match(
    html,
    new RegExp(`<td>failed requests/s</td><td class="sep">${whole.failed_per_s}</td>`),
    'the failures, when there were some'
  )
  t.match(html, /<td>start lag p99<\/td><td class="sep">[\d.]+ s<\/td>/, 'the start lag in the whole-run table')
  t.match(
    html,
    /id="whole-run-statistics"[\s\S]*fleet autovacuums total<\/td><td class="sep">12<\/td><td>15<\/td>/,
    'the statistics: first, last, mean, max'
  )
  t.match(
    html,
    /<td>autovacuum runs \(fleet autovacuums total\)<\/td><td class="sep">3<\/td>/,
    'the autovacuums the counter rose by'
  )
  await checkInBrowser(t, report, 'report-fleet-run.png', 3000)
})

t.test('one vacuum under load: the comparison around it leads, as before', async t => {
  const dir = path.join(work, 'vacuum')
  /** @param {number} rep */
  const withVacuum = rep => {
    const run = retentionRun('drop', rep)
    const t0 = Date.parse(run.info.t0)
    const at = (/** @type {number} */ s) => new Date(t0 + s * 1000).toISOString()
    run.events = [
      {
        ts: at(15),
        kind: 'start',
        action: 'vacuum_freeze',
        table: 'tsbs_cpu',
        detail: { sql: 'VACUUM (FREEZE) tsbs_cpu' }
      },
      { ts: at(20), kind: 'end', action: 'vacuum_freeze', table: 'tsbs_cpu', duration_s: 5, ok: true }
    ]
    return run
  }
  await writeExperiment(dir, {
    name: 'freeze',
    description: 'one freeze',
    workload: 'tsbs-cpu',
    variants: [{ name: 'freeze', steps: [], runs: [withVacuum(1), withVacuum(2)] }]
  })
  await writeReport(dir)
  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  t.match(html, /<h2 id="around-action">Variants compared<\/h2>/, 'the comparison around the action, as it was')
  t.ok(html.indexOf('Variants compared') < html.indexOf('Whole runs compared'), 'then the whole runs')
  const summary = await readExperimentSummary(path.join(dir, 'summary.json'))
  t.equal(summary.variants[0].repetitions[0].action.name, 'vacuum_freeze')
  t.equal(summary.variants[0].repetitions[0].whole_run.retention, null, 'no retention')
  const band = chartData(html)['variant-0-throughput'].events.find(
    (/** @type {any} */ e) => e.label === 'vacuum freeze'
  )
  t.match(
    band,
    { color: '#e8590c', detail: 'VACUUM (FREEZE) tsbs_cpu; took 5.0 s' },
    'a vacuum band keeps its colour and label, and says its statement'
  )
})
