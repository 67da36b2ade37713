// Which per-second series of a recorded load explain.js segments: a request
// type's p99 only over enough requests for a p99 to be one, a window of at
// least WINDOW_REQUESTS (lib/recorder/p99-windows.js): samples written here
// as the recorder writes them, no server.
import t from 'tap'
import { explainRun } from '../../lib/analysis/explain.js'
import { p99Windows, seriesOf } from '../../lib/analysis/load-series.js'
import { P99Windows, WINDOW_REQUESTS } from '../../lib/recorder/p99-windows.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'

const START = Date.parse('2026-11-25T10:00:00.000Z')
const SECONDS = 50

/**
 * A steady second: a main type of 600 requests with a steady p99, and a
 * probe of `rare` requests whose p99 is the slowest of them.
 * @param {number} elapsed @param {number} rare @param {number} rareP99 @param {number} [mainP99]
 */
function sample(elapsed, rare, rareP99, mainP99 = 40000) {
  return {
    t: new Date(START + elapsed * 1000).toISOString(),
    elapsed_s: elapsed,
    throughput: 600 + rare + ((elapsed * 37) % 11) * 5,
    concurrency: 4,
    connections: 4,
    paused: false,
    reconnects: 0,
    requests: {
      main: { done: 600, failed: 0, p50_us: 5000, p99_us: mainP99 + ((elapsed * 13) % 7) * 1000 },
      probe: { done: rare, failed: 0, p50_us: 1000, p99_us: rareP99 }
    }
  }
}

t.test('a rare type whose slowest request grows with its count is not segmented', async t => {
  // 5 to 15 requests a second: the slowest of them is 4 ms while they are few,
  // 20 ms when there are more, as the slowest of more draws from one tail is
  const samples = Array.from({ length: SECONDS }, (_, i) => {
    const rare = i < 25 ? 5 + (i % 3) : 12 + (i % 4)
    return sample(i + 1, rare, rare < 10 ? 4000 + (i % 5) * 300 : 20000 + (i % 5) * 1500)
  })
  t.ok(WINDOW_REQUESTS >= 500, 'a p99 needs at least 500 requests: the fifth slowest')
  t.notOk(seriesOf(samples).has('p99_us:probe'), 'no second of the probe has enough requests')
  t.ok(seriesOf(samples).has('p99_us:main'))
  const { changes } = explainRun({ samples, events: [] })
  t.same(
    changes.map(c => c.metric),
    [],
    'a steady run: no change'
  )
})

t.test("a type with enough requests a second: its p99's rise is a change", async t => {
  const samples = Array.from({ length: SECONDS }, (_, i) => sample(i + 1, 5, 4000, i < 25 ? 40000 : 160000))
  const { changes } = explainRun({ samples, events: [] })
  const main = changes.filter(c => c.metric === 'p99_us:main')
  t.equal(main.length, 1, 'the main type’s p99 fourfold')
  t.ok(Math.abs(main[0].at_s - 25) <= 1, `at 25 s (${main[0]?.at_s})`)
  t.ok(/** @type {number} */ (main[0].effect) > 2)
})

/**
 * A second of a small type whose windows of WINDOW_REQUESTS close every
 * `every` seconds, the p99 of each window given.
 * @param {number} elapsed @param {number} every @param {number} windowP99
 */
function pooled(elapsed, every, windowP99) {
  const base = sample(elapsed, 100, 90000)
  const closes = elapsed % every === 0
  return {
    ...base,
    requests: {
      ...base.requests,
      probe: {
        done: WINDOW_REQUESTS / every,
        failed: 0,
        p50_us: 1000,
        p99_us: 50000 + (elapsed % 3) * 40000,
        ...(closes && { window: { p99_us: windowP99, seconds: every, done: WINDOW_REQUESTS } })
      }
    }
  }
}

/** A window's own swing, by the index of the sample that closes it. @param {number} i */
const wobble = i => ((Math.floor(i / 5) * 7) % 5) * 400

t.test("a small type's p99 is read over its windows, each at its first second", async t => {
  const samples = Array.from({ length: 200 }, (_, i) => pooled(i + 1, 5, 8000 + wobble(i)))
  const values = p99Windows(samples, s => s.requests?.probe)
  t.equal(values.filter(v => v !== null).length, 40, 'one value per window of 5 s')
  t.equal(values[0], 8000 + wobble(4), 'the first window, closed by the fifth sample, stands at the first')
  t.equal(values[1], null)
  t.ok(seriesOf(samples).has('p99_us:probe'), 'forty windows: segmented')
  const { changes } = explainRun({ samples, events: [] })
  t.same(
    changes.filter(c => c.metric === 'p99_us:probe'),
    [],
    'its per-second p99, which swings from 50 to 130 ms, is not read'
  )
})

t.test("a small type's p99 that rises over its windows is a change, placed at a window's start", async t => {
  const samples = Array.from({ length: 200 }, (_, i) => pooled(i + 1, 5, (i < 100 ? 8000 : 24000) + wobble(i)))
  const found = explainRun({ samples, events: [] }).changes.filter(c => c.metric === 'p99_us:probe')
  t.equal(found.length, 1, 'the probe’s p99 threefold')
  t.ok(Math.abs(found[0].at_s - 100) <= 5, `at 100 s (${found[0]?.at_s})`)
})

t.test('the recorder closes a window once it holds WINDOW_REQUESTS requests', async t => {
  const stats = new RequestStats(['big', 'small'])
  const windows = new P99Windows(stats.latency)
  /** @type {Array<import('../../lib/recorder/p99-windows.js').WindowFigures | null>} */
  const small = []
  for (let second = 0; second < 12; second++) {
    for (let k = 0; k < 600; k++) stats.finish(0, 1000 + k, true)
    // the small type's slowest 2 % are ten times slower in every window
    for (let k = 0; k < 125; k++) stats.finish(1, (second * 125 + k) % 50 === 0 ? 20000 : 2000, true)
    t.ok(windows.close(0), `second ${second}: the big type closes a window every second`)
    small.push(windows.close(1))
  }
  const closed = small.filter(w => w !== null)
  t.same(
    closed.map(w => w?.seconds),
    [4, 4, 4],
    'the small type closes one every fourth second'
  )
  t.ok(
    closed.every(w => w?.done === 500),
    'each of 500 requests'
  )
  t.ok(
    closed.every(w => (w?.p99_us ?? 0) > 10000),
    `its p99 is the slow 1 % (${closed.map(w => w?.p99_us)})`
  )
})

t.test('the schedule lag of a paced run is read over its windows too', async t => {
  const samples = Array.from({ length: 200 }, (_, i) => ({
    ...sample(i + 1, 5, 4000),
    lag: {
      p50_us: 200,
      p99_us: 30000 + (i % 4) * 20000,
      ...((i + 1) % 4 === 0 && { window: { p99_us: 9000 + wobble(i), seconds: 4, done: WINDOW_REQUESTS } })
    }
  }))
  const lag = seriesOf(samples).get('schedule_lag_p99_us')
  t.equal(lag?.filter(v => v !== null).length, 50, 'one value per window of 4 s')
  t.equal(lag?.[0], 9000 + wobble(3))
})
