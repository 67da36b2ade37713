// The fleet workload (haggar's metric agents) on PostgreSQL 15: its pace
// (agents × metrics ÷ flush interval), the lag of each flush against its
// schedule, agents at their own phases, the spawn ramp, time partitions
// made ahead, a connection per flush, a server that cannot keep up, and
// bad input refused before anything is touched.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { runCli, lines, waitFor } from '../helpers/cli.js'
import { createTestDatabase, listTables, query, sessionsOf } from '../helpers/pg.js'
import { tempDataDir } from '../helpers/embedded.js'
import { readRun } from '../../lib/results/read.js'
import { runCapacity } from '../../lib/report/capacity.js'
import { listPartitions } from '../../lib/workloads/partitions.js'
import { agentPhase } from '../../lib/workloads/fleet/config.js'

const db = await createTestDatabase(t, 'fleet')
const QUIET = ['--json', '-p', '0', '--log-level', 'warn']

/** @param {string[]} args */
const fleet = args => runCli(['run', db.url, '-w', 'fleet', ...args, ...QUIET], { t })
/** @param {string} sql @param {unknown[]} [params] */
const rows = async (sql, params) => (await query(db.url, sql, params)).rows

/** A moment's place in the 0.5 s interval. @param {number} at */
const circular = at => ((at % 0.5) + 0.5) % 0.5

/** How far apart two places of the interval are. @param {number} a @param {number} b */
const circularGap = (a, b) => Math.min(Math.abs(a - b), 0.5 - Math.abs(a - b))

/**
 * The first of places in the interval, read round the circle: the one after
 * the widest empty stretch between them.
 * @param {number[]} places
 */
function earliest(places) {
  const sorted = [...places].sort((a, b) => a - b)
  let best = 0
  let widest = -1
  for (let i = 0; i < sorted.length; i++) {
    const gap = i === 0 ? sorted[0] + 0.5 - sorted[sorted.length - 1] : sorted[i] - sorted[i - 1]
    if (gap > widest) {
      widest = gap
      best = sorted[i]
    }
  }
  return best
}

