// Three instances of one load, as separate processes started with
// --instance i/3 --start-at, and `pgloadgen merge` of their run directories:
// the merged summary is the union of what they did (counts added, histograms
// added bucket by bucket, percentiles recomputed), their loads started
// together, and the Prometheus recording rules over their /metrics give the
// merged p99 within one bucket. Then every refusal: one line, exit 2.
import t from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CliRun, REPO, lines, runCli } from '../helpers/cli.js'
import { countRows, createTestDatabase } from '../helpers/pg.js'
import { missingBinary, PROMETHEUS_BIN, startPrometheus } from '../helpers/prometheus.js'
import { LogHistogram } from '../../lib/metrics/log-histogram.js'
import { LATENCY_BUCKETS_US, bucketIndex } from '../../lib/metrics/latency-buckets.js'

const PARTS = 3
const RATE = 600
const CONCURRENCY = 7 // 3 + 2 + 2 clients
const DURATION_S = 8
// how far apart the instances' loads may start: their clocks are one machine's here
const MAX_SKEW_MS = 200
const RULES = path.join(REPO, 'deploy/prometheus/pgloadgen-rules.yml')

const db = await createTestDatabase(t, 'instances')
const work = await mkdtemp(path.join(tmpdir(), 'pgloadgen-instances-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/**
 * A histogram of a summary's histograms field, rebuilt by hand.
 * @param {{ buckets: [number, number][], max: number }[]} parts
 */
function summed(parts) {
  const h = new LogHistogram()
  for (const part of parts) {
    for (const [i, n] of part.buckets) {
      h.counts[i] += n
      h.count += n
    }
    h.max = Math.max(h.max, part.max)
  }
  return h
}

/** @param {Record<string, number>[]} maps */
function added(maps) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v
  return out
}

t.test('three instances started together, merged exactly', async t => {
  const prometheusProblem = missingBinary(PROMETHEUS_BIN)
  // Node starts in a second or two on a quiet machine, in 10 to 20 when
  // other test files keep both cores busy (three of them at once, each
  // connecting and setting up); Prometheus needs a scrape of every instance
  // before the load starts.
  const startAtMs = (Math.floor(Date.now() / 1000) + 25) * 1000
  const startAt = new Date(startAtMs).toISOString()
  const dirs = Array.from({ length: PARTS }, (_, i) => path.join(work, `instance-${i}`))
  const runs = dirs.map(
    (dir, i) =>
      new CliRun(
        [
          'run',
          db.url,
          '-c',
          String(CONCURRENCY),
          '-R',
          String(RATE),
          '-d',
          String(DURATION_S),
          '--instance',
          `${i}/${PARTS}`,
          '--start-at',
          startAt,
          '--record',
          dir,
          '-p',
          '0',
          '--no-pg-stats',
          '--json'
        ],
        { t }
      )
  )
  const metrics = await Promise.all(runs.map(run => run.metricsUrl()))
  await Promise.all(runs.map(run => run.waitForStderr(/ready; the load starts at/)))
  t.ok(Date.now() < startAtMs, 'every instance is ready before the start moment')
  const prometheus =
    prometheusProblem === null
      ? await startPrometheus(t, { targets: metrics.map(url => new URL(url).host), ruleFiles: [RULES] })
      : null

  const results = await Promise.all(runs.map(run => run.exited))
  // each instance waited for Prometheus's scrape of its final counts before it exited
  const exitedMs = Date.now()
  for (const [i, result] of results.entries())
    t.equal(result.code, 0, `instance ${i} ends normally: ${result.stderr.slice(-300)}`)
  const summaries = results.map(r => r.summary)

  t.test('each instance ran its exact share, from the start moment', async t => {
    t.same(
      summaries.map(s => s.concurrency),
      [3, 2, 2],
      'the clients dealt out 3, 2, 2'
    )
    for (const [i, s] of summaries.entries()) {
      t.same(
        { index: s.instance.index, parts: s.instance.parts, total_rate: s.instance.total_rate },
        { index: i, parts: PARTS, total_rate: RATE }
      )
      t.equal(s.rate, RATE / PARTS, `instance ${i} keeps a third of the schedule`)
      t.equal(s.start_at, startAt)
      const skew = Date.parse(s.started_at) - startAtMs
      t.ok(skew >= 0 && skew <= MAX_SKEW_MS, `instance ${i}'s load started ${skew} ms after --start-at`)
      const info = JSON.parse(await readFile(path.join(dirs[i], 'run.json'), 'utf8'))
      t.equal(info.instance, `${i}/${PARTS}`, 'run.json names the instance')
      t.equal(info.start_at, startAt, 'and the start moment')
    }
  })

  const merge = await runCli(['merge', ...dirs, '--out', path.join(work, 'merged'), '--json'], { t })
  t.equal(merge.code, 0, `merge succeeds: ${merge.stderr}`)
  const merged = merge.summary

  t.test("the merged summary is the union of the instances'", async t => {
    const sum = (/** @type {(s: any) => number} */ pick) => summaries.reduce((n, s) => n + pick(s), 0)
    t.equal(merged.concurrency, CONCURRENCY, 'the clients add up to --concurrency')
    t.equal(merged.rate, RATE, 'the rate is the one given to all')
    for (const type of Object.keys(summaries[0].requests)) {
      for (const field of ['started', 'done', 'failed', 'not_found', 'rows']) {
        t.equal(
          merged.requests[type][field],
          sum(s => s.requests[type][field]),
          `${type}.${field} added`
        )
      }
    }
    const done = sum(s =>
      Object.values(s.requests).reduce((/** @type {number} */ n, /** @type {any} */ r) => n + r.done, 0)
    )
    t.ok(done > RATE * DURATION_S * 0.6, `${done} requests done in ${DURATION_S} s at ${RATE}/s`)
    t.same(merged.errors, added(summaries.map(s => s.errors)), 'failures by message added')
    t.equal(
      merged.acknowledged_inserts,
      sum(s => s.acknowledged_inserts),
      'acknowledged inserts added'
    )
    t.ok(merged.acknowledged_inserts > 0, 'inserts were acknowledged')
    t.equal(merged.acknowledged_missing, 0, 'every acknowledged insert is in the table')
    t.ok(
      (await countRows(db.url, 'test_table')) >= merged.acknowledged_inserts,
      'the table holds at least the acknowledged rows'
    )
    t.equal(merged.latency_us.max, Math.max(...summaries.map(s => s.latency_us.max)), 'the max is the largest')
    const wall =
      (Math.max(...summaries.map(s => Date.parse(s.ended_at))) -
        Math.min(...summaries.map(s => Date.parse(s.started_at)))) /
      1000
    t.equal(merged.elapsed_s, Math.round(wall * 1000) / 1000, "elapsed is the union's wall time")
    t.equal(merged.throughput, Math.round((10 * done) / wall) / 10, "throughput over the union's wall time")
    t.ok(merged.start_skew_ms <= MAX_SKEW_MS, `the loads started within ${merged.start_skew_ms} ms of each other`)
  })

  t.test('histograms added bucket by bucket, percentiles recomputed from them', async t => {
    const total = summed(summaries.map(s => s.histograms.latency))
    const mergedTotal = summed([merged.histograms.latency])
    t.same([...mergedTotal.counts], [...total.counts], "every bucket of the total is the sum of the instances'")
    t.equal(
      merged.histograms.latency.count,
      summaries.reduce((n, s) => n + s.histograms.latency.count, 0),
      'counts add up'
    )
    t.equal(merged.histograms.scheme, summaries[0].histograms.scheme)
    for (const [q, key] of /** @type {const} */ ([
      [0.5, 'p50'],
      [0.95, 'p95'],
      [0.99, 'p99']
    ])) {
      t.equal(
        merged.latency_us[key],
        Math.round(/** @type {number} */ (total.quantile(q))),
        `${key} from the summed buckets`
      )
    }
    for (const type of Object.keys(merged.requests)) {
      const h = summed(summaries.map(s => s.histograms.latency_by_type[type]))
      t.same(
        [...summed([merged.histograms.latency_by_type[type]]).counts],
        [...h.counts],
        `${type}: every bucket added`
      )
      if (h.count > 0)
        t.equal(
          merged.requests[type].latency_us.p99,
          Math.round(/** @type {number} */ (h.quantile(0.99))),
          `${type}: p99 from the summed buckets`
        )
    }
    const lag = summed(summaries.map(s => s.histograms.schedule_lag))
    t.equal(
      merged.schedule_lag_us.p99,
      Math.round(/** @type {number} */ (lag.quantile(0.99))),
      'schedule lag p99 from the summed buckets'
    )
  })

  t.test('the merged directory has one report', async t => {
    const out = path.join(work, 'merged')
    const html = await readFile(path.join(out, 'report.html'), 'utf8')
    t.match(html, /3 instances merged/, 'the report names the merge')
    const samples = (await readFile(path.join(out, 'samples.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map(line => JSON.parse(line))
    t.ok(samples.length >= DURATION_S - 1, `${samples.length} merged seconds`)
    const inner = samples.filter(s => s.instances === PARTS)
    t.ok(inner.length >= DURATION_S - 2, 'seconds sampled by all three')
    const perInstance = await Promise.all(
      dirs.map(async dir =>
        (await readFile(path.join(dir, 'samples.ndjson'), 'utf8'))
          .trim()
          .split('\n')
          .map(line => JSON.parse(line))
      )
    )
    t.equal(
      samples[1].throughput,
      perInstance.reduce((n, s) => n + s[1].throughput, 0),
      "a second's requests are the instances' added"
    )
  })

  t.test('the recording rules give the merged p99 within one bucket', async t => {
    // a missing tool fails the test, naming its package: never a skip
    if (!prometheus) return t.fail(String(prometheusProblem))
    // a rule evaluation after the last scrape
    await new Promise(resolve => setTimeout(resolve, Math.max(0, exitedMs + 2500 - Date.now())))
    const endS = Date.now() / 1000
    const series = await prometheus.queryRange('all:pgloadgen_query_latency_us:p99_rate1m', startAtMs / 1000, endS, 1)
    for (const [i, result] of results.entries()) {
      t.match(result.stderr, /waiting for the final scrape of \/metrics/, `instance ${i} waited for its final scrape`)
      t.notMatch(result.stderr, /was not scraped again/, `and Prometheus scraped instance ${i}'s final counts`)
    }
    const values = (series[0]?.values ?? []).map(([, v]) => Number(v)).filter(Number.isFinite)
    t.ok(values.length > 0, `the rule recorded p99 during the load: ${prometheus.log().slice(-500)}`)
    // the last evaluation over a window that holds the whole load
    const ruleP99 = values[values.length - 1]
    const rulesBucket = bucketIndex(LATENCY_BUCKETS_US, ruleP99)
    const mergedBucket = bucketIndex(LATENCY_BUCKETS_US, merged.latency_us.p99)
    t.ok(
      Math.abs(rulesBucket - mergedBucket) <= 1,
      `rules' p99 ${Math.round(ruleP99)} µs (bucket ${rulesBucket}) against the merged ${merged.latency_us.p99} µs ` +
        `(bucket ${mergedBucket})`
    )
  })
})

t.test('live control of an instance takes the total and runs its share', async t => {
  const run = new CliRun(['run', db.url, '-c', '6', '-d', '4', '--instance', '1/3', '-p', '0', '--no-pg-stats'], { t })
  const metrics = await run.metricsUrl()
  await run.waitForStderr(/running manta at concurrency 2 \(instance 1\/3 of 6 clients\)/)
  const post = (/** @type {number} */ concurrency) =>
    fetch(new URL('/concurrency', metrics), { method: 'POST', body: JSON.stringify({ concurrency }) })
  const changed = await post(10)
  t.same(
    await changed.json(),
    { concurrency: 3, previous: 2, total: 10 },
    "client k of 10 is instance k mod 3's: 1, 4, 7"
  )
  const refused = await post(2)
  t.equal(refused.status, 400, 'fewer clients than instances are refused')
  t.match((await refused.json()).error, /total of 3 instances/)
  t.equal((await run.exited).code, 0)
})

/**
 * @param {import('tap').Test} t
 * @param {import('../helpers/cli.js').CliResult} result
 * @param {RegExp} problem
 */
function assertRefused(t, result, problem) {
  t.equal(result.code, 2, 'exit code 2')
  const errorLines = lines(result.stderr)
  t.equal(errorLines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
  t.match(errorLines[0], problem)
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
}

t.test('bad --instance and --start-at: one line, exit 2, before any database', async t => {
  // nothing listens there: a refusal that reached for the server would say so instead
  const url = 'postgres://postgres@127.0.0.1:1/nowhere'
  const soon = String(Math.floor(Date.now() / 1000) + 3600)
  const cases = [
    { args: ['--instance', '3/3'], problem: /--instance 3\/3: the index is 0-based and must be below N/ },
    { args: ['--instance', '0/0'], problem: /--instance 0\/0: N must be from 1/ },
    { args: ['--instance', 'two'], problem: /--instance must be I\/N/ },
    { args: ['--instance=-1/3'], problem: /--instance must be I\/N/ },
    { args: ['--instance', '0/3', '-c', '2'], problem: /2 clients cannot be shared by 3 instances/ },
    { args: ['--instance', '0/3', '-R', '100'], problem: /--instance with --rate needs --start-at/ },
    { args: ['--start-at', 'tomorrow'], problem: /--start-at must be ISO 8601/ },
    { args: ['--start-at', '2030-01-01T12:00:00'], problem: /--start-at must be ISO 8601 with a time zone/ },
    { args: ['--start-at', '2030-02-30T12:00:00Z'], problem: /not a valid date/ },
    { args: ['--start-at', `${soon}000`], problem: /looks like milliseconds/ },
    {
      args: ['--instance', '1/3', '--start-at', '2020-01-01T00:00:00Z'],
      problem: /passed .* s ago: instance 1\/3 came up too late/
    }
  ]
  for (const c of cases) {
    const result = await runCli(['run', url, '-d', '2', '-p', '0', ...c.args], { t })
    assertRefused(t, result, c.problem)
  }
})

t.test('merge refuses what is not one load', async t => {
  const base = path.join(work, 'instance-0')
  const copy = async (/** @type {string} */ name, /** @type {(s: any) => void} */ change) => {
    const dir = path.join(work, name)
    await cp(base, dir, { recursive: true })
    const file = path.join(dir, 'summary.json')
    const summary = JSON.parse(await readFile(file, 'utf8'))
    change(summary)
    await writeFile(file, JSON.stringify(summary))
    return dir
  }
  const other = await copy('other-workload', s => {
    s.workload = 'timeseries'
  })
  const scheme = await copy('other-scheme', s => {
    s.histograms.scheme = 'log-linear-us:sub_bits=4,max_magnitude=36'
  })
  const twin = await copy('twin', () => {})
  const noSummary = path.join(work, 'no-summary')
  await cp(base, noSummary, { recursive: true })
  await rm(path.join(noSummary, 'summary.json'))
  const cases = [
    { dirs: [base, path.join(work, 'absent')], problem: /no such directory: .*absent/ },
    { dirs: [base, noSummary], problem: /no-summary has no summary\.json/ },
    { dirs: [base, other], problem: /ran the manta workload, .* timeseries: only runs of one workload merge/ },
    { dirs: [base, scheme], problem: /different bucket schemes/ },
    { dirs: [base, twin], problem: /are both instance 0\/3/ },
    { dirs: [base, base], problem: /is given twice/ }
  ]
  for (const c of cases) {
    const result = await runCli(['merge', ...c.dirs, '--out', path.join(work, 'refused')], { t })
    assertRefused(t, result, c.problem)
  }
})
