// The /metrics text while a run is under way: the nine pgloadgen names with
// their types and labels, Node's process metrics, a latency histogram with
// fixed buckets whose p99 stays within one bucket of the observed max, and
// no password anywhere. The run is stopped with SIGTERM.
import t from 'tap'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, urlFor, generatorBackends } from '../helpers/pg.js'
import { scrape, requiredSample, histogramBuckets, histogramQuantile } from '../helpers/prom.js'
import { assertConsistent, REQUEST_TYPES, INJECTED_ERROR_MESSAGE } from '../helpers/summary.js'
import { LATENCY_BUCKETS_US } from '../../lib/metrics/latency-buckets.js'

const PASSWORD = 's3cret'
const CONCURRENCY = 4
const METRICS = {
  pgloadgen_nconns: { type: 'gauge', labels: ['pgUrl'] },
  pgloadgen_query_latency_max_us: { type: 'gauge', labels: ['type'] },
  pgloadgen_nqueries_started: { type: 'counter', labels: ['type'] },
  pgloadgen_nqueries_done: { type: 'counter', labels: ['type'] },
  pgloadgen_nqueries_failed: { type: 'counter', labels: ['type'] },
  pgloadgen_error_messages: { type: 'counter', labels: ['errorMessage'] },
  pgloadgen_query_latency_us: { type: 'histogram', labels: ['le', 'result', 'type'] },
  pgloadgen_cpu_user_us: { type: 'counter', labels: [] },
  pgloadgen_cpu_system_us: { type: 'counter', labels: [] },
  // what the requests wrote: rows, and points (metric values)
  pgloadgen_rows_written_total: { type: 'counter', labels: ['type'] },
  pgloadgen_points_written_total: { type: 'counter', labels: ['type'] },
  // requests failed for want of disk space, and whether the disk is full now
  pgloadgen_disk_full_failures_total: { type: 'counter', labels: ['type'] },
  pgloadgen_disk_full: { type: 'gauge', labels: [] },
  // requests that got no answer within --request-timeout
  pgloadgen_request_timeouts_total: { type: 'counter', labels: ['type'] },
  // their cancels on the server, and connection attempts the server refused
  pgloadgen_request_cancels_sent_total: { type: 'counter', labels: [] },
  pgloadgen_request_cancels_succeeded_total: { type: 'counter', labels: [] },
  pgloadgen_request_cancels_gave_up_total: { type: 'counter', labels: [] },
  pgloadgen_connections_refused_total: { type: 'counter', labels: [] }
}
// A few of prom-client's default metrics, Node's process metrics.
const PROCESS_METRICS = {
  process_cpu_user_seconds_total: 'counter',
  process_cpu_system_seconds_total: 'counter',
  process_start_time_seconds: 'gauge',
  process_resident_memory_bytes: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_version_info: 'gauge'
}

const db = await createTestDatabase(t, 'metrics')
const url = urlFor(db.url, db.name, { password: PASSWORD })
const expectedPgUrl = urlFor(db.url, db.name) // the same without the password

/**
 * The index of the fixed bucket an observation falls into (le is inclusive).
 * @param {number} value
 */
function bucketOf(value) {
  const i = LATENCY_BUCKETS_US.findIndex(le => value <= le)
  return i === -1 ? LATENCY_BUCKETS_US.length : i
}

/**
 * Everything that must hold of one scrape.
 * @param {import('tap').Test} t
 * @param {import('../helpers/prom.js').Page} page
 */
