// What the lab runs for a workload besides its requests, with a module that
// asks for all of it (test/fixtures/workloads/beacon.js): its own options
// as flags, its number of clients, clients paced one batch per interval
// (and the lag of each against its schedule), clients started one by one,
// rows and points written and counted against the table, a statistic
// polled and exported, maintenance on a connection of its own; and -t.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { CliRun, runCli, lines } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { tempDataDir } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const BEACON = 'test/fixtures/workloads/beacon.js'
const db = await createTestDatabase(t, 'workload_services')

t.test('paced clients, a ramp, rows and points, the audit, a statistic, maintenance', async t => {
  const recordDir = path.join(await tempDataDir(t), 'run')
  const run = new CliRun(
    [
      'run',
      db.url,
      '--workload',
      BEACON,
      '--clients',
      '4',
      '--interval',
      '250ms',
      '--ramp-every',
      '500ms',
      '--batch',
      '20',
      '-d',
      '4',
      '--json',
      '-p',
      '0',
      '--stats-interval',
      '1',
      '--record',
      recordDir
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await run.waitForStderr(/running beacon/)
  await new Promise(resolve => setTimeout(resolve, 2500))
  const page = await scrape(metricsUrl)
  t.ok(
    (sampleValue(page.families, 'pgloadgen_workload_beacon_maintenance_runs') ?? 0) >= 1,
    "the workload's statistic is on /metrics"
  )
  t.ok(
    (sampleValue(page.families, 'pgloadgen_rows_written_total', { type: 'beat' }) ?? 0) > 0,
    'rows written, on /metrics'
  )
  t.ok(
    (sampleValue(page.families, 'pgloadgen_points_written_total', { type: 'beat' }) ?? 0) > 0,
    'points written, on /metrics'
  )
  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const summary = result.summary
  t.equal(summary.concurrency, 4, 'the workload set the clients')
  t.equal(summary.mode, 'paced')
  t.equal(summary.latency_kind, 'from_intended_start')
  t.equal(summary.pacing_interval_s, 0.25)
  t.ok(
    summary.schedule_lag_us.p99 !== null,
    `the lag of each batch against its schedule (p99 ${summary.schedule_lag_us.p99} µs)`
  )
  const done = summary.requests.beat.done
  // clients start at 0, 0.5, 1 and 1.5 s and send every 0.25 s until 4 s: about 16 + 14 + 12 + 10 batches
  t.ok(done >= 40 && done <= 60, `about 52 batches in 4 s (${done}): the pace, not as fast as possible`)
  t.equal(summary.rows_written, done * 20, 'rows written: 20 per batch')
  t.equal(summary.points_written, done * 20, 'points written')
  t.ok(summary.rows_per_s > 0 && summary.points_per_s > 0, 'per second')
  t.equal(summary.rows_missing, 0, 'every acknowledged row is in the table')
  t.same(summary.row_audit, {
    table: 'beacons',
    rows_before: 0,
    rows_after: done * 20,
    rows_removed_by_retention: 0,
    writes_in_doubt: 0,
    rows_in_doubt: 0,
    rows_in_doubt_stored: 0
  })
  const maintenance = Number((await query(db.url, 'SELECT count(*) AS n FROM beacon_maintenance')).rows[0].n)
  t.ok(maintenance >= 5, `maintenance ran before the load and every 0.5 s (${maintenance} times)`)
  const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
  const concurrency = samples.map(sample => sample.concurrency)
  t.ok(
    concurrency[0] < 4 && concurrency.every((c, i) => i === 0 || c >= concurrency[i - 1]),
    `clients started one by one: ${concurrency.join(' ')}`
  )
  t.equal(concurrency.at(-1), 4, 'four at the end')
  t.ok(
    samples.some(sample => sample.rows > 0 && sample.points > 0),
    'the samples count rows and points per second'
  )
  t.ok(
    samples.some(sample => typeof sample.workload?.pgloadgen_workload_beacon_maintenance_runs === 'number'),
    "the samples hold the workload's statistic"
  )
})

t.test('-t: each client stops after its requests, and the run ends when all have', async t => {
  const before = Number((await query(db.url, 'SELECT count(*) AS n FROM beacons')).rows[0].n)
  const result = await runCli(
    [
      'run',
      db.url,
      '--workload',
      BEACON,
      '--clients',
      '3',
      '--interval',
      '100ms',
      '-t',
      '5',
      '-d',
      '60',
      '--json',
      '-p',
      '0',
      '--no-pg-stats',
      '--log-level',
      'warn'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.equal(result.summary.requests.beat.done, 15, '3 clients × 5 requests')
  t.ok(result.summary.elapsed_s < 10, `the run ended early (${result.summary.elapsed_s} s of 60)`)
  t.equal(result.summary.rows_missing, 0)
  t.equal(result.summary.row_audit.rows_before, before, 'the audit starts from the rows already there')
})

t.test('a workload that sets its clients refuses -c and --rate; its options are checked', async t => {
  for (const [args, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['-c', '8'], /--concurrency: the beacon workload sets its number of clients itself \(3\)/],
    [['--rate', '100'], /--rate: the beacon workload paces its clients itself/],
    [['--interval', 'soon'], /--interval: expected a duration/],
    [['--clients', '0'], /--clients: must be at least 1, got 0/]
  ])) {
    const result = await runCli(['run', db.url, '--workload', BEACON, ...args, '-d', '2', '-p', '0'], { t })
    t.equal(result.code, 2, `${args.join(' ')}: exit 2; stderr: ${result.stderr}`)
    t.match(result.stderr, problem)
    t.equal(lines(result.stderr).length, 1, 'one line')
  }
})
