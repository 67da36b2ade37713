// The load's series tested at the moments the lab saw something begin or end
// (lib/analysis/guided-changes.js), on generated series whose changes are
// known (lib/analysis/series-cases.js). No server.
import t from 'tap'
import { findChangePoints } from '../../lib/analysis/change-points.js'
import { withGuidedChanges } from '../../lib/analysis/guided-changes.js'
import { explainRun } from '../../lib/analysis/explain.js'
import { drawCase, makeSeries, oracleThreshold, oracleZ, seeded } from '../../lib/analysis/series-cases.js'

const OPTIONS = { minEffect: 0.2 }
const CASES = 60

t.test('steady series with five moments each: at most 2 % gain a change', async t => {
  const rand = seeded(7)
  let extra = 0
  let run = 0
  for (const noise of /** @type {const} */ (['gaussian', 'lognormal'])) {
    for (const rho of [0, 0.3, 0.5, 0.7, 0.8]) {
      for (let i = 0; i < CASES; i++) {
        const values = makeSeries(drawCase({ shape: 'steady', n: 120, rho, noise, spread: 0.35, size: 0 }, rand), rand)
        const moments = Array.from({ length: 5 }, () => ({
          from: 10 + Math.floor(rand() * 100),
          to: null,
          kind: 'checkpoint'
        }))
        const scanned = findChangePoints(values, OPTIONS)
        if (withGuidedChanges(values, moments, scanned, OPTIONS).changes.length > scanned.changes.length) extra++
        run++
      }
    }
  }
  t.ok(extra / run <= 0.02, `${extra} of ${run} steady series with a change at a moment`)
})

t.test(
  'a fall by 30 % for 25 s at a moment the lab saw: found there far more often than by the scan, near the oracle',
  async t => {
    const rand = seeded(11)
    let scan = 0
    let guided = 0
    let oracle = 0
    for (let i = 0; i < CASES; i++) {
      const start = 30 + Math.floor(rand() * 50)
      const c = { shape: /** @type {const} */ ('hole'), n: 120, rho: 0.7, noise: /** @type {const} */ ('gaussian') }
      const hole = { ...c, spread: 0.2, size: -0.3, start, end: start + 25, decline: 0 }
      const values = makeSeries(hole, rand)
      if (Math.abs(oracleZ(hole, values)) > oracleThreshold(0.01)) oracle++
      const scanned = findChangePoints(values, OPTIONS)
      const found = withGuidedChanges(
        values,
        [{ from: start, to: start + 25, kind: 'cpu_contention' }],
        scanned,
        OPTIONS
      )
      if (scanned.changes.some(change => Math.abs(change.index - start) <= 5)) scan++
      if (found.changes.some(change => Math.abs(change.index - start) <= 5)) guided++
      t.ok(
        found.segments.every((s, k) => k === 0 || s.from === found.segments[k - 1].to),
        'the segments still cover the series'
      )
    }
    t.ok(
      guided >= 2 * scan && guided >= 0.6 * oracle,
      `of ${CASES}: the scan ${scan}, with the moments ${guided}, the oracle at 1 % false positives ${oracle}`
    )
  }
)

t.test('a moment beside a change the scan found is not tested again', async t => {
  const values = Array.from({ length: 100 }, (_, i) => (i < 50 ? 1000 : 400) + ((i * 37) % 11) * 10)
  const scanned = findChangePoints(values, OPTIONS)
  t.equal(scanned.changes.length, 1)
  const found = withGuidedChanges(
    values,
    [
      { from: 48, to: null },
      { from: 53, to: 70 }
    ],
    scanned,
    OPTIONS
  )
  t.same(found, scanned, 'the same change, once')
})

const START = Date.parse('2026-11-25T10:00:00.000Z')

/**
 * A second of a loaded machine: the load's throughput given, and from 30 to
 * 45 s two busy processes that take a share of the CPU.
 * @param {number} elapsed @param {number} throughput
 */
function hostSample(elapsed, throughput) {
  const busy = elapsed > 30 && elapsed <= 45
  return {
    t: new Date(START + elapsed * 1000).toISOString(),
    elapsed_s: elapsed,
    throughput,
    concurrency: 4,
    paused: false,
    reconnects: 0,
    connections: 4,
    requests: {},
    host: {
      busy_pct: 100,
      iowait_pct: 0,
      steal_pct: 0,
      cores: 2,
      own_pct: busy ? 35 : 60,
      server_pct: busy ? 25 : 40,
      server_pid: 100,
      server_stopped: 0,
      server_procs: 10,
      others_pct: 100,
      top: busy
        ? [
            { pid: 4242, name: 'spin', pct: 30 },
            { pid: 4243, name: 'spin', pct: 20 }
          ]
        : []
    }
  }
}

t.test('a run whose throughput falls by 30 % while the lab sees other processes take the CPU', async t => {
  const rand = seeded(23)
  let scan = 0
  let found = 0
  for (let i = 0; i < 20; i++) {
    const hole = { shape: /** @type {const} */ ('hole'), n: 90, rho: 0.5, noise: /** @type {const} */ ('lognormal') }
    const values = makeSeries({ ...hole, spread: 0.2, size: -0.3, start: 30, end: 45, decline: 0 }, rand)
    const samples = values.map((v, k) => hostSample(k + 1, v))
    if (findChangePoints(values.slice(2, -1), OPTIONS).changes.some(c => Math.abs(c.index + 2 - 30) <= 1)) scan++
    const { changes } = explainRun({ samples, events: [] })
    const change = changes.find(c => c.metric === 'throughput' && Math.abs(c.at_s - 30) <= 1)
    if (change?.causes[0]?.kind === 'cpu_contention') found++
  }
  t.ok(
    found >= 2 * scan && found >= 10,
    `of 20 runs: the scan alone ${scan}, explainRun ${found}, named after the busy processes`
  )
})

t.test('a second step the same way soon after a named one carries its causes', async t => {
  // busy processes from 30 to 45 s; the load comes back in two steps, at 45 and 60 s
  const level = (/** @type {number} */ s) => (s <= 30 ? 1000 : s <= 45 ? 400 : s <= 60 ? 700 : 1100)
  const samples = Array.from({ length: 90 }, (_, k) => hostSample(k + 1, level(k + 1) * (1 + ((k * 37) % 11) / 200)))
  const { changes } = explainRun({ samples, events: [] })
  const rises = changes.filter(c => c.metric === 'throughput' && (c.effect ?? 0) > 0)
  t.same(
    rises.map(c => Math.round(c.at_s)),
    [45, 60],
    'the load back in two steps'
  )
  t.equal(rises[1]?.causes[0]?.kind, 'cpu_contention', 'the second named after the first one’s cause')
  t.match(rises[1]?.causes[0]?.label ?? '', /\(the change at 45 s went on\)$/)
})