function checkPage(t, page) {
  const { families, text, contentType } = page
  t.match(contentType, /^text\/plain; version=0\.0\.4/, 'Prometheus text format')
  t.notMatch(text, PASSWORD, 'no password anywhere in the metrics')

  // The stats collector and the sidecar have metrics of their own, under their own prefixes.
  const ours = [...families.keys()]
    .filter(name => name.startsWith('pgloadgen_') && !/^pgloadgen_(pgstats|sidecar)_/.test(name))
    .sort()
  t.same(
    ours,
    Object.keys(METRICS).sort(),
    "exactly the generator's names: the nine of the original tool, the rows and points written, " +
      'the disk-full ones, the timeouts, the cancels and the refused connections'
  )
  for (const [name, { type, labels }] of Object.entries(METRICS)) {
    const family = families.get(name)
    t.equal(family?.type, type, `${name} is a ${type}`)
    t.ok(family?.help, `${name} has a help text`)
    t.ok(family?.samples.length, `${name} has samples`)
    // The label names of every sample, as distinct sets.
    const labelSets = new Set(
      (family?.samples ?? []).map(sample => `${sample.name}{${Object.keys(sample.labels).sort().join(',')}}`)
    )
    const expected =
      type === 'histogram'
        ? [`${name}_bucket{${labels.join(',')}}`, `${name}_count{result,type}`, `${name}_sum{result,type}`]
        : [`${name}{${labels.join(',')}}`]
    t.same([...labelSets].sort(), expected.sort(), `${name} has labels ${labels.join(', ') || '(none)'}`)
  }
  for (const [name, type] of Object.entries(PROCESS_METRICS))
    t.equal(families.get(name)?.type, type, `default process metric ${name} (${type})`)

  // The connections gauge: one series, the URL without its password.
  const nconns = families.get('pgloadgen_nconns')?.samples ?? []
  t.equal(nconns.length, 1, 'one pgloadgen_nconns series')
  t.equal(nconns[0]?.labels.pgUrl, expectedPgUrl, 'pgUrl is the URL without the password')

  // Per-type series: all five types, nothing else.
  for (const name of [
    'pgloadgen_query_latency_max_us',
    'pgloadgen_nqueries_started',
    'pgloadgen_nqueries_done',
    'pgloadgen_nqueries_failed'
  ]) {
    t.same(
      families
        .get(name)
        ?.samples.map(s => s.labels.type)
        .sort(),
      [...REQUEST_TYPES].sort(),
      `${name}: one series per request type`
    )
  }

  // The histogram: the same fixed buckets on every series, cumulative, +Inf = count.
  const histogram = families.get('pgloadgen_query_latency_us')?.samples ?? []
  const series = new Map()
  for (const s of histogram) {
    const key = `${s.labels.type}/${s.labels.result}`
    if (!series.has(key)) series.set(key, { les: [], counts: [], count: NaN, sum: NaN })
    const entry = series.get(key)
    if (s.name.endsWith('_bucket')) {
      entry.les.push(s.labels.le)
      entry.counts.push(s.value)
    } else if (s.name.endsWith('_count')) entry.count = s.value
    else if (s.name.endsWith('_sum')) entry.sum = s.value
  }
  t.same(
    [...series.keys()].sort(),
    REQUEST_TYPES.flatMap(type => [`${type}/error`, `${type}/ok`]).sort(),
    'a histogram per type and result (ok, error)'
  )
  const expectedLes = [...LATENCY_BUCKETS_US.map(String), '+Inf']
  for (const [key, entry] of series) {
    if (!t.same(entry.les, expectedLes, `${key}: the fixed le buckets`)) break
    t.ok(
      entry.counts.every((/** @type {number} */ c, /** @type {number} */ i) => i === 0 || c >= entry.counts[i - 1]),
      `${key}: buckets are cumulative`
    )
    t.equal(entry.counts[entry.counts.length - 1], entry.count, `${key}: +Inf bucket equals _count`)
    t.ok(entry.sum >= 0 && (entry.count > 0 || entry.sum === 0), `${key}: _sum fits _count`)
  }

  // All the generator's metrics are read in one pass, so they agree.
  let inFlight = 0
  let failedTotal = 0
  for (const type of REQUEST_TYPES) {
    const started = requiredSample(families, 'pgloadgen_nqueries_started', { type })
    const done = requiredSample(families, 'pgloadgen_nqueries_done', { type })
    const failed = requiredSample(families, 'pgloadgen_nqueries_failed', { type })
    const ok = series.get(`${type}/ok`).count
    const error = series.get(`${type}/error`).count
    t.equal(ok + error, done, `${type}: histogram counts add up to nqueries_done`)
    t.equal(error, failed, `${type}: error histogram count is nqueries_failed`)
    t.ok(started >= done, `${type}: started ≥ done`)
    inFlight += started - done
    failedTotal += failed

    // The p99 a dashboard computes (histogram_quantile over both results)
    // never exceeds the observed max by more than one bucket.
    const max = requiredSample(families, 'pgloadgen_query_latency_max_us', { type })
    if (done === 0) continue
    const buckets = histogramBuckets(families, 'pgloadgen_query_latency_us', { type })
    const p99 = histogramQuantile(0.99, buckets)
    const maxBucket = bucketOf(max)
    const highestUsed = buckets.findIndex(b => b.count === buckets[buckets.length - 1].count)
    t.equal(highestUsed, maxBucket, `${type}: the max (${max} µs) is in the highest bucket in use`)
    const limit = maxBucket < LATENCY_BUCKETS_US.length ? LATENCY_BUCKETS_US[maxBucket] : Infinity
    t.ok(p99 <= limit, `${type}: histogram p99 ${p99.toFixed(0)} µs ≤ ${limit} µs, the upper bound of the max's bucket`)
  }
  t.ok(inFlight >= 0 && inFlight <= CONCURRENCY, `requests in flight (${inFlight}) ≤ concurrency`)
  const messages = families.get('pgloadgen_error_messages')?.samples ?? []
  t.equal(
    messages.reduce((n, s) => n + s.value, 0),
    failedTotal,
    'error messages add up to the failures'
  )
  t.ok(requiredSample(families, 'pgloadgen_cpu_user_us') > 0, 'user CPU time is counted')
  t.ok(requiredSample(families, 'pgloadgen_cpu_system_us') >= 0, 'system CPU time is counted')
}

