// --threads: the load split over worker threads behaves as one generator.
// The summary has the same shape and exact counts (started = done, every
// acknowledged insert present in the table), live control reaches every
// thread, -t and an open-loop schedule are split exactly, and the merge of
// the threads' records is the exact sum (a property test of mergeFrom).
import t from 'tap'
import fc from 'fast-check'
import pg from 'pg'
import { CliRun, runCli, waitFor } from '../helpers/cli.js'
import { createTestDatabase, generatorPids } from '../helpers/pg.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { baseOf, control, pauseAndDrain, status } from '../helpers/control.js'
import { assertConsistent, totals, REQUEST_TYPES } from '../helpers/summary.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'

const db = await createTestDatabase(t, 'threads')

t.test('mergeFrom is the exact sum of the parts (property)', async t => {
  const types = ['a', 'b', 'c']
  const record = fc.record({
    part: fc.integer({ min: 0, max: 2 }),
    type: fc.integer({ min: 0, max: 2 }),
    us: fc.integer({ min: 0, max: 5e7 }),
    ok: fc.boolean()
  })
  fc.assert(
    fc.property(fc.array(record, { maxLength: 300 }), records => {
      const whole = new RequestStats(types)
      const parts = [0, 1, 2].map(
        () => new RequestStats(types, new Float64Array(new SharedArrayBuffer(RequestStats.floatsFor(types) * 8)))
      )
      for (const { part, type, us, ok } of records) {
        for (const stats of [whole, parts[part]]) {
          stats.start(type)
          stats.finish(type, us, ok)
          stats.lag.record(us / 2)
        }
      }
      const merged = new RequestStats(types)
      merged.mergeFrom(parts)
      return (
        merged.memory.every((value, i) => value === whole.memory[i]) &&
        types.every((_, type) => merged.latency[type].quantile(0.99) === whole.latency[type].quantile(0.99))
      )
    }),
    { numRuns: 200 }
  )
  t.pass('the merged record equals the record of one generator, float by float')
})

t.test('--threads 2: the same summary, exact counts, every acknowledged insert present', async t => {
  const two = await runCli(
    ['run', db.url, '-c', '6', '-d', '4', '--threads', '2', '-p', '0', '--json', '--no-pg-stats', '--reset'],
    { t }
  )
  t.equal(two.code, 0, `exit 0 (stderr: ${two.stderr.slice(-300)})`)
  const one = await runCli(['run', db.url, '-c', '6', '-d', '2', '-p', '0', '--json', '--no-pg-stats'], { t })
  t.same(Object.keys(two.summary).sort(), Object.keys(one.summary).sort(), 'the same fields as with one thread')
  assertConsistent(t, two.summary, { concurrency: 6 })
  // The threads' start-up (loading the workload: 0.23–0.27 s on an idle
  // 2-core machine) and their teardown after the last answer are not load
  // time. Past the 4 s, only the requests in flight at the stop may add to
  // it (each at most the longest request), and the stop's delivery to the
  // threads on a busy machine.
  const overS = two.summary.elapsed_s - 4
  const longestS = two.summary.latency_us.max / 1e6
  t.ok(
    overS >= 0 && overS < longestS + 0.2,
    `the load lasted its 4 s and the longest request (${(longestS * 1000).toFixed(1)} ms) at most, ` +
      `not the threads' start and stop (${two.summary.elapsed_s} s)`
  )
  t.ok(totals(two.summary).done > 1000, `requests done over both threads (${totals(two.summary).done})`)
  t.equal(two.summary.acknowledged_missing, 0, 'every acknowledged insert is in the table')
  t.equal(two.summary.acknowledged_vanished, 0, 'none vanished')
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  t.teardown(() => client.end())
  // Both runs inserted into the same table: its rows are every acknowledgement of both.
  const rows = Number((await client.query('SELECT count(*) AS n FROM test_table')).rows[0].n)
  t.equal(
    rows,
    two.summary.acknowledged_inserts + one.summary.acknowledged_inserts,
    'the table holds exactly the acknowledged inserts of both runs'
  )
  t.equal(two.summary.unexpected_failures, 0, 'no unexpected failure')
  // Only this test's database: other test files run generators on the same server at the same time.
  t.equal((await generatorPids(db.url)).length, 0, 'every thread closed its connections at exit')
})

