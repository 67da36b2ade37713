// The capacity of a paced ingest: on made-up samples whose knee is known
// (a ramp past a set capacity, a stall the server recovers from, a server
// that always or never keeps up), then on a real ramp of the fleet-capacity
// plan, shortened, on the embedded PostgreSQL 18: its summary.json and the
// Capacity section of its report.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { runCli, REPO } from '../helpers/cli.js'
import { renderPage } from '../helpers/chromium.js'
import { runCapacity, capacitySpread, CAPACITY_METHOD } from '../../lib/report/capacity.js'
import { readExperimentSummary, readRunSummary } from '../helpers/summary-schema.js'

/**
 * A paced run's samples: one client more every second, each asking for
 * perClient points a second; the server delivers at most `capacity` and
 * the backlog beyond it shows in the lag (seconds of backlog at capacity).
 * @param {{ seconds?: number, capacity?: number, perClient?: number, intervalS?: number, stall?: [number,
 *     number] | null, maxClients?: number, seed?: number }} [options]
 */
function syntheticRun({
  seconds = 120,
  capacity = 60000,
  perClient = 1000,
  intervalS = 1,
  stall = null,
  maxClients = 1000,
  seed = 7
} = {}) {
  let state = seed
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  const t0 = Date.parse('2024-05-01T00:00:00Z')
  const samples = []
  let backlogS = 0
  for (let i = 1; i <= seconds; i++) {
    const clients = Math.min(i, maxClients)
    const offered = clients * perClient
    const delivered = Math.min(offered, capacity) * (0.97 + 0.06 * random())
    backlogS = Math.max(0, backlogS + (offered - capacity) / capacity)
    let lagUs = intervalS * 0.1e6 * (0.5 + random()) + backlogS * 1e6
    if (stall && i >= stall[0] && i < stall[1]) lagUs += 3 * intervalS * 1e6
    samples.push({
      t: new Date(t0 + i * 1000).toISOString(),
      elapsed_s: i,
      concurrency: clients,
      paused: false,
      throughput: clients,
      rows: Math.round(delivered),
      points: Math.round(delivered),
      requests: { flush: { done: clients, failed: 0, p50_us: lagUs / 2, p99_us: lagUs } },
      cpu_us: { user: 50000, system: 10000 },
      pg: { table: 'fleet_points', dead_tuples: 0, vacuum: i >= 60 && i < 66 ? { phase: 1 } : null },
      workload: {
        pgloadgen_workload_fleet_checkpoints_total: Math.floor(i / 20),
        pgloadgen_workload_fleet_dead_tuples: 0
      }
    })
  }
  return {
    dir: '/nowhere',
    info: { mode: 'paced' },
    samples,
    events: [],
    summary: { mode: 'paced', pacing_interval_s: intervalS },
    t0
  }
}

t.test('a ramp past the capacity: the knee where the lag starts to grow, the points/s just before', async t => {
  const c = runCapacity(/** @type {any} */ (syntheticRun()))
  t.equal(c?.verdict, 'knee')
  if (!c) return
  t.equal(c.unit, 'points')
  t.equal(c.lag_kind, 'end', 'the lag of the samples: how late requests ended')
  t.equal(c.bound_us, 1e6, 'bounded by the pacing interval')
  t.ok(
    c.knee_s !== null && c.knee_s >= 60 && c.knee_s <= 66,
    `the knee just after 60 s, where 60 clients ask for the capacity (${c.knee_s} s)`
  )
  t.ok(
    c.clients_at_knee !== null && c.clients_at_knee >= 60 && c.clients_at_knee <= 66,
    `${c.clients_at_knee} clients then`
  )
  t.ok(
    c.capacity_per_s !== null && Math.abs(c.capacity_per_s - 60000) / 60000 < 0.06,
    `about 60000 points/s delivered before it (${c.capacity_per_s})`
  )
  t.ok(
    c.after_knee_per_s !== null && Math.abs(c.after_knee_per_s - 60000) / 60000 < 0.03,
    `and about as much after, falling behind (${c.after_knee_per_s})`
  )
  t.ok(c.lag_growth !== null && c.lag_growth > 0.2, `the lag grew ${c.lag_growth} s a second after it`)
  t.ok(c.lag_at_end_us !== null && c.lag_at_end_us > 20e6, 'to tens of seconds at the end')
  t.ok(c.lag_at_knee_us !== null && c.lag_at_knee_us < c.bound_us, 'the knee is where the climb began, below the bound')
  t.same(
    c.stats?.workload.pgloadgen_workload_fleet_checkpoints_total,
    { before: 3, at_knee: 3, at_end: 6 },
    "the workload's statistics around the knee"
  )
  t.equal(c.stats?.vacuum_running, true, 'a vacuum seen in the samples near the knee')
  t.equal(c.stats?.generator_cpu_pct, 6, "the generator's CPU in the window before it")
})

t.test('a stall the server recovers from is not the knee', async t => {
  const c = runCapacity(/** @type {any} */ (syntheticRun({ stall: [25, 33] })))
  t.equal(c?.verdict, 'knee')
  t.ok(c?.knee_s !== null && /** @type {number} */ (c?.knee_s) >= 60, `the knee is still after 60 s (${c?.knee_s})`)
})

