// What the terminal shows of a run with stderr piped, as in a log file:
// progress lines every -P seconds, then the end table, whose every figure
// is the --json summary's of the same run; nothing but plain text (no
// escape code, no control character); bad -P values refused in one line.
// The terminal itself (the line redrawn in place) is terminal-tmux.test.js.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { writeExperiment } from '../fixtures/report/synthetic.js'
import { vacuumVariant } from '../fixtures/report/vacuum.js'
import { writeReport } from '../../lib/report/index.js'
import { comparisonTable } from '../../lib/terminal/comparison-table.js'
import { summaryTable } from '../../lib/terminal/summary-table.js'
import { coloursFor } from '../../lib/terminal/colours.js'
import { stripVTControlCharacters } from 'node:util'
import { readFile } from 'node:fs/promises'

const db = await createTestDatabase(t, 'terminal')
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-terminal-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

// anything but a newline below U+0020, DEL, and the C1 controls (ESC included)
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/ // eslint-disable-line no-control-regex

/**
 * The rows of the first table whose header starts with `first`, up to the
 * blank line that ends it, as arrays of cells (split on two spaces or more).
 * @param {string} text
 * @param {string} first
 */
function tableRows(text, first) {
  const all = text.split('\n')
  const start = all.findIndex(line => line.startsWith(`${first} `))
  if (start < 0) return null
  const rows = []
  for (const line of all.slice(start + 1)) {
    if (line.trim() === '' || !/ {2}\S+$/.test(line)) break
    rows.push(line.trim().split(/ {2,}/))
  }
  return rows
}

/** "23.551" (ms) → 23551 (µs); "-" → null */
const us = (/** @type {string} */ cell) => (cell === '-' ? null : Math.round(Number(cell) * 1000))

t.test('a run with stderr piped: progress lines, and an end table that is the --json summary', async t => {
  const record = path.join(work, 'recorded')
  const result = await runCli(
    ['run', db.url, '-c', '4', '-d', '3', '-P', '1', '--json', '-p', '0', '--no-pg-stats', '--record', record],
    { t }
  )
  t.equal(result.code, 0, `exit 0: ${result.stderr.slice(-400)}`)
  const summary = result.summary
  t.ok(summary, 'stdout is the JSON summary, alone')
  t.notMatch(result.stdout, /req\/s|p99 ms/, 'the table is not on stdout')

  t.notOk(CONTROL.test(result.stderr), 'stderr is plain text: no escape code, no control character')
  const progress = lines(result.stderr).filter(line =>
    /^pgloadgen info: \d+ s: [\d.]+ requests\/s, p50 [\d.-]+ ms, p99 [\d.-]+ ms, \d+ failed( \(\d+ unexpected\))?, \d+\/\d+ connections$/.test(
      line
    )
  )
  t.ok(progress.length >= 2, `a progress line a second, each a log line of its own: ${progress.join(' | ')}`)

  const rows = tableRows(result.stderr, 'type')
  t.ok(rows, 'the end table is on stderr')
  const byType = new Map((rows ?? []).map(cells => [cells[0], cells]))
  t.same(
    [...byType.keys()],
    [...Object.keys(summary.requests), 'total'],
    "a row per request type, in the summary's order, and a total"
  )
  for (const [type, r] of Object.entries(summary.requests)) {
    const [, done, failed, rate, p50, p95, p99, max] = byType.get(type) ?? []
    t.same(
      { done: Number(done), failed: Number(failed), rate: Number(rate) },
      { done: r.done, failed: r.failed, rate: r.rate },
      `${type}: the summary's counts and rate`
    )
    t.same(
      { p50: us(p50), p95: us(p95), p99: us(p99), max: us(max) },
      { p50: r.latency_us.p50, p95: r.latency_us.p95, p99: r.latency_us.p99, max: r.latency_us.max },
      `${type}: the summary's percentiles, to the µs`
    )
  }
  const [, done, failed, rate, p50, p95, p99, max] = byType.get('total') ?? []
  const requests = Object.values(summary.requests)
  t.equal(
    Number(done),
    requests.reduce((n, r) => n + r.done, 0),
    'total: every request done'
  )
  t.equal(
    Number(failed),
    requests.reduce((n, r) => n + r.failed, 0),
    'total: every failure'
  )
  t.equal(Number(rate), summary.throughput, 'total: the throughput')
  t.same(
    [us(p50), us(p95), us(p99), us(max)],
    [summary.latency_us.p50, summary.latency_us.p95, summary.latency_us.p99, summary.latency_us.max],
    'total: the latency of all requests'
  )

  const failures = tableRows(result.stderr, 'failure') ?? []
  t.same(
    Object.fromEntries(failures.map(([message, count]) => [message, Number(count)])),
    summary.errors,
    'the failures by message, with their counts'
  )
  t.match(
    result.stderr,
    new RegExp(`^unexpected failures: ${summary.unexpected_failures}$`, 'm'),
    'the unexpected failures'
  )
  t.match(result.stderr, new RegExp(`^reconnects: ${summary.reconnects}$`, 'm'), 'the reconnects')
  const present = summary.acknowledged_inserts - summary.acknowledged_missing - summary.acknowledged_vanished
  t.match(
    result.stderr,
    new RegExp(
      `^inserts: ${summary.acknowledged_inserts} acknowledged, ${present} present, ${summary.acknowledged_missing} ` +
        `missing, ${summary.acknowledged_vanished} vanished$`,
      'm'
    ),
    'the acknowledged-insert audit'
  )
  t.match(result.stderr, `recorded to ${record}`, 'where the recording went')
  t.notMatch(result.stderr, /done: /, 'no done: line beside the table')
  for (const line of result.stderr.split('\n').slice(result.stderr.split('\n').findIndex(l => l.startsWith('type ')))) {
    if (!line.startsWith('recorded to') && !line.startsWith('against ')) {
      t.ok(line.length <= 80, `fits in 80 columns: ${line}`)
    }
  }
})

