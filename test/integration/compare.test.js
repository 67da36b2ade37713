// pgloadgen compare: real runs recorded by the real CLI on PostgreSQL 15,
// compared by `pgloadgen compare` as a user would: the table with both
// entries and their ratios, --json with the same figures as the text, every
// refusal one line and exit 2, --html opened in headless Chromium; and
// entries with repetitions (an experiment's layout, recorded run by run)
// so that intervals and verdicts appear.
import t from 'tap'
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { renderPage } from '../helpers/chromium.js'
import { readRunSummary } from '../helpers/summary-schema.js'

// what two decimals shown may differ from the figure, and a float's slack: 0.305 is shown 0.30
const HALF_CENT = 0.005 + 1e-9

const db = await createTestDatabase(t, 'compare')
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-compare-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/**
 * Records one real run.
 * @param {Tap.Test} t
 * @param {string} dir
 * @param {string[]} flags
 */
async function record(t, dir, flags) {
  const result = await runCli(
    ['run', db.url, '-p', '0', '--stats-interval', '1', '--record', dir, '--log-level', 'warn', ...flags],
    { t }
  )
  t.equal(
    result.code,
    0,
    `the run recorded to ${path.basename(dir)} succeeds (stderr: ${result.stderr.trim().slice(-300) || 'empty'})`
  )
}

// Two runs of the manta workload, each with a vacuum of its table half-way
// (its time and WAL are in the comparison), at two concurrencies.
const schedule = path.join(work, 'vacuum.json')
await writeFile(schedule, JSON.stringify({ actions: [{ action: 'vacuum', table: 'test_table', after: '1s' }] }))
const runA = path.join(work, 'runA')
const runB = path.join(work, 'runB')
// the subtests run one after the other: these first
t.test('two runs recorded', async t => {
  await record(t, runA, ['-d', '3', '-c', '2', '--reset', '--schedule', schedule])
  await record(t, runB, ['-d', '3', '-c', '4', '--schedule', schedule])
})

/** The short verdicts of the text table. */
const SHORT = /** @type {Record<string, string>} */ ({ 'cannot tell apart': 'cannot tell', 'no interval': 'no CI' })

/**
 * The rows of the text's figure tables, by label: their cells.
 * @param {string} text
 * @returns {Map<string, string[]>[]}   one map per table (entry after the baseline)
 */
function figureRows(text) {
  /** @type {Map<string, string[]>[]} */
  const tables = []
  for (const line of text.split('\n')) {
    if (/^figure\s{2,}/.test(line)) tables.push(new Map())
    else if (tables.length && /^ {2}\S/.test(line)) {
      const cells = line.trim().split(/\s{2,}/)
      tables[tables.length - 1].set(cells[0], cells)
    }
  }
  return tables
}

/**
 * The number a cell of the text shows, in the JSON's unit (µs, bytes …);
 * null for n/a.
 * @param {string} cell
 * @param {string} unit
 */
function cellValue(cell, unit) {
  if (cell === 'n/a') return null
  const number = Number.parseFloat(cell)
  if (unit === 'us') return number * 1000
  if (unit === 'bytes') {
    const power = ['B', 'KiB', 'MiB', 'GiB', 'TiB'].indexOf(cell.split(' ')[1])
    return number * 1024 ** power
  }
  return number
}

/**
 * How far a figure's text may be from its JSON value: the text's rounding.
 * @param {string} unit
 * @param {number} value
 */
function tolerance(unit, value) {
  if (unit === 'us') return 0.5
  if (unit === 'bytes') return Math.abs(value) < 1024 ? 0.5 : Math.abs(value) * 0.05
  if (unit === 'seconds') return 0.0005
  return 0.05
}

/**
 * Every figure of the text against the JSON: the values of both entries,
 * the ratio, the interval and the verdict.
 * @param {Tap.Test} t
 * @param {string} text
 * @param {any} json
 */