t.test('--threads 2: /metrics and live control cover every thread', async t => {
  const run = new CliRun(['run', db.url, '-c', '4', '--threads', '2', '-p', '0', '--json', '--no-pg-stats'], { t })
  const metricsUrl = await run.metricsUrl()
  const base = baseOf(metricsUrl)
  await waitFor(async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === 4, {
    what: '4 connections over two threads'
  })
  await control(base, '/concurrency', { body: { concurrency: 7 } })
  await waitFor(async () => (await status(base)).connections === 7, { what: '7 connections after POST /concurrency' })
  t.equal((await status(base)).concurrency, 7, '/status: concurrency 7')
  const drained = await pauseAndDrain(metricsUrl)
  t.ok(drained.done > 0, `paused with ${drained.done} requests done`)
  await new Promise(resolve => setTimeout(resolve, 500))
  const { families } = await scrape(metricsUrl)
  const doneNow = REQUEST_TYPES.reduce(
    (n, type) => n + (sampleValue(families, 'pgloadgen_nqueries_done', { type }) ?? 0),
    0
  )
  t.equal(doneNow, drained.done, 'paused: no thread sends anything')
  await control(base, '/resume')
  await waitFor(
    async () => {
      const { families } = await scrape(metricsUrl)
      return (
        REQUEST_TYPES.reduce((n, type) => n + (sampleValue(families, 'pgloadgen_nqueries_done', { type }) ?? 0), 0) >
        drained.done
      )
    },
    { what: 'requests again after /resume' }
  )
  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, 'exit 0 on SIGTERM')
  assertConsistent(t, result.summary, { concurrency: 4 })
  t.equal(result.summary.final_concurrency, 7, 'the summary knows the concurrency changed')
  // The summary's counts are the last scrape's and more: nothing counted twice or lost.
  const { families: last } = await scrape(metricsUrl).catch(() => ({ families: null }))
  t.equal(last, null, 'the metrics endpoint closed at exit')
  t.ok(totals(result.summary).done >= drained.done, 'the summary counts at least what /metrics showed')
})

t.test('--threads 3 with -t: each client does exactly its requests', async t => {
  const result = await runCli(
    ['run', db.url, '-c', '5', '-t', '40', '--threads', '3', '-p', '0', '--json', '--no-pg-stats'],
    { t }
  )
  t.equal(result.code, 0, 'exit 0')
  t.equal(totals(result.summary).done, 200, '5 clients × 40 requests, over three threads')
})

t.test('--threads 2 in open loop: the two halves are the one schedule', async t => {
  const result = await runCli(
    [
      'run',
      db.url,
      '-c',
      '4',
      '-R',
      '400',
      '--arrival',
      'fixed',
      '-d',
      '3',
      '--threads',
      '2',
      '-p',
      '0',
      '--json',
      '--no-pg-stats'
    ],
    { t }
  )
  t.equal(result.code, 0, 'exit 0')
  const done = totals(result.summary).done
  // 400/s for the run's time: the threads' arrivals together are every 2.5 ms.
  const expected = 400 * result.summary.elapsed_s
  // On a loaded machine the schedule can run late: the requests due in the
  // last moments, as late as the latest start the run measured, were never
  // started when it stopped (and none was skipped, below).
  const behind = 400 * ((result.summary.schedule_lag_us?.max ?? 0) / 1e6)
  t.ok(
    done >= expected - 0.03 * expected - 8 - behind && done <= expected + 0.03 * expected + 8,
    `${done} requests at 400/s over ${result.summary.elapsed_s} s (expected about ${Math.round(expected)}, ${Math.round(behind)} of them due while the schedule ran late)`
  )
  t.equal(result.summary.skipped, 0, 'nothing skipped')
})

t.test('bad --threads: one line, exit 2', async t => {
  for (const bad of ['0', 'two', '1.5', '300']) {
    const result = await runCli(['run', db.url, '--threads', bad, '-d', '1', '-p', '0'], { t })
    t.equal(result.code, 2, `--threads ${bad}: exit 2`)
    t.equal(result.stderr.trim().split('\n').length, 1, `--threads ${bad}: one line (${result.stderr.trim()})`)
    t.match(result.stderr, /--threads/, 'naming the flag')
  }
})