t.test('-P 0: no progress line; the table all the same', async t => {
  const result = await runCli(['run', db.url, '-c', '2', '-d', '2', '-P', '0', '-p', '0', '--no-pg-stats'], { t })
  t.equal(result.code, 0, `exit 0: ${result.stderr.slice(-400)}`)
  t.notMatch(result.stderr, /info: \d+ s: /, 'no progress line')
  t.match(result.stderr, /^total +\d+/m, 'the end table')
  t.equal(result.stdout, '', 'stdout empty without --json')
})

t.test('bad -P values: one line, exit 2', async t => {
  const plan = path.join(work, 'plan.yaml')
  await writeFile(
    plan,
    'name: p\nserver: { embedded: true }\nworkload: manta\nprepare: { duration: 1s }\nvariants:\n  - name: ' +
      'a\n    steps: [ { load: 1s } ]\nrepetitions: 1\n'
  )
  // bounded, in case a bad value were taken by mistake
  const run = ['run', db.url, '-d', '1', '-p', '0']
  const cases = [
    [...run, '-P', 'often'],
    [...run, '-P', '-1'],
    [...run, '-P', '1.5'],
    [...run, '--progress', '3601'],
    [...run, '-P', ''],
    ['experiment', plan, '--out', path.join(work, 'never'), '-P', 'x']
  ]
  for (const args of cases) {
    const result = await runCli(args, { t })
    const shown = `${args[0]} ${args.slice(-2).join(' ')}`
    t.equal(result.code, 2, `${shown}: exit 2`)
    t.equal(lines(result.stderr).length, 1, `${shown}: one line: ${JSON.stringify(result.stderr)}`)
    t.match(
      result.stderr,
      /^pgloadgen: --progress must be (a whole number|between 0 and 3600)/,
      `${shown}: names the flag and what it takes`
    )
  }
})

t.test("the experiment's comparison table, in text, from its report's summary", async t => {
  const dir = path.join(work, 'experiment')
  const before = { throughputs: [1000, 1100, 900], p99s: [2000, 2200, 1800] }
  await writeExperiment(dir, {
    name: 'terminal-test',
    description: 'known ratios',
    workload: 'manta',
    variants: [
      vacuumVariant({ name: 'vacuum', ratios: [0.8, 0.82, 0.81], p99Ratios: [1.5, 1.6, 1.55], duringS: 30, ...before }),
      vacuumVariant({ name: 'freeze', ratios: [0.6, 0.62, 0.61], p99Ratios: [1.5, 1.7, 1.6], duringS: 30, ...before })
    ]
  })
  const written = await writeReport(dir)
  const summary = JSON.parse(await readFile(/** @type {string} */ (written.summary), 'utf8'))
  const text = comparisonTable(summary).join('\n')
  t.notOk(CONTROL.test(text), 'plain text without colours')
  const throughput = tableRows(text, 'variant') ?? []
  t.same(
    throughput.map(cells => cells[0]),
    ['vacuum', 'freeze'],
    'a row per variant'
  )
  const freeze = throughput[1]
  t.equal(
    freeze[5],
    `${summary.variants[1].statistics.degradation_ratio.mean.toFixed(2)}×`,
    "the ratio is the report's mean"
  )
  t.equal(freeze[6], '0.60–0.62', 'with its confidence interval')
  t.equal(freeze[7], 'worse', "and the report's verdict against the first")
  t.equal(throughput[0][7], 'baseline', 'the first is the baseline')
  for (const line of text.split('\n')) t.ok(line.length <= 80, `fits in 80 columns: ${line}`)
})

t.test('colour: only when asked for, and the columns stay aligned', async t => {
  const summary = {
    workload: 'w',
    mode: 'closed',
    concurrency: 1,
    elapsed_s: 1,
    target: 'postgres://x@h/d',
    server_version: '15',
    requests: { a: { done: 2, failed: 1, rate: 2, latency_us: { p50: 1000, p95: 2000, p99: 2000, max: 2500 } } },
    throughput: 2,
    latency_us: { p50: 1000, p95: 2000, p99: 2000, max: 2500 },
    errors: { boom: 1 },
    unexpected_failures: 1,
    reconnects: 0,
    acknowledged_inserts: 0,
    acknowledged_missing: null,
    points_written: 0
  }
  const tty = { isTTY: true }
  t.notOk(
    CONTROL.test(summaryTable(summary, { colours: coloursFor(tty, { NO_COLOR: '1' }) }).join('\n')),
    'NO_COLOR: none'
  )
  t.notOk(
    CONTROL.test(summaryTable(summary, { colours: coloursFor(tty, { FORCE_COLOR: '0' }) }).join('\n')),
    'FORCE_COLOR=0: none'
  )
  t.notOk(
    CONTROL.test(summaryTable(summary, { colours: coloursFor({ isTTY: false }, {}) }).join('\n')),
    'not a terminal: none'
  )
  const coloured = summaryTable(summary, { colours: coloursFor(tty, {}) })
  t.ok(CONTROL.test(coloured.join('\n')), 'a terminal: colour')
  const plain = summaryTable(summary)
  t.same(
    coloured.map(line => stripVTControlCharacters(line)),
    plain,
    'the same text, columns where they were'
  )
})
