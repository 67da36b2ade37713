// --threshold on real runs against PostgreSQL 15: thresholds that hold exit
// 0, one that fails exits 3, each a row of the end table and an entry of
// the --json summary and of summary.json; --threshold-abort stops a run
// early and says why; a bad threshold is one line and exit 2 before any
// database is touched.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines, sleep } from '../helpers/cli.js'
import { createTestDatabase, sessionsOf, listTables } from '../helpers/pg.js'
import { fuzzTest, hostileText, cliRefuses, sample } from '../helpers/fuzz.js'
import { parseThreshold } from '../../lib/config/thresholds.js'
import { readRunSummary } from '../helpers/summary-schema.js'

const db = await createTestDatabase(t, 'thresholds')
// bad input is tried on a database of its own: it must see no session at all
const untouched = await createTestDatabase(t, 'thresholds_bad')
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-thresholds-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

// one client: no deadlock among the load's own clients can make unexpected_failures==0 fail
const RUN = ['-c', '1', '-p', '0', '--no-pg-stats', '--json']

/**
 * The end table's threshold rows on stderr, by expression: [limit, value, result].
 * @param {string} stderr
 */
function thresholdRows(stderr) {
  const all = stderr.split('\n')
  const start = all.findIndex(line => /^threshold\s+limit\s+value\s+result$/.test(line))
  /** @type {Map<string, string[]>} */
  const rows = new Map()
  if (start < 0) return rows
  for (const line of all.slice(start + 1)) {
    const cells = line.trim().split(/ {2,}/)
    if (cells.length !== 4) break
    rows.set(cells[0], cells.slice(1))
  }
  return rows
}

t.test('thresholds that hold: exit 0, a pass row each, in the JSON and summary.json', async t => {
  const record = path.join(work, 'held')
  const held = ['p99<30s', 'insert_row:p95<30s', 'throughput>1', 'unexpected_failures==0', 'audit==exact', 'p99.9<60s']
  const result = await runCli(
    ['run', db.url, ...RUN, '-d', '3', '--record', record, ...held.flatMap(expr => ['--threshold', expr])],
    { t }
  )
  t.equal(result.code, 0, `exit 0: ${result.stderr.slice(-600)}`)
  const summary = result.summary
  t.ok(summary, 'the JSON summary')
  t.same(
    summary.thresholds.map((/** @type {any} */ r) => [r.expr, r.pass]),
    held.map(expr => [expr, true]),
    'each threshold, in the order given, passed'
  )
  t.match(
    summary.thresholds[0],
    { type: null, figure: 'p99', op: '<', limit: 30e6, unit: 'us', value: summary.latency_us.p99 },
    "p99: limit in µs, the summary's own p99"
  )
  t.match(
    summary.thresholds[1],
    { type: 'insert_row', figure: 'p95', value: summary.requests.insert_row.latency_us.p95 },
    "a type's p95"
  )
  t.match(summary.thresholds[2], { figure: 'throughput', value: summary.throughput })
  t.match(summary.thresholds[4], { figure: 'audit', limit: 'exact', value: 'exact' }, 'the audit was exact')
  t.equal(summary.threshold_abort, null, 'nothing stopped the run early')
  const rows = thresholdRows(result.stderr)
  t.same([...rows.keys()], held, 'a row each in the end table')
  for (const [expr, [, , verdict]] of rows) t.equal(verdict, 'pass', `${expr}: pass`)
  t.match(rows.get('audit==exact'), ['exact', 'exact', 'pass'])
  t.match(result.stderr, /^thresholds: all 6 held$/m)
  const recorded = await readRunSummary(path.join(record, 'summary.json'))
  t.same(recorded.thresholds, summary.thresholds, 'summary.json holds the same verdicts')
})

