// The live autovacuum forecast of a recorded run, checked against what the
// server did: an embedded PostgreSQL 18 with the lab's settings and a 5 s
// naptime, so that a 40 s load sees several autovacuums of the manta
// table. /metrics counts down to the next one; the summary matches each
// start the server logged to the forecast held before it; the end table
// says it in a line; the report has its section.
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, REPO, runCli, waitFor } from '../helpers/cli.js'
import { tempDataDir } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const NAPTIME_S = 5
const LOAD_S = 40

const dataDir = await tempDataDir(t)
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-forecast-run-'))
t.teardown(() => rm(work, { recursive: true, force: true }))
const recordDir = path.join(work, 'record')
const profile = path.join(work, 'fast-naptime.conf')
await writeFile(
  profile,
  `include '${path.join(REPO, 'notes/postgres/lab.conf')}'\nautovacuum_naptime = ${NAPTIME_S}s\n`
)

t.test('a run forecasts its autovacuums and checks each start against the server log', async t => {
  const args = ['run', '--data-dir', dataDir, '--profile', profile, '-c', '4', '-d', String(LOAD_S)]
  const run = new CliRun([...args, '-p', '0', '--record', recordDir], { t })
  const metricsUrl = await run.metricsUrl(60000)
  const next = await waitFor(
    async () => {
      const page = await scrape(metricsUrl)
      const labels = { datname: 'pgloadgen', schemaname: 'public', relname: 'test_table' }
      const dead = sampleValue(page.families, 'pg_autovacuum_next_seconds', { ...labels, reason: 'dead_rows' })
      const inserts = sampleValue(page.families, 'pg_autovacuum_next_seconds', { ...labels, reason: 'inserts' })
      return dead ?? inserts ?? null
    },
    { what: 'pg_autovacuum_next_seconds of test_table on /metrics', timeoutMs: 30000 }
  )
  t.ok(next >= 0 && next <= 2 * NAPTIME_S + LOAD_S, `the next autovacuum of test_table in ${next.toFixed(1)} s`)
  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-2000)}`)
  t.match(result.stderr, /autovacuum forecast: \d+ of \d+ starts? checked/, 'the end table says how the forecast did')

  const summary = JSON.parse(await readFile(path.join(recordDir, 'summary.json'), 'utf8'))
  const check = summary.autovacuum_forecast
  t.comment(JSON.stringify(check))
  t.equal(check.naptime_s, NAPTIME_S, "the server's naptime")
  t.ok(check.starts >= 2, `${check.starts} autovacuums of the table started in ${LOAD_S} s`)
  t.ok(check.checked >= 1 && check.checked <= check.starts, `${check.checked} with a forecast before them`)
  for (const e of check.errors) {
    t.equal(e.source, 'server log', `${e.started_at}: read from the server log`)
    t.ok(e.duration_s >= 0 && e.lead_s > 0, `ran ${e.duration_s} s; forecast ${e.lead_s} s before`)
  }
  t.equal(
    check.within_naptime,
    check.errors.filter((/** @type {{ error_s: number }} */ e) => Math.abs(e.error_s) <= NAPTIME_S).length,
    'within_naptime counts the errors of one naptime or less'
  )

  const report = await runCli(['report', recordDir], { t })
  t.equal(report.code, 0, `pgloadgen report: exit 0; stderr: ${report.stderr}`)
  const html = await readFile(path.join(recordDir, 'report.html'), 'utf8')
  t.match(html, '<h2 id="autovacuum-forecast">Autovacuum forecast against the starts</h2>', 'the report section')
})
