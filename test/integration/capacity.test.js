// pgloadgen capacity against the machine's PostgreSQL 15: refused input in
// one line before any database is touched; a boundary the test knows (a
// pgbench script that sleeps 10 ms on each of 4 clients cannot go past
// 400 requests/s) found and bracketed; manta and tsbs-cpu through the same
// session, recorded, with their writes audited. Steps of a second, so that
// the whole file takes well under a minute and a half.
import t from 'tap'
import path from 'node:path'
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { readRunSummary } from '../helpers/summary-schema.js'

// steps of a second; one step at each end of the bracket but where the test needs more
const SHORT = ['--step', '1', '--settle', '0.5', '-p', '0']

t.test('bad input: one line, exit 2, before any database', async t => {
  // nothing listens on port 1: a refusal that reached for the server would say so
  const url = 'postgres://nobody@127.0.0.1:1/none'
  // the rest of the refusals are the unit tests' (test/unit/capacity-search.test.js): each spawn costs a second or two
  // here
  const cases = [
    [[], /--objective: give what must hold/],
    [['--objective', 'p99<10'], /p99 is a latency: give its unit/],
    [['--objective', 'nope:p99<1ms'], /no request type "nope"/],
    [['--objective', 'p99<10ms', '-R', '100'], /--rate: the search sets the rate/],
    [['--objective', 'p99<10ms', '--step-factor', '1'], /--step-factor must be a number above 1/],
    [['--objective', 'p99<10ms', '-w', 'fleet'], /paces its clients itself/]
  ]
  for (const [args, message] of cases) {
    const result = await runCli(['capacity', url, ...args])
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    const said = lines(result.stderr)
    t.equal(said.length, 1, `${args.join(' ')}: one line`)
    t.match(said[0], message)
    t.notMatch(result.stderr, /\n\s+at /, 'no stack trace')
  }
})

