// The report: real runs recorded by the real CLI on PostgreSQL 15 (a VACUUM
// FREEZE or a VACUUM scheduled during the load), reported by
// `pgloadgen report`, then opened in headless Chromium: every chart drawn
// with data, no console output, a screenshot kept in test/artifacts/.
import t from 'tap'
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines, REPO } from '../helpers/cli.js'
import { createTestDatabase, query, urlFor } from '../helpers/pg.js'
import { renderPage, screenshot } from '../helpers/chromium.js'
import { reportCommand, renderReport, runPhases } from '../../lib/report/index.js'
import { readRun } from '../../lib/results/read.js'
import { InputError } from '../../lib/errors.js'
import { readExperimentSummary } from '../helpers/summary-schema.js'

const ARTIFACTS = path.join(REPO, 'test', 'artifacts')
const PASSWORD = 'r3port-s3cret'

const db = await createTestDatabase(t, 'report')
// Vacuums in this database pause on every page (cost limit 1, 2 ms delay):
// on the few hundred pages a few seconds of load write, the action lasts a
// second or two instead of a few milliseconds, so that it spans samples.
await query(db.adminUrl, `ALTER DATABASE ${db.name} SET vacuum_cost_delay = 2`)
await query(db.adminUrl, `ALTER DATABASE ${db.name} SET vacuum_cost_limit = 1`)
// The URL carries a password (trust authentication ignores it): it must not
// reach any report.
const url = urlFor(db.adminUrl, db.name, { password: PASSWORD })

const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-report-'))
t.teardown(() => rm(work, { recursive: true, force: true }))
await mkdir(ARTIFACTS, { recursive: true })

/**
 * Records one real run: load for seconds, with a vacuum after a delay.
 * @param {Tap.Test} t
 * @param {string} dir
 * @param {{ seconds: number, freeze: boolean, after: string }} options
 */
async function record(t, dir, { seconds, freeze, after }) {
  const schedule = path.join(work, `schedule-${freeze ? 'freeze' : 'plain'}-${after}.json`)
  await writeFile(schedule, JSON.stringify({ actions: [{ action: 'vacuum', table: 'test_table', freeze, after }] }))
  const result = await runCli(
    [
      'run',
      url,
      '-d',
      String(seconds),
      '-c',
      '4',
      '-p',
      '0',
      '--stats-interval',
      '1',
      '--reset',
      '--record',
      dir,
      '--schedule',
      schedule,
      '--log-level',
      'warn'
    ],
    { t }
  )
  t.equal(result.code, 0, `the recorded run succeeds (stderr: ${result.stderr.trim() || 'empty'})`)
  for (const file of ['run.json', 'samples.ndjson', 'events.ndjson', 'summary.json']) {
    t.ok(await stat(path.join(dir, file)).catch(() => null), `the run wrote ${file}`)
  }
}

/**
 * Opens the report in Chromium and checks that every chart was drawn with
 * data and that the page's scripts said nothing; keeps a screenshot.
 * @param {Tap.Test} t
 * @param {string} report
 * @param {string} png    under test/artifacts/
 * @param {number} height
 */
async function checkInBrowser(t, report, png, height) {
  const page = await renderPage(report)
  t.same(page.console, [], 'no console output: no error, no uncaught exception')
  const charts = [...page.dom.matchAll(/<figure\b[^>]*\bdata-chart="([^"]+)"[^>]*>/g)].map(match => ({
    id: match[1],
    points: Number(/\bdata-points="(\d+)"/.exec(match[0])?.[1] ?? NaN)
  }))
  t.ok(charts.length >= 7, `the page has its charts (${charts.length})`)
  const rendered = /<body\b[^>]*\bdata-charts-rendered="(\d+)"/.exec(page.dom)?.[1]
  t.equal(Number(rendered), charts.length, 'body data-charts-rendered counts every chart')
  for (const chart of charts) t.ok(chart.points > 0, `chart ${chart.id} has data (${chart.points} points)`)
  t.notMatch(page.dom, /<div class="plot"><p class="no-data">/, 'no chart shows "no data"')
  const file = path.join(ARTIFACTS, png)
  await rm(file, { force: true })
  await screenshot(report, file, { width: 1400, height })
  const size = (await stat(file)).size
  t.ok(size > 20000, `screenshot ${path.relative(REPO, file)} written (${size} bytes)`)
}