t.test('agents × metrics ÷ flush points a second, each flush one COPY on its schedule', async t => {
  const result = await fleet([
    '--agents',
    '4',
    '--metrics-per-agent',
    '50',
    '--flush-interval',
    '500ms',
    '-d',
    '4',
    '--reset'
  ])
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const s = result.summary
  t.equal(s.workload, 'fleet')
  t.equal(s.mode, 'paced')
  t.equal(s.latency_kind, 'from_intended_start', 'latency: how late each flush ended, from when it was due')
  t.equal(s.concurrency, 4, '--agents is the number of clients')
  t.equal(s.pacing_interval_s, 0.5)
  t.ok(
    s.points_per_s >= 400 * 0.8 && s.points_per_s <= 400 * 1.1,
    `about 4 × 50 ÷ 0.5 s = 400 points/s (${s.points_per_s})`
  )
  t.ok(
    s.schedule_lag_us && s.schedule_lag_us.p99 !== null,
    `the start lag of each flush (p99 ${s.schedule_lag_us?.p99} µs)`
  )
  t.ok(s.schedule_lag_us.p99 < 500000, 'a server that keeps up starts every flush well within its interval')
  const flushes = s.requests.flush.done
  t.ok(flushes >= 28 && flushes <= 34, `4 agents × 4 s ÷ 0.5 s ≈ 32 flushes (${flushes})`)
  t.equal(s.requests.flush.failed, 0)
  t.equal(s.points_written, flushes * 50, 'each flush writes every metric of its agent')
  t.equal(s.rows_written, s.points_written, 'one row per point')
  t.equal(s.rows_missing, 0, 'every acknowledged point is in fleet_points')

  const series = await rows(
    'SELECT agent, count(*)::int AS n, min(name) AS first FROM fleet_series GROUP BY agent ORDER BY agent'
  )
  t.same(
    series.map(r => [r.agent, r.n]),
    [
      [0, 50],
      [1, 50],
      [2, 50],
      [3, 50]
    ],
    'each agent registered its 50 series'
  )
  t.match(series[1].first, /^haggar\.agent\.1\.metrics\.\d+$/, 'named as haggar names its metrics')
  // One time stamp per flush; an agent's flushes fall at its own phase of the interval.
  const flushTimes = await rows(`SELECT s.agent, extract(epoch FROM p.time)::float8 AS at, count(*)::int AS n
    FROM fleet_points p JOIN fleet_series s USING (series_id) GROUP BY 1, 2 ORDER BY 1, 2`)
  t.ok(
    flushTimes.every(r => r.n === 50),
    "a flush carries one time stamp for all its agent's metrics"
  )
  // A flush is due one interval after the one before was due, not after it
  // ran: a flush that started late (the run's worst start lag is in
  // schedule_lag_us) shortens the next step, and nothing drifts. An agent's
  // first flush is stamped after it registered its series, later than due
  // by as long as that took: the schedule is read from the second on.
  const lateS = s.schedule_lag_us.max / 1e6
  const phaseOf = agentPhase(/** @type {any} */ ({ flushIntervalS: 0.5 }))
  const origins = [0, 1, 2, 3].map(agent => {
    const ats = flushTimes.filter(r => r.agent === agent).map(r => r.at)
    const due = ats.slice(1)
    const steps = due.slice(1).map((at, i) => at - due[i])
    t.ok(
      steps.every(step => Math.abs(step - 0.5) < 0.05 + lateS),
      `agent ${agent} flushes every 0.5 s, each at most the worst start lag (${(lateS * 1000).toFixed(0)} ms) off ` +
        `(${steps.map(x => x.toFixed(3)).join(' ')})`
    )
    const driftS = due.at(-1) - due[0] - 0.5 * (due.length - 1)
    t.ok(
      Math.abs(driftS) < 0.05 + lateS,
      `agent ${agent}: its last flush ${driftS.toFixed(3)} s off its second one's schedule`
    )
    t.ok(
      ats[1] - ats[0] <= 0.5 + 0.05 + lateS,
      `agent ${agent}: its first flush came no more than an interval before its second ` +
        `(${(ats[1] - ats[0]).toFixed(3)} s)`
    )
    // its flushes less its own phase: the fleet's common origin, each flush late by its start lag
    return earliest(ats.map(at => circular(at - phaseOf(agent))))
  })
  // A flush is never early, so an agent's least late flush shows its phase; the agents flush at their own
  // phases (0, 0.309, 0.118 and 0.427 s of the 0.5 s: never together) when those give one origin.
  const apart = Math.max(...origins.map(o => circularGap(o, origins[0])))
  t.ok(
    apart < 0.03,
    `each agent flushes at its own phase: the origins its flushes give are ${apart.toFixed(3)} s apart ` +
      `(${origins.map(p => p.toFixed(3)).join(', ')} s)`
  )
  const indexes = (await rows("SELECT indexdef FROM pg_indexes WHERE tablename = 'fleet_points'")).map(r => r.indexdef)
  t.ok(
    indexes.some(d => /\(series_id, "?time"?\)/.test(d)) && indexes.some(d => /USING brin/.test(d)),
    `indexes: ${indexes.join('; ')}`
  )
})

t.test('the spawn ramp starts the agents one by one, each registering its series as it starts', async t => {
  const recordDir = path.join(await tempDataDir(t), 'run')
  const result = await fleet([
    '--agents',
    '4',
    '--metrics-per-agent',
    '20',
    '--flush-interval',
    '200ms',
    '--spawn-interval',
    '700ms',
    '--jitter',
    '100ms',
    '-d',
    '4',
    '--reset',
    '--stats-interval',
    '1',
    '--record',
    recordDir
  ])
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.equal(result.summary.rows_missing, 0)
  const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
  const concurrency = samples.map(sample => sample.concurrency)
  t.ok(
    concurrency[0] < 4 && concurrency.every((c, i) => i === 0 || c >= concurrency[i - 1]) && concurrency.at(-1) === 4,
    `agents added one by one: ${concurrency.join(' ')}`
  )
  const starts = (
    await rows(
      'SELECT agent, extract(epoch FROM min(registered_at))::float8 AS at FROM fleet_series GROUP BY agent ' +
        'ORDER BY agent'
    )
  ).map(r => r.at)
  const gaps = starts.slice(1).map((at, i) => at - starts[i])
  t.ok(
    gaps.every(gap => gap >= 0.4 && gap <= 1.1),
    `registered 0.7 ± 0.1 s apart (gaps ${gaps.map(g => g.toFixed(2)).join(', ')} s)`
  )
  t.ok(
    samples.some(sample => typeof sample.workload?.pgloadgen_workload_fleet_checkpoints_total === 'number'),
    "the samples carry the fleet's statistics (checkpoints)"
  )
  t.ok(
    samples.some(sample => sample.workload?.pgloadgen_workload_fleet_dead_tuples === 0),
    "and its table's dead tuples"
  )
})

