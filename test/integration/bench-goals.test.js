// What `npm run bench` says about its ratios and how it starts its runs:
// the verdict against a goal from the pairs' bootstrap interval (met only
// when the whole interval clears it), the printed line, and the CHECKPOINT
// before each run against the machine's PostgreSQL 15, by a superuser and
// by a plain role, which the server refuses and the bench goes on without;
// the quiet server: the bench profile as the server reads it, and the
// table's autovacuum held off.
import t from 'tap'
import fc from 'fast-check'
import pg from 'pg'
import { againstGoal, againstCeiling } from '../../benchmarks/stats.js'
import { goalLine, resultLines } from '../../benchmarks/print.js'
import { peakMemory, MEMORY_GOAL_MIB } from '../../benchmarks/manta.js'
import { CPU_GOAL } from '../../benchmarks/threads.js'
import { runPgbench } from '../../benchmarks/pgbench.js'
import { checkpointer, checkpointNote } from '../../benchmarks/checkpoint.js'
import { holdAutovacuum, autovacuumNote } from '../../benchmarks/quiet-table.js'
import { readProfile, resolveProfile } from '../../lib/embedded/profile.js'
import { bootstrapMean } from '../../lib/results/bootstrap-interval.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'

t.test('a goal is met only when the whole interval clears it', async t => {
  const steady = againstGoal([1.02, 1.0, 1.01, 0.99, 1.03], 0.95)
  t.equal(steady?.verdict, 'met', 'every pair well above 0.95')
  t.equal(steady?.n, 5)
  t.equal(steady?.level, 0.95)

  const low = againstGoal([0.85, 0.87, 0.86, 0.88, 0.84], 0.95)
  t.equal(low?.verdict, 'missed', 'every pair well below')

  // Four pairs above the goal and one far below it: the mean is above, but
  // the interval reaches under the goal, so the bench cannot say.
  const swinging = againstGoal([1.04, 0.8, 1.0, 1.03, 0.96], 0.95)
  t.equal(swinging?.verdict, 'undecided', 'one pair far off: undecided')
  t.ok(/** @type {number} */ (swinging?.mean) > 0.95, 'although the mean is above the goal')

  const none = againstGoal([1.0, 0.9, 1.1], null)
  t.equal(none?.verdict, null, 'no goal, no verdict')
  t.ok(none?.low !== null && none?.high !== null, 'but an interval')

  t.equal(againstGoal([1.0, 1.1], 0.95)?.verdict, 'undecided', 'two pairs: no interval, no verdict either way')
  t.equal(againstGoal([], 0.95), null, 'no pairs: nothing')
})

t.test('the verdict follows the interval, for any ratios', async t => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.5, max: 1.5, noNaN: true }), { minLength: 3, maxLength: 9 }),
      fc.double({ min: 0.5, max: 1.5, noNaN: true }),
      (ratios, goal) => {
        const check = againstGoal(ratios, goal)
        const interval = bootstrapMean(ratios)
        if (check === null || interval === null || interval.low === null || interval.high === null) return false
        const expected = interval.low >= goal ? 'met' : interval.high < goal ? 'missed' : 'undecided'
        return check.verdict === expected && check.low === interval.low && check.high === interval.high
      }
    ),
    { numRuns: 300 }
  )
  t.pass('checked on 300 random sets of pairs')
})

t.test('the printed line names the interval and the verdict', async t => {
  t.equal(
    goalLine('ratio --threads 2 / -j 2', {
      goal: 0.95,
      n: 5,
      level: 0.95,
      mean: 0.9712,
      low: 0.9,
      high: 1.02,
      verdict: 'undecided'
    }),
    'ratio --threads 2 / -j 2: mean 0.971, 95 % interval 0.900–1.020 over 5 pairs; goal 0.95: undecided ' +
      '(the interval straddles it: the pairs swing more than the distance to the goal; more rounds narrow it)'
  )
  t.match(
    goalLine('ratio', { goal: null, n: 5, level: 0.95, mean: 1, low: 0.95, high: 1.05, verdict: null }),
    /^ratio: mean 1\.000, 95 % interval 0\.950–1\.050 over 5 pairs$/
  )
  t.match(
    goalLine('ratio', { goal: 0.9, n: 2, level: 0.95, mean: 1, low: null, high: null, verdict: 'undecided' }),
    /too few for an interval; goal 0\.9: undecided$/
  )
  t.equal(goalLine('ratio', null), 'ratio: no pairs')
})