/**
 * @param {Tap.Test} t
 * @param {string} html
 */
function checkSelfContained(t, html) {
  t.notMatch(
    html,
    /<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=/i,
    'no external script, stylesheet or image: it opens offline'
  )
  t.match(html, /var uPlot=/, 'uPlot inlined')
  t.match(html, /<script type="application\/json" id="report-data">/, 'the data inlined')
  t.notMatch(html, PASSWORD, 'no password')
  const data = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? ''
  t.notMatch(data, '</', 'the data block cannot close its script element')
}

t.test('a recorded run with a VACUUM FREEZE', async t => {
  const dir = path.join(work, 'run')
  await record(t, dir, { seconds: 8, freeze: true, after: '3s' })
  const summaryBefore = await readFile(path.join(dir, 'summary.json'), 'utf8')
  const runJson = await readFile(path.join(dir, 'run.json'), 'utf8')

  const result = await runCli(['report', dir], { t })
  t.equal(result.code, 0, `pgloadgen report exits 0 (stderr: ${result.stderr.trim()})`)
  const report = path.join(dir, 'report.html')
  t.equal(result.stdout.trim(), report, "it prints the report's path")
  t.equal(
    await readFile(path.join(dir, 'summary.json'), 'utf8'),
    summaryBefore,
    "a run's summary.json is left as it was"
  )

  const html = await readFile(report, 'utf8')
  checkSelfContained(t, html)
  if (runJson.includes(PASSWORD)) t.comment('run.json holds the password; the report strips it')
  t.match(html, /manta on test_table/, 'titled with the workload and table')
  t.match(html, /PostgreSQL<\/dt><dd>15\./, "with the server's version")
  t.match(html, /shared_buffers/, 'with the server settings')

  const phases = runPhases(await readRun(dir))
  t.equal(phases.action?.name, 'vacuum_freeze', 'the action is the VACUUM FREEZE')
  t.equal(phases.action?.completed, true, 'it ended during the load')
  t.ok(
    phases.samples.before >= 1 && phases.samples.during >= 1,
    `samples before and during it (${JSON.stringify(phases.samples)})`
  )
  t.ok(/** @type {number} */ (phases.throughput.before) > 0, `throughput before: ${phases.throughput.before} req/s`)
  t.ok(/** @type {number} */ (phases.throughput.during) > 0, `throughput during: ${phases.throughput.during} req/s`)
  t.ok(/** @type {number} */ (phases.degradation_ratio) > 0, `degradation ratio ${phases.degradation_ratio}`)
  t.ok(/** @type {number} */ (phases.latency_us.p99.before) > 0, `p99 before: ${phases.latency_us.p99.before} µs`)

  await checkInBrowser(t, report, 'report-run.png', 4000)

  t.test('a samples file cut by a crash still reports', async t => {
    const torn = path.join(work, 'torn')
    await cp(dir, torn, { recursive: true })
    await appendFile(path.join(torn, 'samples.ndjson'), '{"t":"2030-01-01T00:00:00Z","throughp')
    const html = await renderReport(torn)
    t.match(html, /data-chart="run-throughput"/, 'the report is written without the torn line')
  })
})

