// Merging the recorded runs of a load's instances, and what the terminal and
// the report make of a summary: counts add up, percentiles come from the
// added histograms (not an average of the instances'), rates are over the
// union's wall time, a second's samples are added or bounded; the end table
// shows every figure as the summary holds it; the report's pieces escape
// what they show, keep secrets out and sum repetitions up. No server, no
// files.
import t from 'tap'
import { LogHistogram } from '../../lib/metrics/log-histogram.js'
import { histogramsFieldOf } from '../../lib/summary/histogram-field.js'
import { latencySummary } from '../../lib/summary/summary.js'
import { mergeSummaries } from '../../lib/merge/merge-summary.js'
import { mergeSamples } from '../../lib/merge/merge-samples.js'
import { summaryTable } from '../../lib/terminal/summary-table.js'
import { renderTable, fit, pad } from '../../lib/terminal/table.js'
import { ms, rate, count, plural, duration } from '../../lib/terminal/figure-format.js'
import { esc, scriptJson, fmtBytes, fmtSeconds, keyValueTable } from '../../lib/report/html.js'
import { redact, redactString } from '../../lib/report/redact.js'
import { mean, maxOf, spread, ratio } from '../../lib/results/arithmetic.js'

/**
 * A histogram of the given latencies, in microseconds.
 * @param {number[]} latencies
 */
function histogramOf(latencies) {
  const h = new LogHistogram()
  for (const us of latencies) h.record(us)
  return h
}

/**
 * An instance's recorded run: a summary of its requests (one type) and its samples.
 * @param {number} index
 * @param {number[]} latencies
 * @param {number} startedMs
 * @param {number} seconds
 */
function instanceRun(index, latencies, startedMs, seconds) {
  const h = histogramOf(latencies)
  const summary = {
    workload: 'manta',
    mode: 'closed',
    concurrency: 2,
    protocol: 'prepared',
    mix: 'insert_row=1',
    target: 'postgres://db/test',
    server_version: '15.20',
    latency_kind: 'service',
    rows_written: latencies.length,
    points_written: 0,
    latency_us: latencySummary(h),
    requests: {
      insert_row: { started: latencies.length, done: latencies.length, failed: index, rows: latencies.length }
    },
    errors: index ? { 'duplicate key': index } : {},
    unexpected_failures: 0,
    reconnects: index,
    cancels: { sent: 2 + index, succeeded: 1 + index, gave_up: 1 },
    refused_connections: 3 * index,
    acknowledged_inserts: latencies.length,
    acknowledged_missing: 0,
    acknowledged_vanished: 0,
    process: { cpu_user_s: 1, cpu_system_s: 0.5, peak_rss_bytes: 50e6 + index * 1e6 },
    histograms: histogramsFieldOf(h, [['insert_row', h]], null)
  }
  const samples = Array.from({ length: seconds }, (_, i) => ({
    t: new Date(startedMs + (i + 1) * 1000).toISOString(),
    elapsed_s: i + 1,
    concurrency: 2,
    requests: {
      insert_row: { done: 10 + index, failed: index, p50_us: 1000 * (index + 1), p99_us: 5000 * (index + 1) }
    }
  }))
  return {
    summary,
    startedMs,
    endedMs: startedMs + seconds * 1000,
    instance: { name: `i${index}`, index, parts: 2 },
    run: { dir: `/runs/${index}`, samples }
  }
}

// two instances: one fast, one slow, a second apart
const fast = Array.from({ length: 900 }, (_, i) => 1000 + i)
const slow = Array.from({ length: 100 }, (_, i) => 50000 + 100 * i)
const t0 = Date.UTC(2026, 5, 12, 10, 0, 0)
const runs = [instanceRun(0, fast, t0, 10), instanceRun(1, slow, t0 + 1000, 10)]

t.test('a merged summary: counts added, percentiles of every request, rates over the union', async t => {
  const merged = mergeSummaries(/** @type {any} */ (runs))
  const all = histogramOf([...fast, ...slow])
  t.equal(merged.elapsed_s, 11, 'first start to last end')
  t.equal(merged.start_skew_ms, 1000)
  t.equal(merged.concurrency, 4)
  t.equal(merged.requests.insert_row.done, 1000)
  t.equal(merged.requests.insert_row.failed, 1)
  t.equal(merged.rows_written, 1000)
  t.equal(merged.throughput, Math.round((1000 / 11) * 10) / 10, "requests over the union's seconds")
  t.same(merged.latency_us, latencySummary(all), 'percentiles of the added histograms')
  t.ok(merged.latency_us.p95 !== null && merged.latency_us.p95 >= 50000, 'the slow tenth is the p95, not averaged away')
  t.same(merged.errors, { 'duplicate key': 1 })
  t.equal(merged.reconnects, 1)
  t.same(merged.cancels, { sent: 5, succeeded: 3, gave_up: 2 }, "each instance's cancels added")
  t.equal(merged.refused_connections, 3, "each instance's refused connections added")
  t.notOk('server_restarts' in merged, 'no instance owned a server it restarted')
  t.equal(merged.acknowledged_inserts, 1000)
  t.equal(merged.acknowledged_missing, 0)
  t.equal(merged.process.peak_rss_bytes, 51e6, "the largest instance's")
  t.equal(merged.process.cpu_user_s, 2)
  t.same(merged.merged, {
    runs: 2,
    instances: ['i0', 'i1'],
    parts: 2,
    missing: [],
    directories: ['/runs/0', '/runs/1'],
    load_started_at: [new Date(t0).toISOString(), new Date(t0 + 1000).toISOString()]
  })
  t.equal(merged.server_version, '15.20', 'what all share')
})