function sameFigures(t, text, json) {
  const tables = figureRows(text)
  t.equal(tables.length, json.comparisons.length, 'a table per entry after the baseline')
  const [baseline] = json.entries
  json.comparisons.forEach((/** @type {any} */ comparison, /** @type {number} */ i) => {
    const entry = json.entries.find((/** @type {any} */ e) => e.letter === comparison.entry)
    const rows = tables[i]
    let checked = 0
    for (const figure of json.figures) {
      const cells = rows.get(figure.label)
      if (!t.ok(cells, `the text has the row ${figure.label}`) || !cells) continue
      const [, aText, bText, ratioText, ciText, verdictText] = cells
      for (const [cell, value, who] of [
        [aText, baseline.figures[figure.key], baseline.letter],
        [bText, entry.figures[figure.key], entry.letter]
      ]) {
        const shown = cellValue(cell, figure.unit)
        if (value === null) t.equal(cell, 'n/a', `${figure.label} of ${who}: n/a in both`)
        else if (shown === null || Math.abs(shown - value) > tolerance(figure.unit, value))
          t.fail(`${figure.label} of ${who}: the text says ${cell}, the JSON ${value}`)
      }
      const c = comparison.figures[figure.key]
      if (c.ratio !== null) {
        if (Math.abs(Number.parseFloat(ratioText) - c.ratio) > HALF_CENT) {
          t.fail(`${figure.label}: ratio ${ratioText} in the text, ${c.ratio} in the JSON`)
        }
      } else t.ok(ratioText === 'n/a' || ratioText === '-', `${figure.label}: no ratio in either (${ratioText})`)
      if (c.interval) {
        const [low, high] = ciText.split('–').map(Number)
        if (Math.abs(low - c.interval[0]) > HALF_CENT || Math.abs(high - c.interval[1]) > HALF_CENT) {
          t.fail(`${figure.label}: interval ${ciText} in the text, ${c.interval} in the JSON`)
        }
      }
      if (verdictText !== (SHORT[c.verdict] ?? c.verdict)) {
        t.fail(`${figure.label}: verdict ${verdictText} in the text, ${c.verdict} in the JSON`)
      }
      checked++
    }
    t.equal(checked, json.figures.length, `every figure of ${entry.letter} checked against the JSON (${checked})`)
  })
}

