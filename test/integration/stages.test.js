// Load over time: --stages ramps the clients (checked on /metrics and
// /status while the run goes), or with --rate the schedule's rate (checked
// by the requests the run made); --warmup keeps its seconds out of the
// summary and in a block of their own; a plan's load step ramps; bad
// input is one line and exit 2.
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, lines, runCli, sleep } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { scrape, requiredSample } from '../helpers/prom.js'
import { areaUntil, parseStages, profileOf, timeOfArea, valueAt } from '../../lib/config/stages.js'
import { Pacer } from '../../lib/generator/pacer.js'
import { parsePlan } from '../../lib/experiment/plan.js'
import { rampStep } from '../../lib/experiment/ramp-step.js'
import { LoadSession } from '../../lib/lab/load-session.js'
import { buildRunSpec } from '../../lib/lab/run-spec.js'
import { EventLog } from '../../lib/recorder/event-log.js'
import { StopSignal } from '../../lib/helpers/stop-signal.js'
import { loadWorkload } from '../../lib/workloads/index.js'
import { createLogger } from '../../lib/log.js'
import client from 'prom-client'
import { readRunSummary } from '../helpers/summary-schema.js'

t.test("a profile, its integral and the integral's inverse", async t => {
  const refuse = (/** @type {string} */ problem) => new Error(problem)
  const stages = parseStages('4s:2, 6s:6,4s:6,2s:0', { whole: true, max: 10000, maxSeconds: 1e9, refuse })
  t.same(stages, [
    { seconds: 4, target: 2 },
    { seconds: 6, target: 6 },
    { seconds: 4, target: 6 },
    { seconds: 2, target: 0 }
  ])
  const profile = profileOf(stages, 1)
  t.equal(valueAt(profile, 0), 1)
  t.equal(valueAt(profile, 2), 1.5)
  t.equal(valueAt(profile, 7), 4)
  t.equal(valueAt(profile, 12), 6)
  t.equal(valueAt(profile, 15), 3)
  t.equal(valueAt(profile, 99), 0, 'the last target holds after the stages')
  t.equal(areaUntil(profile, 4), 6)
  t.equal(areaUntil(profile, 16), 6 + 24 + 24 + 6)
  for (const tS of [0.5, 3, 4, 7.25, 11, 15.5])
    t.ok(Math.abs(timeOfArea(profile, areaUntil(profile, tS)) - tS) < 1e-9, `the inverse at ${tS} s`)
  t.equal(timeOfArea(profile, 61), Infinity, 'past a profile that ends at 0 nothing is due')
  t.equal(
    timeOfArea(
      [
        { atS: 0, value: 0 },
        { atS: 2, value: 0 },
        { atS: 3, value: 10 }
      ],
      0
    ),
    2,
    'the first arrival waits for the rate to rise'
  )
  t.equal(
    parseStages('1m:2.5', { whole: false, max: Infinity, maxSeconds: 1e9, refuse })[0].seconds,
    60,
    'rates may have fractions'
  )
  t.throws(
    () => parseStages('1m:2.5', { whole: true, max: 10000, maxSeconds: 1e9, refuse }),
    /whole numbers of clients/
  )
  t.throws(() => parseStages('30s:8,2x:3', { whole: true, max: 10000, maxSeconds: 1e9, refuse }), /stage 2 is "2x:3"/)
  t.throws(() => parseStages('0s:8', { whole: true, max: 10000, maxSeconds: 1e9, refuse }), /more than 0 s/)
})

t.test('an open-loop schedule along a profile, whole or in parts', async t => {
  const profile = profileOf(
    [
      { seconds: 2, target: 300 },
      { seconds: 2, target: 0 }
    ],
    100
  )
  // 2 × (100 + 300) / 2 + 2 × 300 / 2 = 700 arrivals over the 4 s
  for (const arrival of /** @type {const} */ (['fixed', 'poisson'])) {
    const whole = new Pacer({ rate: 100, arrival, maxLagMs: null, seed: 7, profile })
    whole.begin(0)
    const times = []
    for (let at = whole.take(); at < 4000; at = whole.take()) times.push(at)
    const expected = arrival === 'fixed' ? [700, 701] : [620, 780]
    t.ok(times.length >= expected[0] && times.length <= expected[1], `${arrival}: ${times.length} arrivals in the 4 s`)
    t.ok(
      times.filter(at => at < 1000).length < times.filter(at => at >= 1000 && at < 2000).length,
      `${arrival}: more arrivals as the rate rises`
    )
    // two parts of the same schedule take exactly its arrivals between them
    const parts = [0, 1].map(
      index => new Pacer({ rate: 100, arrival, maxLagMs: null, seed: 7, profile, share: { index, parts: 2 } })
    )
    const joined = []
    for (const part of parts) {
      part.begin(0)
      for (let at = part.take(); at < 4000; at = part.take()) joined.push(at)
    }
    joined.sort((a, b) => a - b)
    t.equal(joined.length, times.length, `${arrival}: the parts take as many arrivals as the whole`)
    t.ok(
      joined.every((at, i) => Math.abs(at - times[i]) < 1e-6),
      `${arrival}: at the same times`
    )
  }
})