t.test('metrics while running, then SIGTERM', async t => {
  const run = new CliRun(['run', url, '-c', String(CONCURRENCY), '--json', '-p', '0'], { t })
  const metricsUrl = await run.metricsUrl()
  t.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'metrics on 127.0.0.1, on the port picked')

  // pgloadgen_nconns tells the truth: what the server sees.
  await waitFor(async () => requiredSample((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === CONCURRENCY, {
    what: 'nconns to reach the concurrency'
  })
  t.equal(await generatorBackends(db.url), CONCURRENCY, 'the server sees as many generator connections as nconns says')
  // the page has every family once a request of the mix has failed (the
  // injected error is a small share of it: a busy machine may take seconds)
  await waitFor(
    async () => ((await scrape(metricsUrl)).families.get('pgloadgen_error_messages')?.samples.length ?? 0) > 0,
    { what: 'a failed request counted by its message', timeoutMs: 30000 }
  )

  const first = await scrape(metricsUrl)
  t.test('first scrape', async t => checkPage(t, first))
  await sleep(1500)
  const second = await scrape(metricsUrl)
  t.test('second scrape', async t => {
    checkPage(t, second)
    t.equal(requiredSample(second.families, 'pgloadgen_nconns'), CONCURRENCY, 'still at full concurrency')
    for (const type of REQUEST_TYPES) {
      const name = 'pgloadgen_nqueries_done'
      t.ok(
        requiredSample(second.families, name, { type }) >= requiredSample(first.families, name, { type }),
        `${type}: counters only grow`
      )
    }
    const done = (/** @type {import('../helpers/prom.js').Page} */ page) =>
      REQUEST_TYPES.reduce((n, type) => n + requiredSample(page.families, 'pgloadgen_nqueries_done', { type }), 0)
    t.ok(done(second) > done(first), 'requests keep being done between the scrapes')
    t.ok(
      requiredSample(second.families, 'pgloadgen_cpu_user_us') >=
        requiredSample(first.families, 'pgloadgen_cpu_user_us'),
      'CPU time only grows'
    )
    t.ok(
      requiredSample(second.families, 'pgloadgen_nqueries_failed', { type: 'injected_error' }) > 0,
      'injected errors are counted as failures'
    )
    const messages = second.families.get('pgloadgen_error_messages')?.samples ?? []
    t.ok(
      messages.some(s => INJECTED_ERROR_MESSAGE.test(s.labels.errorMessage)),
      "the injected error's message is a label value"
    )
  })

  const notFound = await fetch(new URL('/nothing', metricsUrl))
  t.equal(notFound.status, 404, 'other paths: 404')
  await notFound.text()

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, 'SIGTERM: exit 0')
  t.match(result.stderr, /SIGTERM received/, 'the signal is acknowledged')
  const summary = result.summary
  t.ok(summary, 'the summary is printed at SIGTERM')
  assertConsistent(t, summary, { concurrency: CONCURRENCY })
  t.equal(summary.target, expectedPgUrl, 'the summary names the target without the password')
  t.notMatch(result.stdout + result.stderr, PASSWORD, 'the password is printed nowhere')
  t.equal(summary.unexpected_failures, 0, 'injected errors are not unexpected failures')
  t.ok(summary.requests.injected_error.failed > 0, 'injected errors are counted as failures')
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert missing')
  for (const type of REQUEST_TYPES) {
    t.ok(
      summary.requests[type].done >= requiredSample(second.families, 'pgloadgen_nqueries_done', { type }),
      `${type}: the summary counts at least what was scraped`
    )
  }
  await t.rejects(fetch(metricsUrl), 'the metrics server is closed at exit')
})