t.test('the table shows both runs side by side with their ratios', async t => {
  const result = await runCli(['compare', runA, runB], { t })
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.trim() || 'empty'})`)
  t.equal(result.stderr, '', 'nothing on stderr')
  t.match(result.stdout, /^ {2}A {2}runA: manta, a run, \d+\.\d s of load/m, 'A is the first run')
  t.match(result.stdout, /^ {2}B {2}runB: manta, a run, \d+\.\d s of load/m, 'B is the second run')
  t.match(result.stdout, /^B against A: ratio B \/ A/m, 'B is compared with A')
  t.match(
    result.stdout,
    /^ {2}throughput, req\/s\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\d×\s+none \(1 rep\.\)\s+no CI$/m,
    'throughput: both figures, the ratio, no interval with one run each'
  )
  for (const label of [
    'all types p50',
    'all types p95',
    'all types p99',
    'all types p99.9',
    'insert_row p99.9',
    'unexpected failures',
    'expected failures',
    'dead tuples, peak',
    'table size, end',
    'vacuum WAL',
    'vacuum time',
    'vacuums',
    'autovacuums'
  ]) {
    t.match(result.stdout, new RegExp(`^ {2}${label.replace(/[.()]/g, '\\$&')}\\s{2,}\\S`, 'm'), `a row for ${label}`)
  }
  t.match(result.stdout, /^ {2}vacuums\s+1\s+1\s+1\.00×/m, "each run's one vacuum is counted")
  t.match(
    result.stdout,
    /^ {2}vacuum WAL\s+\d+(\.\d)? (B|KiB|MiB)\s+\d+(\.\d)? (B|KiB|MiB)/m,
    'the WAL the vacuums wrote, from their reports'
  )
  t.notMatch(result.stdout, /\bNaN\b|undefined/, 'no NaN, no undefined')
  for (const line of lines(result.stdout)) t.ok(line.length <= 80, `fits 80 columns: ${line}`)
})

t.test('--json carries the same figures as the text', async t => {
  const [text, json] = await Promise.all([
    runCli(['compare', runA, runB], { t }),
    runCli(['compare', runA, runB, '--json'], { t })
  ])
  t.equal(json.code, 0, `exit 0 (stderr: ${json.stderr.trim() || 'empty'})`)
  const comparison = JSON.parse(json.stdout)
  t.same(
    comparison.entries.map((/** @type {any} */ e) => [e.letter, e.name, e.kind, e.repetitions, e.workload]),
    [
      ['A', 'runA', 'run', 1, 'manta'],
      ['B', 'runB', 'run', 1, 'manta']
    ]
  )
  t.equal(comparison.baseline, 'A')
  // a run's own summary: the throughput and the merged percentiles of one run are its summary's
  const summaryA = await readRunSummary(path.join(runA, 'summary.json'))
  t.equal(comparison.entries[0].figures.throughput, summaryA.throughput, "one run's throughput is its summary's")
  t.equal(comparison.entries[0].figures['latency.all.p99'], summaryA.latency_us.p99, "one run's p99 is its summary's")
  t.equal(
    comparison.entries[0].figures['latency.insert_row.p95'],
    summaryA.requests.insert_row.latency_us.p95,
    'and per type'
  )
  t.equal(
    comparison.entries[0].figures.unexpected_failures,
    summaryA.unexpected_failures,
    'unexpected failures as the summary has them'
  )
  t.ok(
    summaryA.server_wal_bytes > 0,
    `a recorded run's summary has the server's WAL (${summaryA.server_wal_bytes} bytes)`
  )
  t.equal(
    comparison.entries[0].figures.server_wal_bytes,
    summaryA.server_wal_bytes,
    'and the comparison sets it side by side'
  )
  sameFigures(t, text.stdout, comparison)
})

t.test('each refusal is one line on stderr and exit 2', async t => {
  const empty = path.join(work, 'empty')
  await mkdir(empty, { recursive: true })
  const unfinished = path.join(work, 'unfinished')
  await cp(runB, unfinished, { recursive: true })
  await rm(path.join(unfinished, 'summary.json'))
  const experiment = path.join(work, 'tiny-experiment')
  await mkdir(path.join(experiment, 'variants', 'one'), { recursive: true })
  await writeFile(
    path.join(experiment, 'experiment.json'),
    JSON.stringify({ name: 'tiny', plan: { variants: [{ name: 'one' }] } })
  )
  await cp(runA, path.join(experiment, 'variants', 'one', 'rep-1'), { recursive: true })
  const other = path.join(work, 'timeseries')
  await record(t, other, ['-w', 'timeseries', '-d', '2', '-c', '2'])
  const cases = [
    { args: [runA], why: 'one entry', says: /at least two entries/ },
    { args: [runA, path.join(runB, 'summary.json')], why: 'a file', says: /not a directory/ },
    { args: [runA, path.join(work, 'nowhere')], why: 'no such path', says: /no such directory/ },
    { args: [runA, empty], why: 'a directory that is no recorded run', says: /not a recorded run/ },
    { args: [runA, unfinished], why: 'a run without summary.json', says: /has no summary\.json/ },
    {
      args: [runA, `${experiment}:nope`],
      why: 'a variant that does not exist (EXPDIR:NAME)',
      says: /has no variant "nope" \(its variants: one\)/
    },
    {
      args: [runA, path.join(experiment, 'variants', 'nope')],
      why: 'a variant that does not exist (EXPDIR/variants/NAME)',
      says: /has no variant "nope"/
    },
    { args: [runA, experiment], why: 'a whole experiment', says: /is an experiment: give one of its variants/ },
    {
      args: [runA, other],
      why: 'entries of different workloads',
      says: /ran the manta workload, .* timeseries: --force compares them anyway/
    }
  ]
  for (const c of cases) {
    const result = await runCli(['compare', ...c.args], { t })
    t.equal(result.code, 2, `${c.why}: exit 2`)
    t.equal(lines(result.stderr).length, 1, `${c.why}: one line on stderr (${result.stderr.trim()})`)
    t.match(result.stderr, /^pgloadgen: compare: /, `${c.why}: says it is compare's`)
    t.match(result.stderr, c.says, `${c.why}: says why`)
    t.equal(result.stdout, '', `${c.why}: nothing on stdout`)
  }
  const forced = await runCli(['compare', runA, other, '--force'], { t })
  t.equal(forced.code, 0, `--force compares different workloads (stderr: ${forced.stderr.trim() || 'empty'})`)
  t.match(forced.stdout, /--force: the entries ran different workloads/)
  t.match(forced.stdout, /^ {2}throughput, req\/s/m)
  const variant = await runCli(['compare', runA, `${experiment}:one`], { t })
  t.equal(variant.code, 0, 'a variant of one repetition compares with a run')
  t.match(variant.stdout, /^ {2}B {2}tiny-experiment:one: manta, 1 repetition,/m)
})