t.test("a plan's load step ramps", async t => {
  const base = { name: 'ramp', workload: 'manta', prepare: { duration: '5s' } }
  const plan = await parsePlan(
    { ...base, variants: [{ name: 'up', steps: [{ load: '30s', ramp: 16 }, { load: '10s' }] }] },
    { baseDir: '.' }
  )
  t.same(plan.variants[0].steps[0], { kind: 'load', label: 'variants[0].steps[0]', seconds: 30, ramp: 16 })
  await t.rejects(
    parsePlan({ ...base, variants: [{ name: 'up', steps: [{ ramp: 16 }] }] }, { baseDir: '.' }),
    /steps\[0\]\.ramp: a field of a load step/
  )
  await t.rejects(
    parsePlan(
      { ...base, variants: [{ name: 'up', steps: [{ load: '5s', ramp: 16, concurrency: 2 }] }] },
      { baseDir: '.' }
    ),
    /concurrency or ramp, not both/
  )
  await t.rejects(
    parsePlan({ ...base, variants: [{ name: 'up', steps: [{ load: '5s', ramp: 0 }] }] }, { baseDir: '.' }),
    /steps\[0\]\.ramp must be a whole number from 1/
  )
  const warm = await parsePlan(
    { ...base, warmup: '10s', variants: [{ name: 'up', steps: [{ load: '30s' }] }] },
    { baseDir: '.' }
  )
  t.equal(warm.load.warmupS, 10, "a plan's warm-up")
  t.equal(plan.load.warmupS, null, 'none unless asked')
  await t.rejects(
    parsePlan({ ...base, warmup: 'soon', variants: [{ name: 'up', steps: [{ load: '30s' }] }] }, { baseDir: '.' }),
    /^warmup must be a duration/
  )
})

t.test("a plan's ramp step moves a real load's clients", async t => {
  const db = await createTestDatabase(t, 'ramp_step')
  const log = createLogger({ level: 'error' })
  const manta = await loadWorkload('manta')
  const session = await LoadSession.open(
    buildRunSpec({ workload: manta, concurrency: 2, connectTimeoutS: 5, pgStats: false }),
    {
      target: { connectionString: db.url, display: db.name, embedded: false },
      describe: {},
      registry: new client.Registry(),
      log
    }
  )
  t.teardown(() => session.close())
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-ramp-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const events = new EventLog({ file: path.join(dir, 'events.ndjson'), log })
  const stop = new StopSignal(log)
  t.teardown(() => {
    process.off('SIGINT', stop.onSignal)
    process.off('SIGTERM', stop.onSignal)
  })
  await session.start()
  /** @type {number[]} */
  const seen = []
  const watcher = setInterval(() => seen.push(session.generator.concurrency), 200)
  await rampStep(session.generator, { to: 8, seconds: 3 }, { events, log, stop })
  clearInterval(watcher)
  t.equal(session.generator.concurrency, 8, 'the step ends at its target')
  t.ok(
    seen.every((n, i) => i === 0 || n >= seen[i - 1]),
    `the clients only grow: ${seen.join(' ')}`
  )
  t.ok(
    seen.some(n => n > 2 && n < 8),
    'through the numbers between'
  )
  await events.flush()
  const recorded = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map(line => JSON.parse(line))
  t.same(
    recorded.map(e => [e.kind, e.action]),
    [
      ['start', 'ramp'],
      ['end', 'ramp']
    ],
    'one event from its start to its end'
  )
  t.same(recorded[0].detail, { from: 2, to: 8, seconds: 3 })
  const summary = await session.finish({ shutdownTimeoutS: 5, verifyTimeoutS: 30 })
  t.equal(summary.final_concurrency, 8)
  t.equal(summary.acknowledged_missing, 0)
})