t.test('a threshold that fails: exit 3, a FAIL row beside the one that held, in the JSON', async t => {
  const result = await runCli(
    ['run', db.url, ...RUN, '-d', '2', '--threshold', 'p99<1us', '--threshold', 'unexpected_failures==0'],
    { t }
  )
  t.equal(result.code, 3, `exit 3: ${result.stderr.slice(-600)}`)
  const [p99, unexpected] = result.summary.thresholds
  t.match(
    p99,
    { expr: 'p99<1us', limit: 1, value: result.summary.latency_us.p99, pass: false },
    'p99 under 1 µs failed'
  )
  t.ok(p99.value > 1, `the run's p99 (${p99.value} µs) is over the limit`)
  t.match(unexpected, { expr: 'unexpected_failures==0', value: 0, pass: true }, 'the other held')
  const rows = thresholdRows(result.stderr)
  t.match(rows.get('p99<1us'), ['1 µs', /^[\d.]+ (µs|ms|s)$/, 'FAIL'], 'the FAIL row with the value reached')
  t.match(rows.get('unexpected_failures==0'), ['0', '0', 'pass'])
  t.match(result.stderr, /^thresholds: 1 of 2 failed \(exit 3\)$/m, 'the verdict under the rows')
  t.equal(result.summary.elapsed_s >= 1.5, true, 'without --threshold-abort the run went to its end')
})

t.test('--threshold-abort: the run stops at the first failure for good, and says why', async t => {
  const result = await runCli(
    ['run', db.url, ...RUN, '-d', '60', '--threshold', 'done<50', '--threshold', 'p99<30s', '--threshold-abort'],
    { t }
  )
  t.equal(result.code, 3, `exit 3: ${result.stderr.slice(-600)}`)
  const summary = result.summary
  t.match(
    summary.threshold_abort,
    { expr: 'done<50', unit: 'count' },
    'the summary names the threshold that stopped it'
  )
  t.ok(summary.threshold_abort.value >= 50, 'with the figure then')
  t.ok(summary.elapsed_s < 20, `stopped early: ${summary.elapsed_s} s of 60`)
  t.match(
    result.stderr,
    /^pgloadgen warn \[PGLG_W_THRESHOLD_ABORT\]: stopped at [\d.]+ s by --threshold-abort: done<50 failed \(\d+\)$/m,
    'the log says so as it happens'
  )
  t.match(result.stderr, /^stopped at [\d.]+ s by --threshold-abort: done<50 failed/m, 'and the end table')
  t.match(
    summary.thresholds,
    [
      { expr: 'done<50', pass: false },
      { expr: 'p99<30s', pass: true }
    ],
    'both judged at the end'
  )
  t.match(summary.acknowledged_missing, 0, 'the audit still ran')
})

t.test('--threshold-abort with --warmup: the warm-up is not judged, the figures after it are', async t => {
  const result = await runCli(
    ['run', db.url, ...RUN, '-d', '60', '--warmup', '2', '--threshold', 'done<20', '--threshold-abort'],
    { t }
  )
  t.equal(result.code, 3, `exit 3: ${result.stderr.slice(-600)}`)
  const summary = result.summary
  t.ok(summary.threshold_abort.at_s >= 2, `stopped after the warm-up, at ${summary.threshold_abort.at_s} s`)
  t.ok(
    summary.warmup.done >= 20,
    `the warm-up alone did ${summary.warmup.done} requests, past the limit, and stopped nothing`
  )
  const done = Object.values(summary.requests).reduce((n, r) => n + r.done, 0)
  t.match(
    summary.thresholds[0],
    { expr: 'done<20', value: done, pass: false },
    'judged at the end on the requests after the warm-up'
  )
  t.ok(summary.threshold_abort.value <= done, 'and while running on those too')
})

t.test('timeouts: the count of requests --request-timeout cut, by type and in all', async t => {
  // 10 ms: some of manta's writes take longer on a busy machine, maybe none
  const result = await runCli(
    [
      'run',
      db.url,
      '-c',
      '4',
      '-p',
      '0',
      '--no-pg-stats',
      '--json',
      '-d',
      '2',
      '--request-timeout',
      '10ms',
      '--threshold',
      'timeouts==0',
      '--threshold',
      'insert_row:timeouts<=1000000'
    ],
    { t }
  )
  const summary = result.summary
  t.ok(summary, `the JSON summary: ${result.stderr.slice(-400)}`)
  const [all, inserts] = summary.thresholds
  t.match(
    all,
    { figure: 'timeouts', type: null, value: summary.timeouts, pass: summary.timeouts === 0 },
    `every type's timeouts: ${summary.timeouts}`
  )
  t.match(inserts, { type: 'insert_row', value: summary.requests.insert_row.timeouts, pass: true }, "insert_row's")
  t.equal(result.code, summary.timeouts === 0 ? 0 : 3, `exit ${result.code}`)
})