t.test("--html writes a page with the entries' charts overlaid that renders in Chromium", async t => {
  const page = path.join(work, 'html', 'compare.html')
  const result = await runCli(['compare', runA, runB, '--html', page, '--log-level', 'info'], { t })
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.trim() || 'empty'})`)
  t.match(result.stderr, /comparison page written to .*compare\.html/)
  t.match(result.stdout, /^B against A/m, 'the table is printed too')
  const rendered = await renderPage(page)
  t.same(rendered.console, [], 'no console output: no error, no uncaught exception')
  const charts = [...rendered.dom.matchAll(/<figure\b[^>]*\bdata-chart="([^"]+)"[^>]*>/g)].map(match => ({
    id: match[1],
    points: Number(/\bdata-points="(\d+)"/.exec(match[0])?.[1] ?? NaN)
  }))
  t.equal(
    Number(/<body\b[^>]*\bdata-charts-rendered="(\d+)"/.exec(rendered.dom)?.[1]),
    charts.length,
    'every chart was drawn'
  )
  const throughput = charts.find(c => c.id === 'cmp-throughput')
  const p99 = charts.find(c => /^cmp-p99/.test(c.id))
  t.ok(throughput && throughput.points > 0, `the throughput chart has data (${throughput?.points} points)`)
  t.ok(p99 && p99.points > 0, `a p99 chart has data (${p99?.points} points)`)
  for (const chart of charts) t.ok(chart.points > 0, `chart ${chart.id} has data`)
  t.match(rendered.dom, /A runA rep 1/, 'the legend names entry A')
  t.match(rendered.dom, /B runB rep 1/, 'and entry B')
  t.match(rendered.dom, /<table class="compare">/, 'the table of figures is on the page')
})

t.test('entries with repetitions get intervals and verdicts', async t => {
  // an experiment's layout, recorded run by run: two variants, three
  // repetitions each, open loop at two rates far apart
  const experiment = path.join(work, 'rates')
  await mkdir(experiment, { recursive: true })
  await writeFile(
    path.join(experiment, 'experiment.json'),
    JSON.stringify({ name: 'rates', plan: { variants: [{ name: 'slow' }, { name: 'fast' }] } })
  )
  for (const [variant, rate] of [
    ['slow', '100'],
    ['fast', '400']
  ]) {
    for (let rep = 1; rep <= 3; rep++) {
      await record(t, path.join(experiment, 'variants', variant, `rep-${rep}`), ['-d', '2', '-c', '4', '-R', rate])
    }
  }
  const json = await runCli(
    ['compare', `${experiment}:slow`, path.join(experiment, 'variants', 'fast'), runA, '--json'],
    { t }
  )
  t.equal(json.code, 0, `exit 0 (stderr: ${json.stderr.trim() || 'empty'})`)
  const comparison = JSON.parse(json.stdout)
  t.same(
    comparison.entries.map((/** @type {any} */ e) => [e.letter, e.name, e.kind, e.repetitions]),
    [
      ['A', 'rates:slow', 'variant', 3],
      ['B', 'rates:fast', 'variant', 3],
      ['C', 'runA', 'run', 1]
    ]
  )
  const fast = comparison.comparisons[0].figures
  t.ok(fast.throughput.interval, `an interval of B's throughput: ${fast.throughput.interval}`)
  t.ok(fast.throughput.baseline_interval, `and of A's: ${fast.throughput.baseline_interval}`)
  t.ok(
    fast.throughput.ratio > 2.5 && fast.throughput.ratio < 5.5,
    `B runs about 4 times A's rate (${fast.throughput.ratio})`
  )
  t.equal(fast.throughput.verdict, 'better', "four times the rate: better, Welch's interval far above 1")
  t.match(fast.throughput.effect, { kind: 'ratio', none: 1, n: [3, 3] }, 'the interval the verdict rests on')
  t.ok(fast.throughput.effect.low > 1, `its low end above 1: ${fast.throughput.effect.low}`)
  t.ok(fast.throughput.interval[0] > fast.throughput.baseline_interval[1], "B's interval lies above A's")
  t.equal(
    comparison.comparisons[1].figures.throughput.verdict,
    'no interval',
    'a single run against repetitions: no interval'
  )
  // the merged percentiles are those of every request of the repetitions, not a mean of theirs
  const slow = comparison.entries[0]
  const p99s = slow.repetition_figures['latency.all.p99']
  t.equal(p99s.length, 3, "each repetition's p99")
  t.ok(
    slow.figures['latency.all.p99'] >= Math.min(...p99s) && slow.figures['latency.all.p99'] <= Math.max(...p99s),
    "the merged p99 lies within the repetitions'"
  )
  const text = await runCli(['compare', `${experiment}:slow`, path.join(experiment, 'variants', 'fast'), runA], { t })
  t.equal(text.code, 0)
  t.match(text.stdout, /^ {2}A {2}rates:slow: manta, 3 repetitions,/m)
  t.match(
    text.stdout,
    /^ {2}throughput, req\/s\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\d×\s+\d+\.\d\d–\d+\.\d\d\s+better$/m,
    "the text shows B's interval and the verdict"
  )
  t.match(text.stdout, /^C against A/m, 'a table for C too')
  sameFigures(t, text.stdout, comparison)
})