t.test('CHECKPOINT before each run: done by a superuser, refused to a plain role and gone without', async t => {
  const db = await createTestDatabase(t, 'bench_checkpoint')
  const role = `pgloadgen_test_plain_${process.pid}`
  await query(db.adminUrl, `DROP ROLE IF EXISTS ${role}`)
  await query(db.adminUrl, `CREATE ROLE ${role} LOGIN`)
  t.teardown(() => query(db.adminUrl, `DROP ROLE IF EXISTS ${role}`))

  const requested = () =>
    withClient(db.url, async client =>
      Number((await client.query('SELECT checkpoints_req FROM pg_stat_bgwriter')).rows[0].checkpoints_req)
    )

  /** @type {string[]} */
  const warnings = []
  const log = {
    trace() {},
    debug() {},
    info() {},
    warn(/** @type {string} */ m) {
      warnings.push(m)
    },
    error() {},
    level: /** @type {const} */ ('info')
  }

  await withClient(db.url, async admin => {
    const before = await requested()
    const checkpoint = checkpointer(admin, log)
    await checkpoint.run()
    await checkpoint.run()
    t.equal(checkpoint.used, true, 'a superuser checkpoints')
    t.ok((await requested()) >= before + 2, 'and the server counted both checkpoints')
    t.equal(warnings.length, 0, 'without a word')
  })

  const plainUrl = new URL(db.url)
  plainUrl.username = role
  const plain = new pg.Client({ connectionString: plainUrl.href })
  await plain.connect()
  t.teardown(() => plain.end().catch(() => {}))
  const before = await requested()
  const checkpoint = checkpointer(plain, log)
  await checkpoint.run()
  await checkpoint.run()
  t.equal(checkpoint.used, false, 'a plain role is refused, and the runs go on')
  t.match(checkpoint.refusal, /permission denied|superuser|pg_checkpoint/, "the server's words are kept")
  t.equal(warnings.length, 1, 'said once, not before every run')
  t.match(warnings[0], /^bench: the server refused CHECKPOINT \(.+\); the runs go without one/)
  t.equal(await requested(), before, 'and no checkpoint was made')
  t.equal(
    checkpointNote(checkpoint.used),
    'no CHECKPOINT before the runs (the server refused it)',
    'the result says so'
  )

  // Anything but a refusal is the bench's problem, not the server's policy.
  await plain.end()
  await t.rejects(checkpointer(plain, log).run(), 'a broken connection still stops the bench')
})

t.test("the quiet server: the lab settings with room for a run's WAL, and the table's autovacuum off", async t => {
  const profile = await readProfile(resolveProfile('bench'))
  const lab = await readProfile(resolveProfile('lab'))
  t.ok(profile.includes(lab), 'every setting of the lab profile, expanded from its include')
  /** @param {string} text */
  const lastSetting = text => [...text.matchAll(/^\s*max_wal_size\s*=\s*(\S+)/gm)].map(m => m[1]).at(-1)
  t.equal(lastSetting(profile), '8GB', 'max_wal_size raised, and the last word on it')

  const db = await createTestDatabase(t, 'bench_quiet')
  await withClient(db.url, async client => {
    await client.query('CREATE TABLE test_table (id bigint)')
    await holdAutovacuum(client, 'test_table')
    const { rows } = await client.query("SELECT reloptions FROM pg_class WHERE relname = 'test_table'")
    t.same(rows[0].reloptions, ['autovacuum_enabled=off'], 'the server will not vacuum the table on its own')
  })
  t.equal(autovacuumNote(true), ', autovacuum off on test_table', 'the printed result says so')
  t.equal(autovacuumNote(false), '', 'and says nothing of a server given by URL')
})