t.test("merged samples: a second's counts added, its percentiles the highest", async t => {
  const samples = mergeSamples(/** @type {any} */ (runs), t0)
  t.equal(samples.length, 10, 'the k-th samples together')
  const [first] = /** @type {any[]} */ (samples)
  t.equal(first.instances, 2)
  t.equal(first.concurrency, 4)
  t.same(first.requests.insert_row, { done: 21, failed: 1, p50_us: 2000, p99_us: 10000 })
})

t.test('the end table shows the merged summary as it is', async t => {
  const lines = summaryTable(mergeSummaries(/** @type {any} */ (runs)), { width: 80 })
  t.match(lines[1], /^manta, closed loop, concurrency 4, 11 s, merged from 2 runs \(start skew 1000 ms\)$/)
  t.equal(lines[2], 'against postgres://db/test (PostgreSQL 15.20)')
  const header = lines.findIndex(line => line.startsWith('type '))
  t.match(lines[header], /^type\s+done\s+failed\s+req\/s\s+p50 ms\s+p95 ms\s+p99 ms\s+max ms$/)
  t.match(lines[header + 1], /^insert_row\s+1000\s+1\s/)
  t.match(lines[header + 2], /^total\s+1000\s+1\s+90\.9\s/)
  t.ok(
    lines.some(line => /^duplicate key\s+1$/.test(line)),
    'the failures by message'
  )
  t.ok(
    lines.every(line => line.length <= 80),
    'within the width'
  )
})

t.test('terminal tables and figures', async t => {
  const columns = [
    { title: 'name', flexible: true, min: 6 },
    { title: 'n', align: /** @type {const} */ ('right') }
  ]
  const rows = [{ cells: ['a rather long name that cannot fit', '7'] }, { cells: ['日本語', '12'] }]
  const lines = renderTable(columns, rows, { width: 16 })
  // 16 columns: the numbers' 2, the gap's 2, the name's 12 (日本語 is 6 wide)
  t.same(lines, ['name           n', 'a rather lo…   7', '日本語        12'], 'cut, padded by display width')
  t.equal(pad('7', 3, 'right'), '  7')
  t.equal(fit('abcdef', 4), 'abc…')
  t.equal(ms(1234), '1.234')
  t.equal(ms(null), '-')
  t.equal(rate(90.909), '90.9')
  t.equal(count(2.6), '3')
  t.equal(plural(1, 'run'), '1 run')
  t.equal(plural(2, 'run'), '2 runs')
  t.equal(duration(45), '45 s')
  t.equal(duration(185), '3 min 05 s')
  t.equal(duration(3720), '1 h 02 min')
})

t.test("the report's pieces escape what they show", async t => {
  t.equal(esc('<b>"x" & \'y\'</b>'), '&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;')
  t.notMatch(scriptJson({ text: '</script><script>alert(1)</script>' }), /<\/script>/i, 'no end of the script element')
  t.same(JSON.parse(scriptJson({ a: [1, '</script>'] })), { a: [1, '</script>'] }, 'still the JSON')
  t.equal(fmtBytes(2 * 1024 ** 3), '2.0 GiB')
  t.equal(fmtSeconds(90), '90 s')
  const row = '<tr><th scope="row">&lt;k&gt;</th><td>&lt;v&gt;</td></tr>'
  t.equal(keyValueTable({ '<k>': '<v>' }), `<table class="kv"><tbody>${row}</tbody></table>`)
})

t.test('no secret reaches a report', async t => {
  const info = {
    args: ['run', 'postgres://u:hunter2@db:5432/x?sslmode=require'],
    control_token: 'abc',
    api_key: 'k',
    password: '',
    nested: { url: 'https://me:pw@host/p', query: 'x?password=zz&b=1', concurrency: 8 }
  }
  t.same(redact(info), {
    args: ['run', 'postgres://u@db:5432/x?sslmode=require'],
    control_token: '[redacted]',
    api_key: '[redacted]',
    password: '',
    nested: { url: 'https://me@host/p', query: 'x?password=[redacted]&b=1', concurrency: 8 }
  })
  t.equal(redactString('postgresql://alice:s3cret@h/db?password=again'), 'postgresql://alice@h/db')
  t.equal(redactString('no secret here'), 'no secret here')
})

t.test("the report's figures over repetitions", async t => {
  t.equal(mean([1, null, 3, NaN]), 2, 'the values known')
  t.equal(mean([null]), null)
  t.equal(maxOf([1, 7, null, 3]), 7)
  t.same(spread([10, 12, 14]), { mean: 12, min: 10, max: 14, spread: 0.333, n: 3 })
  t.same(spread([0.25, 0.75]), { mean: 0.5, min: 0.25, max: 0.75, spread: 1, n: 2 })
  t.equal(spread([]), null)
  t.equal(ratio(2, 3), 0.667)
  t.equal(ratio(1, 0), null)
})