t.test('a server that always keeps up, one that never does, and one that falls behind too late to tell', async t => {
  const kept = runCapacity(/** @type {any} */ (syntheticRun({ capacity: 200000 })))
  t.equal(kept?.verdict, 'kept_up')
  t.equal(kept?.capacity_per_s, null, 'no capacity figure: it is above what was asked')
  t.ok(
    kept?.peak_per_s !== null && /** @type {number} */ (kept?.peak_per_s) > 100000,
    `the most it delivered (${kept?.peak_per_s})`
  )
  const never = runCapacity(/** @type {any} */ (syntheticRun({ capacity: 500, perClient: 1000 })))
  t.equal(never?.verdict, 'overloaded_throughout')
  const late = runCapacity(/** @type {any} */ (syntheticRun({ seconds: 74 })))
  t.equal(late?.verdict, 'inconclusive', 'above the bound for a few seconds at the end only')
  t.same(
    capacitySpread([runCapacity(/** @type {any} */ (syntheticRun())), kept]),
    {
      unit: 'points',
      verdicts: ['knee', 'kept_up'],
      capacity_per_s: {
        mean: runCapacity(/** @type {any} */ (syntheticRun()))?.capacity_per_s,
        min: runCapacity(/** @type {any} */ (syntheticRun()))?.capacity_per_s,
        max: runCapacity(/** @type {any} */ (syntheticRun()))?.capacity_per_s,
        n: 1
      }
    },
    'across repetitions: the knees only'
  )
})

t.test('not a paced run, or no points: no capacity', async t => {
  const closed = syntheticRun()
  closed.summary.mode = 'closed'
  t.equal(runCapacity(/** @type {any} */ (closed)), null)
  const nothing = syntheticRun()
  for (const sample of nothing.samples) Object.assign(sample, { rows: 0, points: 0 })
  t.equal(runCapacity(/** @type {any} */ (nothing)), null)
})

t.test(
  'the fleet-capacity plan, shortened, on the embedded PostgreSQL 18: the knee in summary.json and the report',
  async t => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-fleet-'))
    // the embedded server runs as postgres when we are root, and must get in
    await chmod(dir, 0o755)
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const plan = YAML.parse(await readFile(path.join(REPO, 'notes', 'experiments', 'fleet-capacity.yaml'), 'utf8'))
    // 20K points/s more every half second, up to 50 agents (1M points/s):
    // far past what two cores take (about 400K points/s at best here), so
    // that the server falls behind well before the load ends and the lag
    // grows for more than the 10 s a knee needs.
    Object.assign(plan.options, {
      agents: 50,
      'metrics-per-agent': 20000,
      'flush-interval': '1s',
      'spawn-interval': '500ms',
      jitter: '100ms'
    })
    plan.concurrency = 50
    plan.prepare.duration = '1s'
    plan.variants[0].steps = [{ load: '34s' }]
    const planFile = path.join(dir, 'fleet-capacity.yaml')
    await writeFile(planFile, YAML.stringify(plan))
    const out = path.join(dir, 'out')
    const result = await runCli(['experiment', planFile, '--out', out, '--log-level', 'warn'], { t })
    t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-600)}`)

    const summary = await readExperimentSummary(path.join(out, 'summary.json'))
    t.match(summary.postgres_version, /^18/)
    t.same(summary.capacity_method, CAPACITY_METHOD, 'the method is written with the figures')
    const c = summary.variants[0].repetitions[0].capacity
    t.equal(c.verdict, 'knee', `the lag grew without bound: ${JSON.stringify(c)}`)
    t.ok(
      c.capacity_per_s > 10000 && c.capacity_per_s <= c.peak_per_s,
      `capacity ${c.capacity_per_s} points/s (peak ${c.peak_per_s})`
    )
    t.ok(c.clients_at_knee >= 2 && c.clients_at_knee < 50, `${c.clients_at_knee} agents at the knee, ${c.knee_s} s in`)
    t.ok(c.lag_at_end_us > c.bound_us, `the lag at the end, ${c.lag_at_end_us} µs, past the flush interval`)
    t.ok(
      typeof c.stats.workload.pgloadgen_workload_fleet_checkpoints_total?.at_knee === 'number',
      "checkpoints at the knee, from the fleet's statistics"
    )
    t.ok(typeof c.stats.workload.pgloadgen_workload_fleet_dead_tuples?.at_knee === 'number', 'dead tuples at the knee')
    t.ok(
      typeof c.stats.workload.pgloadgen_workload_fleet_autovacuums_total?.at_knee === 'number',
      'autovacuums at the knee'
    )
    t.equal(summary.variants[0].capacity.capacity_per_s.mean, c.capacity_per_s, "the variant's capacity")
    const run = await readRunSummary(path.join(out, 'variants', 'ramp', 'rep-1', 'summary.json'))
    t.equal(run.workload, 'fleet')
    t.equal(run.mode, 'paced')

    const report = path.join(out, 'report.html')
    const html = await readFile(report, 'utf8')
    t.match(html, /<h2>Capacity<\/h2>/)
    t.match(
      html,
      /The server stopped keeping up at about [\d,]+ points\/s delivered, with \d+ clients/,
      'the report states the capacity'
    )
    t.match(html, /checkpoints [\d,]+ in the window before the knee/, 'and what the statistics showed then')
    const page = await renderPage(report)
    t.same(page.console, [], "the page's scripts said nothing")
    t.match(page.dom, /id="capacity-0"/, 'the capacity chart')
    const rendered = /<body\b[^>]*\bdata-charts-rendered="(\d+)"/.exec(page.dom)?.[1]
    t.equal(
      Number(rendered),
      (html.match(/data-chart="/g) ?? []).length,
      'every chart drawn, the capacity chart with them'
    )
  }
)