t.test('bad thresholds: one line, exit 2, nothing touched', async t => {
  const bounded = ['-d', '2', '--connect-timeout', '2', '-p', '0']
  const cases = /** @type {[string, string[], RegExp][]} */ ([
    [
      'malformed',
      ['--threshold', 'p99=5ms'],
      /^pgloadgen: --threshold "p99=5ms": must be \[type:\]figure op value.*== compares/
    ],
    ['no operator', ['--threshold', 'p99'], /^pgloadgen: --threshold "p99": must be/],
    ['unknown figure', ['--threshold', 'p98<5ms'], /^pgloadgen: --threshold "p98<5ms": unknown figure "p98"/],
    [
      'unknown request type',
      ['--threshold', 'delete_row:p99<5ms'],
      /^pgloadgen: --threshold "delete_row:p99<5ms": the workload has no request type "delete_row"; its types: insert_row, /
    ],
    [
      'a unit that does not fit',
      ['--threshold', 'throughput>5ms'],
      /^pgloadgen: --threshold "throughput>5ms": unit "ms" does not fit throughput/
    ],
    [
      'a latency without its unit',
      ['--threshold', 'p99<5'],
      /^pgloadgen: --threshold "p99<5": p99 is a latency: give its unit/
    ],
    [
      'the second of two',
      ['--threshold', 'p99<5ms', '--threshold', 'failed<1.5'],
      /^pgloadgen: --threshold "failed<1.5": failed is a count/
    ],
    ['lag in a closed loop', ['--threshold', 'lag_p99<5ms'], /lag_p99 needs a schedule/],
    [
      'the audit of a workload that audits nothing',
      ['-b', 'select-only', '--threshold', 'audit==exact'],
      /^pgloadgen: --threshold "audit==exact": this workload audits no acknowledged writes/
    ],
    ['--threshold-abort alone', ['--threshold-abort'], /^pgloadgen: --threshold-abort needs a --threshold/]
  ])
  for (const [name, args, problem] of cases) {
    t.test(name, async t => {
      const result = await runCli(['run', untouched.url, ...args, ...bounded], { t })
      t.equal(result.code, 2, 'exit 2')
      t.equal(result.stdout, '', 'nothing on stdout')
      const errorLines = lines(result.stderr)
      t.equal(errorLines.length, 1, `one line: ${JSON.stringify(result.stderr)}`)
      t.match(errorLines[0], problem)
      t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
    })
  }
  t.test('none of them touched the database', async t => {
    // a session that was opened reaches the statistics when its backend exits
    await sleep(500)
    t.same(await sessionsOf(untouched.adminUrl, untouched.name), { sessions: 0, backends: 0 }, 'no session was opened')
    t.same(await listTables(untouched.url), [], 'no table was created')
  })
})

t.test('hostile thresholds: the CLI refuses a sample of what the parser refuses, in one line', async t => {
  // manta's types and loop, as the CLI knows them when it checks --threshold
  const manta = {
    types: ['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max'],
    mode: /** @type {const} */ ('closed'),
    audits: true
  }
  const valid = [
    'p99<5ms',
    'insert_row:p95<=2ms',
    'throughput>5000',
    'unexpected_failures==0',
    'audit==exact',
    'failed_rate<1%'
  ]
  const { refusals } = await fuzzTest(
    t,
    '--threshold (manta)',
    hostileText(valid, { pieces: ['p99', '<', '>=', '==', ':', 'ms', 's', '%', 'read_row', 'lag_p99', 'exact'] }),
    (/** @type {string} */ text) => parseThreshold(text, manta),
    { runs: 1000 }
  )
  const bad = sample(refusals, 6, text => !text.startsWith('-'))
  await Promise.all(
    bad.map(text =>
      cliRefuses(
        t,
        ({ dataDir, events }) => [
          'run',
          '--threshold',
          text,
          '-p',
          '0',
          '-d',
          '1',
          '--data-dir',
          dataDir,
          '--events',
          events
        ],
        '--threshold'
      )
    )
  )
})