t.test('an experiment directory of recorded runs: two variants, two repetitions', async t => {
  // The runs are real recordings; the experiment directory around them is
  // assembled here as the experiment runner lays it out (the runner itself
  // needs minutes and its own server).
  const dir = path.join(work, 'experiment')
  const started = new Date().toISOString()
  const plan = {
    name: 'freeze-vs-vacuum-test',
    description: 'VACUUM FREEZE versus VACUUM under load, recorded by the report test',
    variants: [
      {
        name: 'freeze',
        steps: [{ load: '2s' }, { action: { action: 'vacuum', table: 'test_table', freeze: true } }, { wait: 'action' }]
      },
      {
        name: 'vacuum',
        steps: [{ load: '2s' }, { action: { action: 'vacuum', table: 'test_table' } }, { wait: 'action' }]
      }
    ],
    repetitions: 2
  }
  for (let rep = 1; rep <= 2; rep++) {
    for (const variant of plan.variants) {
      // the vacuum after 3 s: the first sample is left out of every phase,
      // and a busy machine can start the schedule late enough that a vacuum
      // after 2 s left no sample before it
      await record(t, path.join(dir, 'variants', variant.name, `rep-${rep}`), {
        seconds: 7,
        freeze: variant.name === 'freeze',
        after: '3s'
      })
    }
  }
  const runInfo = JSON.parse(await readFile(path.join(dir, 'variants', 'freeze', 'rep-1', 'run.json'), 'utf8'))
  await writeFile(
    path.join(dir, 'experiment.json'),
    JSON.stringify(
      {
        name: plan.name,
        plan,
        started_at: started,
        ended_at: new Date().toISOString(),
        pgloadgen_version: runInfo.pgloadgen_version,
        postgres_version: runInfo.postgres_version
      },
      null,
      2
    )
  )

  const result = await runCli(['report', dir], { t })
  t.equal(result.code, 0, `pgloadgen report exits 0 (stderr: ${result.stderr.trim()})`)
  const summary = await readExperimentSummary(path.join(dir, 'summary.json'))
  t.equal(summary.name, plan.name, 'summary.json names the experiment')
  t.same(
    summary.variants.map((/** @type {any} */ v) => v.name),
    ['freeze', 'vacuum'],
    "one entry per variant, in the plan's order"
  )
  for (const variant of summary.variants) {
    t.same(
      variant.repetitions.map((/** @type {any} */ r) => r.dir),
      [1, 2].map(n => `variants/${variant.name}/rep-${n}`),
      `${variant.name}: both repetitions`
    )
    for (const rep of variant.repetitions) {
      t.equal(rep.action?.name, variant.name === 'freeze' ? 'vacuum_freeze' : 'vacuum', `${rep.dir}: the action found`)
      t.ok(rep.action.duration_s >= 0, `${rep.dir}: its duration (${rep.action.duration_s} s)`)
      for (const phase of ['before', 'during']) {
        t.ok(rep.throughput[phase] > 0, `${rep.dir}: throughput ${phase} (${rep.throughput[phase]} req/s)`)
        t.ok(rep.latency_us.p50[phase] > 0 && rep.latency_us.p99[phase] > 0, `${rep.dir}: latency ${phase}`)
      }
      t.type(rep.degradation_ratio, 'number', `${rep.dir}: degradation ratio ${rep.degradation_ratio}`)
      t.type(rep.p99_ratio, 'number', `${rep.dir}: p99 ratio ${rep.p99_ratio}`)
    }
    const aggregate = variant.aggregate
    t.equal(aggregate.repetitions, 2, `${variant.name}: aggregate over 2 repetitions`)
    for (const figure of [
      aggregate.throughput.before,
      aggregate.throughput.during,
      aggregate.latency_us.p99.during,
      aggregate.degradation_ratio
    ]) {
      t.ok(
        figure &&
          figure.n === 2 &&
          figure.min <= figure.mean &&
          figure.mean <= figure.max &&
          typeof figure.spread === 'number',
        `${variant.name}: mean, min, max and spread (${JSON.stringify(figure)})`
      )
    }
  }

  const report = path.join(dir, 'report.html')
  const html = await readFile(report, 'utf8')
  checkSelfContained(t, html)
  t.match(html, /Variants compared/, 'a comparison of the variants')
  t.match(html, /id="variant-0"[\s\S]*id="variant-1"/, 'a panel group per variant')
  await checkInBrowser(t, report, 'report-experiment.png', 6000)
})

t.test('bad directories: exit 2, one line', async t => {
  const missing = path.join(work, 'no-such-dir')
  const result = await runCli(['report', missing], { t })
  t.equal(result.code, 2, 'a missing directory exits 2')
  t.equal(lines(result.stderr).length, 1, `one line: ${JSON.stringify(result.stderr)}`)
  t.match(result.stderr, /no such directory/, 'saying what is wrong')

  const empty = path.join(work, 'empty')
  await mkdir(empty, { recursive: true })
  const notRun = await runCli(['report', empty], { t })
  t.equal(notRun.code, 2, 'a directory that is no run nor experiment exits 2')
  t.match(notRun.stderr, /neither a run directory/, 'saying so')

  const silent = {
    log: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, level: /** @type {const} */ ('silent') },
    stdout: {
      write() {
        return true
      }
    }
  }
  await t.rejects(reportCommand({}, silent), InputError, 'no directory at all: a usage error')
  await t.rejects(
    reportCommand({ dir: missing }, silent),
    InputError,
    'reportCommand throws the InputError main turns into exit 2'
  )
})