t.test('--partition-interval: partitions made ahead and kept current hold every point', async t => {
  const result = await fleet([
    '--agents',
    '3',
    '--metrics-per-agent',
    '30',
    '--flush-interval',
    '250ms',
    '--partition-interval',
    '1s',
    '--premake',
    '12',
    '-d',
    '4',
    '--reset'
  ])
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const s = result.summary
  t.equal(s.requests.flush.failed, 0, `no flush found its partition missing: ${JSON.stringify(s.errors)}`)
  t.equal(s.rows_missing, 0)
  const [{ kind }] = await rows("SELECT relkind AS kind FROM pg_class WHERE relname = 'fleet_points'")
  t.equal(kind, 'p', 'fleet_points is partitioned')
  const partitions = await listPartitions(
    async (text, params) => (await query(db.url, text, params)).rows,
    'fleet_points'
  )
  t.ok(partitions.length >= 12, `${partitions.length} partitions of 1 s`)
  t.ok(
    partitions.every(
      (p, i) =>
        p.to.getTime() - p.from.getTime() === 1000 && (i === 0 || p.from.getTime() === partitions[i - 1].to.getTime())
    ),
    'contiguous, one second each'
  )
  const [span] = await rows(
    'SELECT extract(epoch FROM min(time))::float8 * 1000 AS lo, extract(epoch FROM max(time))::float8 * 1000 AS hi, ' +
      'count(*)::int AS n FROM fleet_points'
  )
  t.ok(
    partitions[0].from.getTime() <= span.lo && partitions.at(-1).to.getTime() > span.hi,
    "they cover every point's time"
  )
  t.equal(span.n, s.points_written, 'every point written is in a partition')
  t.ok(partitions.at(-1).to.getTime() >= span.hi + 5000, 'and reach seconds past the last point: made ahead')
  const perPartition = await rows('SELECT count(DISTINCT tableoid)::int AS n FROM fleet_points')
  t.ok(perPartition[0].n >= 4, `the points of 4 s fell into ${perPartition[0].n} partitions`)

  const plain = await fleet(['--agents', '1', '--metrics-per-agent', '5', '-d', '1'])
  t.equal(plain.code, 1, 'a plain table asked for where a partitioned one exists is refused')
  t.match(plain.stderr, /fleet_points exists partitioned.*--reset/)
})

t.test('--reconnect-per-flush: a session per flush, as haggar without cached connections', async t => {
  /** @param {string[]} extra */
  const sessionsFor = async extra => {
    const before = (await sessionsOf(db.adminUrl, db.name)).sessions
    const result = await fleet([
      '--agents',
      '2',
      '--metrics-per-agent',
      '20',
      '--flush-interval',
      '250ms',
      '-d',
      '3',
      '--reset',
      ...extra
    ])
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    t.equal(result.summary.requests.flush.failed, 0)
    t.equal(result.summary.rows_missing, 0)
    const flushes = result.summary.requests.flush.done
    // the statistics of a session that ended reach pg_stat_database within a second or so
    const after = await waitFor(
      async () => {
        const now = (await sessionsOf(db.adminUrl, db.name)).sessions
        return now - before >= (extra.length ? flushes : 1) ? now : null
      },
      { timeoutMs: 5000, what: 'the sessions counted' }
    )
    return { flushes, sessions: after - before }
  }
  const kept = await sessionsFor([])
  const fresh = await sessionsFor(['--reconnect-per-flush'])
  t.ok(kept.sessions < 10, `without it, a handful of sessions for ${kept.flushes} flushes (${kept.sessions})`)
  t.ok(
    fresh.sessions >= fresh.flushes && fresh.sessions <= fresh.flushes + 10,
    `with it, one session per flush: ${fresh.sessions} sessions for ${fresh.flushes} flushes`
  )
})