t.test('CPU per request has a most: met only when the whole interval is at or below it', async t => {
  t.equal(againstCeiling([1.05, 1.1, 1.08, 1.02, 1.07], CPU_GOAL)?.verdict, 'met', 'every pair well under 1.2')
  t.equal(againstCeiling([1.7, 1.8, 1.75, 1.72, 1.69], CPU_GOAL)?.verdict, 'missed', 'every pair well over')
  t.equal(againstCeiling([1.1, 1.5, 1.0, 1.3, 1.15], CPU_GOAL)?.verdict, 'undecided', 'the pairs straddle it')
  t.equal(againstCeiling([1.0, 1.1], CPU_GOAL)?.verdict, 'undecided', 'two pairs: no interval')
  t.equal(againstCeiling([], CPU_GOAL), null, 'no pairs: nothing')
  const check = againstCeiling([1.05, 1.1, 1.08, 1.02, 1.07], CPU_GOAL)
  t.same({ goal: check?.goal, ceiling: check?.ceiling, n: check?.n }, { goal: 1.2, ceiling: true, n: 5 })
  const line = goalLine('CPU per request --threads 1 / -j 1', check)
  t.match(line, /^CPU per request --threads 1 \/ -j 1: mean 1\.064, 95 % interval 1\.0\d\d–1\.0\d\d over 5 pairs; /)
  t.match(line, /; goal at most 1\.2: met \(the whole interval is at or below it\)$/)
})

t.test('peak memory: every timed run of pgloadgen against the goal, pgbench beside it', async t => {
  const run = (/** @type {number} */ mib) => ({ process: { peak_rss_bytes: mib * 2 ** 20 } })
  const memory = peakMemory(8, [run(64), run(66), run(65)], [run(68)], [run(9), run(10), run(9)])
  t.equal(memory.goal_mib, MEMORY_GOAL_MIB)
  t.equal(memory.goal_mib, 70, "the issue's 70 MiB")
  t.same(memory.pgloadgen_peak_rss_bytes, { min: 64 * 2 ** 20, median: 65 * 2 ** 20, max: 66 * 2 ** 20 })
  t.equal(memory.with_stats_polling_peak_rss_bytes?.max, 68 * 2 ** 20)
  t.equal(memory.pgbench_peak_rss_bytes?.median, 9 * 2 ** 20)
  t.equal(memory.runs, 4)
  t.equal(memory.met, true, 'every run at or under 70 MiB')
  t.equal(peakMemory(8, [run(64)], [run(71)], [run(9)]).met, false, 'one run over it misses the goal')
  const unpolled = peakMemory(8, [run(64)], [], [run(9)])
  t.equal(unpolled.with_stats_polling_peak_rss_bytes, null, 'no polled runs: nothing said of them')
})