t.test('a known boundary: 4 clients that each sleep 10 ms per request', async t => {
  const db = await createTestDatabase(t, 'capacity_sleep')
  const dir = await mkdtemp(path.join(tmpdir(), 'pgloadgen-capacity-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const script = path.join(dir, 'sleep.sql')
  await writeFile(script, 'SELECT pg_sleep(0.01);\n')
  const result = await runCli(
    [
      'capacity',
      db.url,
      '-f',
      script,
      '-c',
      '4',
      '--objective',
      'p99<100ms',
      '--start-rate',
      '50',
      '--max-rate',
      '3200',
      '--json',
      ...SHORT,
      '--repeats',
      '3'
    ],
    { t }
  )
  t.equal(result.code, 0, result.stderr)
  const out = JSON.parse(result.stdout)
  t.equal(out.objective, 'p99<100ms')
  t.ok(['bracketed', 'unsettled', 'generator_limited'].includes(out.verdict), `verdict ${out.verdict}`)
  if (out.verdict === 'generator_limited') {
    // a machine so busy that the generator's own lateness decided the steps: said so, no capacity stated
    t.equal(out.capacity, null)
    t.ok(['lateness', 'pace'].includes(out.generator_limit.reason))
  } else {
    // 4 clients × 100 requests/s each at most can be served for good; a short step can hold a little more,
    // its backlog still short of the limit when it ends: at r above 400/s it grows by r − 400 a second, so
    // after the 0.5 s settling and the 1 s step a request waits (r − 400) × 1.5 / 400 s, under 100 ms up
    // to r = 400 × (1 + 0.1 / 1.5) ≈ 427 (less for a confirming step lengthened to 2 s). The lower end held in
    // every step it had; the middle may be above it: 1 s steps at 400/s hold 4 requests beyond the p99, so the
    // bracket is settled at 25 %, not 10 % (lib/capacity/step-length.js)
    const held = 400 * (1 + 0.1 / 1.5)
    t.ok(out.capacity > 0, `capacity ${out.capacity} requests/s`)
    t.ok(out.interval.low <= held, `lower end ${out.interval.low} requests/s (at most ${Math.floor(held)})`)
    t.ok(
      out.interval.low < out.capacity && out.capacity < out.interval.high,
      `${out.capacity} in the middle of ${out.interval.low}–${out.interval.high}`
    )
    t.ok(out.interval.confidence >= 0 && out.interval.confidence <= 1)
  }
  t.ok(out.steps.length >= 4, `${out.steps.length} steps`)
  t.same(
    out.steps.slice(0, 2).map((/** @type {any} */ s) => s.rate),
    [50, 100],
    'climbs by doubling from the start rate'
  )
  t.ok(
    out.steps.some((/** @type {any} */ s) => s.held) && out.steps.some((/** @type {any} */ s) => !s.held),
    'some steps held, some broke'
  )
  for (const step of out.steps) {
    t.equal(
      step.held,
      step.objectives[0].kept && step.kept_pace && step.unexpected_failures === 0,
      `step ${step.step}: held as its figures say`
    )
  }
  // the result line and the table go to stderr with --json
  t.match(result.stderr, /step\s+phase\s+asked\/s\s+achieved\/s\s+p99 ms\s+lag p99 ms\s+gen late ms\s+result/)
  t.match(
    result.stderr,
    /capacity: ([\d.]+ requests\/s \(\d+% interval [\d.]+–[\d.]+\) for p99<100ms|not measured for p99<100ms: the generator was the limit)/
  )
})

t.test('manta: a rate with an interval, recorded, its inserts audited', async t => {
  const db = await createTestDatabase(t, 'capacity_manta')
  const dir = await mkdtemp(path.join(tmpdir(), 'pgloadgen-capacity-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const record = path.join(dir, 'run')
  // a concurrency of 2 bounds the rate well within what a busy machine serves
  const result = await runCli(
    [
      'capacity',
      db.url,
      '-w',
      'manta',
      '-c',
      '2',
      '--objective',
      'lag_p99<50ms',
      '--objective',
      'p99<200ms',
      '--start-rate',
      '100',
      '--max-rate',
      '3200',
      '--resolution',
      '0.5',
      '--record',
      record,
      ...SHORT,
      '--repeats',
      '1'
    ],
    { t }
  )
  t.equal(result.code, 0, result.stderr)
  const said = lines(result.stdout)
  const line = said[said.length - 1]
  t.match(
    line,
    /^capacity: ([\d.]+ requests\/s \(\d+% interval [\d.]+–[\d.]+\)|above [\d.]+ requests\/s|below [\d.]+ requests\/s|not measured) for lag_p99<50ms and p99<200ms/
  )
  t.match(said[0], /^step\s+phase\s+asked\/s/)
  const recorded = JSON.parse(await readFile(path.join(record, 'capacity.json'), 'utf8'))
  t.equal(recorded.objective, 'lag_p99<50ms and p99<200ms')
  t.equal(recorded.session.workload, 'manta')
  t.equal(recorded.session.acknowledged_missing, 0, 'every acknowledged insert is in the table')
  t.equal(recorded.session.unexpected_failures, 0)
  const runInfo = JSON.parse(await readFile(path.join(record, 'run.json'), 'utf8'))
  t.equal(runInfo.command, 'capacity')
  t.equal(runInfo.mode, 'open')
  const summary = await readRunSummary(path.join(record, 'summary.json'))
  t.equal(summary.mode, 'open')
})

t.test('tsbs-cpu: batches of rows, the same search', async t => {
  const db = await createTestDatabase(t, 'capacity_tsbs')
  const result = await runCli(
    [
      'capacity',
      db.url,
      '-w',
      'tsbs-cpu',
      '--batch-size',
      '100',
      '-c',
      '4',
      '--objective',
      'p99<500ms',
      '--start-rate',
      '10',
      '--max-rate',
      '640',
      '--resolution',
      '0.5',
      '--json',
      ...SHORT,
      '--repeats',
      '1'
    ],
    { t }
  )
  t.equal(result.code, 0, result.stderr)
  const out = JSON.parse(result.stdout)
  t.equal(out.session.workload, 'tsbs-cpu')
  t.ok(out.steps.length >= 2)
  t.ok(
    out.steps.some((/** @type {any} */ s) => s.rows_per_s > s.achieved * 50),
    'a batch is many rows'
  )
  t.ok(out.capacity === null || out.capacity >= 1, `capacity ${out.capacity}`)
  t.match(result.stderr, /capacity: .* for p99<500ms/)
})