t.test('a server that cannot keep up: the lag of the flushes grows', async t => {
  const recordDir = path.join(await tempDataDir(t), 'run')
  // flushes small enough that several end every second, even on a busy machine
  const result = await fleet([
    '--agents',
    '6',
    '--metrics-per-agent',
    '10000',
    '--flush-interval',
    '50ms',
    '-d',
    '5',
    '--reset',
    '--no-pg-stats',
    '--record',
    recordDir
  ])
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const s = result.summary
  // below what was asked by a margin no timing noise closes: how far below
  // depends on the machine (0.55 of it on a quiet one), and the growing lag
  // below is what shows the server falling behind
  t.ok(s.points_per_s < (0.75 * 6 * 10000) / 0.05, `well below the 1.2M points/s asked for (${s.points_per_s})`)
  t.ok(s.schedule_lag_us.p99 > 1e6, `flushes started over a second late (p99 ${s.schedule_lag_us.p99} µs)`)
  t.equal(s.rows_missing, 0, 'late, but every acknowledged point is there')
  const run = await readRun(recordDir)
  const lag = run.samples
    .slice(1)
    .map(sample => sample.requests?.flush?.p99_us)
    .filter(v => typeof v === 'number')
  const growth = (lag.at(-1) - lag[0]) / (lag.length - 1)
  t.ok(
    lag.length >= 2 && lag.every((v, i) => i === 0 || v >= 0.8 * lag[i - 1]) && growth > 100000,
    `the per-second lag grew every second, by ${Math.round(growth / 1000)} ms a second: ` +
      `${lag.map(v => Math.round(v / 1000)).join(' ')} ms`
  )
  const capacity = runCapacity(run)
  t.ok(
    capacity?.verdict === 'overloaded_throughout' || capacity?.verdict === 'knee',
    `the capacity analysis: it fell behind (${capacity?.verdict})`
  )
})

t.test('bad input: exit 2, one line, nothing touched', async t => {
  const bad = await createTestDatabase(t, 'fleet_bad')
  for (const [args, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['--agents', '0'], /--agents: must be at least 1, got 0/],
    [['--metrics-per-agent', '0'], /--metrics-per-agent: must be at least 1, got 0/],
    [['--flush-interval', 'often'], /--flush-interval: expected a duration/],
    [['--flush-interval', '0'], /--flush-interval: must be above 0/],
    [['--spawn-interval', '1s', '--jitter', '1s'], /--jitter: must be below --spawn-interval/],
    [['--spawn-interval', '1s', '--jitter', '3s'], /--jitter: must be below --spawn-interval/],
    [['--jitter', '1s'], /--jitter: agents start all at once/],
    [['--partition-interval', 'hourly'], /--partition-interval: expected a duration/],
    [['--partition-interval', '1500ms'], /--partition-interval: a whole number of seconds/],
    [['--partition-interval', '1s', '--premake', '3'], /--premake: 3 partitions of 1 s reach 3 s ahead/],
    [['--series-registry', 'later'], /--series-registry: one of agent, setup/],
    [['-c', '8'], /--concurrency: the fleet workload sets its number of clients itself/]
  ])) {
    const result = await runCli(['run', bad.url, '-w', 'fleet', ...args, '-d', '2', '-p', '0'], { t })
    t.equal(result.code, 2, `${args.join(' ')}: exit 2; stderr: ${result.stderr}`)
    t.match(result.stderr, problem, args.join(' '))
    t.equal(lines(result.stderr).length, 1, 'one line')
  }
  t.same(await listTables(bad.url), [], 'no table was made')
})