t.test('pgloadgen run with stages and a warm-up', async t => {
  const db = await createTestDatabase(t, 'stages')

  t.test('bad input: one line, exit 2', async t => {
    const cases = [
      {
        args: ['--stages', '30s:8,2x:32'],
        problem: /^pgloadgen: --stages must be stages like 30s:8,2m:32,30s:0 .*stage 2 is "2x:32"/
      },
      {
        args: ['--stages', '30s:8', '-c', '4'],
        problem: /^pgloadgen: --stages with --concurrency: the stages set the clients/
      },
      { args: ['--stages', '30s:2.5'], problem: /whole numbers of clients as targets/ },
      { args: ['--stages', '30s:8', '-t', '10'], problem: /--stages with --transactions/ },
      {
        args: ['--stages', '10s:8', '--warmup', '10s'],
        problem: /^pgloadgen: --warmup 10 s is not shorter than the run \(10 s, from --stages\)/
      },
      {
        args: ['-d', '5', '--warmup', '1m'],
        problem: /--warmup 60 s is not shorter than the run \(5 s, from --duration\)/
      },
      { args: ['-d', '5', '--warmup', 'soon'], problem: /^pgloadgen: --warmup must be a duration/ }
    ]
    for (const { args, problem } of cases) {
      const result = await runCli(['run', db.url, '-p', '0', '--connect-timeout', '2', ...args])
      t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
      const errorLines = lines(result.stderr)
      t.equal(errorLines.length, 1, `${args.join(' ')}: one line (${JSON.stringify(result.stderr)})`)
      t.match(errorLines[0] ?? '', problem)
      t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
    }
  })

  t.test('the clients follow the stages on /metrics and /status', async t => {
    const run = new CliRun(
      ['run', db.url, '--stages', '4s:2,6s:6,5s:6,2s:0', '--json', '-p', '0', '--stats-interval', '60'],
      { t }
    )
    const metrics = await run.metricsUrl()
    await run.waitForStderr(/running manta/)
    /** @type {Array<{ at: number, connections: number, concurrency: number }>} */
    const looks = []
    while (run.running) {
      try {
        const page = await scrape(metrics)
        const status = await (await fetch(metrics.replace(/\/metrics$/, '/status'))).json()
        looks.push({
          at: Date.now(),
          connections: requiredSample(page.families, 'pgloadgen_nconns'),
          concurrency: status.concurrency
        })
      } catch {
        // the run ended between two looks
      }
      await sleep(500)
    }
    const result = await run.exited
    t.equal(result.code, 0, 'the run ends by itself')
    // each look's time in the load, from the moment the summary says it started
    const started = Date.parse(result.summary.started_at)
    const seen = looks.map(look => ({ ...look, s: (look.at - started) / 1000 }))
    t.comment(seen.map(s => `${s.s.toFixed(1)} s: ${s.concurrency} clients, ${s.connections} connections`).join('\n'))
    const at = (/** @type {number} */ from, /** @type {number} */ to) => seen.filter(s => s.s >= from && s.s < to)
    t.ok(
      at(0, 4).every(s => s.concurrency >= 1 && s.concurrency <= 2),
      'the first stage: from 1 client to 2'
    )
    t.ok(
      at(5, 9).some(s => s.concurrency > 2 && s.concurrency < 6),
      'the second stage passes between its ends'
    )
    t.ok(at(10.2, 14.8).length > 0 && at(10.2, 14.8).every(s => s.concurrency === 6), 'the third stage holds 6 clients')
    t.ok(
      at(10.2, 14.8).some(s => s.connections === 6),
      'on 6 connections'
    )
    const rising = at(0, 14.8)
    t.ok(
      rising.every((s, i) => i === 0 || s.concurrency >= rising[i - 1].concurrency),
      'the clients only grow until the last stage'
    )
    t.ok(
      rising.every((s, i) => i === 0 || s.connections >= rising[i - 1].connections - 0.5),
      'the connections too'
    )
    t.ok(new Set(rising.map(s => s.connections)).size >= 4, 'the connections gauge moves through several values')
    const summary = result.summary
    t.equal(summary.concurrency, 1, 'the summary says where the stages started')
    t.equal(summary.final_concurrency, 0, 'and where they ended')
    t.same(summary.stages, [
      { seconds: 4, target: 2 },
      { seconds: 6, target: 6 },
      { seconds: 5, target: 6 },
      { seconds: 2, target: 0 }
    ])
    t.ok(summary.elapsed_s >= 16.5 && summary.elapsed_s < 19.5, `the run lasts the stages (${summary.elapsed_s} s)`)
    t.match(result.stderr, /stages \(clients\): 4 s → 2, 6 s → 6, 5 s → 6, 2 s → 0/, 'the end table shows the stages')
  })

  t.test('with --rate the stages are rates', async t => {
    // one schedule, whether one thread keeps it or two share it
    for (const threads of ['1', '2']) {
      const result = await runCli(
        [
          'run',
          db.url,
          '-R',
          '50',
          '--arrival',
          'fixed',
          '--stages',
          '2s:150,2s:150',
          '-c',
          '4',
          '--threads',
          threads,
          '--json',
          '-p',
          '0',
          '--stats-interval',
          '60'
        ],
        { t }
      )
      t.equal(result.code, 0)
      const summary = result.summary
      const done = Object.values(summary.requests).reduce((n, r) => n + /** @type {any} */ (r).done, 0)
      // 2 s from 50 to 150 requests/s, then 2 s at 150: 200 + 300, and 150/s
      // more for the moments the run went on after the stages (its stop is
      // timed from a little after the schedule's origin)
      const due = areaUntil(
        profileOf(
          [
            { seconds: 2, target: 150 },
            { seconds: 2, target: 150 }
          ],
          50
        ),
        summary.elapsed_s
      )
      // on a loaded machine the schedule can run late: the requests due in
      // the last moments, at 150/s for as long as the latest start was late,
      // were never started when the run stopped
      const behind = 150 * ((summary.schedule_lag_us?.max ?? 0) / 1e6)
      t.ok(
        done >= 490 - behind && done <= Math.max(500, due) + 3,
        `--threads ${threads}: ${done} requests, the profile's 500 (${Math.round(due)} by the run's end; ${Math.round(behind)} due while it ran late)`
      )
      t.equal(summary.mode, 'open')
      t.ok(summary.elapsed_s >= 3.9 && summary.elapsed_s < 5, `the run lasts the stages (${summary.elapsed_s} s)`)
    }
  })

  t.test('--warmup is left out of the summary and shown apart', async t => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-warmup-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const result = await runCli(
      ['run', db.url, '-c', '2', '-d', '6', '--warmup', '2', '--json', '-p', '0', '--record', dir],
      { t }
    )
    t.equal(result.code, 0)
    const summary = result.summary
    const warmup = summary.warmup
    t.ok(warmup, 'a warmup block')
    t.ok(warmup.seconds >= 1.9 && warmup.seconds < 3, `of ${warmup.seconds} s`)
    t.ok(warmup.done > 0, `with its own requests (${warmup.done})`)
    t.ok(typeof warmup.latency_us.p99 === 'number', 'and percentiles')
    t.ok(summary.elapsed_s >= 3 && summary.elapsed_s < 5, `the summary's time is after it (${summary.elapsed_s} s)`)
    t.equal(Date.parse(summary.started_at), Date.parse(warmup.ended_at), 'and starts where it ended')
    // every insert succeeds: acknowledged over the whole load = the warm-up's + the rest's
    const inserts = summary.requests.insert_row
    t.equal(
      inserts.done + warmup.requests.insert_row.done,
      summary.acknowledged_inserts,
      `the summary's ${inserts.done} inserts leave the warm-up's ${warmup.requests.insert_row.done} out`
    )
    t.equal(summary.acknowledged_missing, 0, 'the audit covers the whole load')
    t.equal(
      summary.histograms.latency.count,
      Object.values(summary.requests).reduce((n, r) => n + /** @type {any} */ (r).done, 0),
      'the histograms leave it out too'
    )
    t.match(result.stderr, /warm-up \(left out above\): 2\.\d+ s, \d+ requests/, 'the end table shows it apart')
    const samples = (await readFile(path.join(dir, 'samples.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map(line => JSON.parse(line))
    const marked = samples.filter(s => s.warmup === true)
    t.ok(marked.length >= 1 && marked.length <= 3, `${marked.length} samples marked as the warm-up`)
    t.ok(
      samples.slice(0, marked.length).every(s => s.warmup === true),
      'the first ones'
    )
    const written = await readRunSummary(path.join(dir, 'summary.json'))
    t.equal(written.warmup.done, warmup.done, 'summary.json has the block')
    t.ok(written.changes_method.skipped_first_s >= marked.length, 'what changed skips the warm-up')
  })
})