t.test("the printed result: peak RSS beside pgbench's, CPU per request against pgbench's", async t => {
  const spreadOf = (/** @type {number} */ x) => ({ min: x, median: x, max: x })
  const run = (/** @type {number} */ mib) => ({ process: { peak_rss_bytes: mib * 2 ** 20 } })
  const goal = (/** @type {number[]} */ ratios) => againstGoal(ratios, 0.95)
  const side = (/** @type {number} */ cpu) => ({
    throughput: spreadOf(9000),
    cpu_us_per_request: spreadOf(cpu),
    latency_us: { p50: spreadOf(600), p99: spreadOf(2000) }
  })
  const result = {
    machine: { cpu: 'Some CPU', cores: 2, memory_gib: 24, kernel: '6.1.0', node: 'v20.20.2' },
    server: {
      kind: 'embedded, profile bench',
      version: '18.4',
      host: 'this machine',
      shared_buffers_mib: 128,
      synchronous_commit: 'on'
    },
    concurrency: 8,
    manta: {
      mix: 'insert_row=60',
      rounds: 3,
      duration_s: 15,
      checkpoints: true,
      autovacuum_off: true,
      ratio: spreadOf(1),
      ratio_interval: againstGoal([1, 1.01, 0.99], null),
      pgloadgen: { ...side(50), peak_rss_bytes: 66 * 2 ** 20 },
      pgbench: { ...side(40), peak_rss_bytes: 9 * 2 ** 20 },
      memory: peakMemory(8, [run(64), run(66), run(65)], [], [run(9), run(10), run(9)]),
      stats_polling: null
    },
    threads: {
      mix: 'insert_row=60',
      rounds: 3,
      duration_s: 15,
      checkpoints: true,
      autovacuum_off: true,
      results: [1, 2].map(threads => ({
        threads,
        ratio: spreadOf(0.97),
        goal: goal([0.97, 0.98, 0.96]),
        cpu_ratio: spreadOf(threads === 1 ? 1.1 : 1.5),
        cpu_goal: againstCeiling(threads === 1 ? [1.1, 1.12, 1.09] : [1.5, 1.52, 1.49], CPU_GOAL),
        pgloadgen: { throughput: spreadOf(9000), cpu_us_per_request: spreadOf(50) },
        pgbench: { throughput: spreadOf(9000), cpu_us_per_request: spreadOf(40) }
      }))
    },
    builtins: null,
    copy: null,
    soak: null,
    ingest: null
  }
  const lines = resultLines(result)
  t.match(lines[0], /^machine: Some CPU, 2 cores, 24 GiB, Linux 6\.1\.0, Node v20\.20\.2$/, 'the machine')
  t.match(lines[1], /^server: PostgreSQL 18\.4 \(embedded, profile bench\) on this machine/, 'and the server')
  const memoryAt = lines.findIndex(line => line.startsWith('peak RSS at concurrency 8'))
  t.ok(memoryAt > 0, "a line for peak memory at the bench's concurrency")
  t.equal(
    lines[memoryAt + 1],
    '  pgloadgen 65 MiB (64 MiB–66 MiB), with 1 s stats polling n/a; pgbench 9 MiB (9 MiB–10 MiB)',
    "pgbench's beside"
  )
  t.equal(lines[memoryAt + 2], '  goal at most 70 MiB in every pgloadgen run: met (3 runs)', 'the goal and its verdict')
  t.ok(
    lines.includes(
      '| threads | pgloadgen req/s | pgbench req/s | ratio | CPU µs/req pgloadgen ' +
        '| CPU µs/req pgbench ' +
        '| CPU ratio |'
    ),
    'the threads table has a column for the CPU ratio'
  )
  t.ok(
    lines.includes(
      '| 2 | 9000 (9000–9000) | 9000 (9000–9000) | 0.97 (0.97–0.97) ' +
        '| 50.0 (50.0–50.0) | 40.0 (40.0–40.0) ' +
        '| 1.50 (1.50–1.50) |'
    ),
    'filled for each thread count'
  )
  const cpuLine = (/** @type {number} */ n) =>
    lines.find(line => line.startsWith(`CPU per request --threads ${n} / -j ${n}: `))
  t.match(cpuLine(1), /: mean 1\.103, .*goal at most 1\.2: met/, 'one thread: met')
  t.match(cpuLine(2), /: mean 1\.503, .*goal at most 1\.2: missed/, 'two: missed')
  t.ok(
    lines.every(line => line.length <= 200),
    'no line runs on'
  )
})

t.test('pgbench without GNU time: a loud failure, not figures without CPU or memory', async t => {
  const options = { url: 'postgres://postgres@127.0.0.1:1/none', concurrency: 1, durationS: 1, scripts: [] }
  await t.rejects(runPgbench({ ...options, time: '/nonexistent/time' }), {
    message: "/nonexistent/time is missing: pgbench's CPU and peak memory need GNU time (apt-get install -y time)"
  })
})
