// Which per-second series of a recorded load explain.js segments: a request
// type's p99 only from seconds with enough requests for a p99 to be one
// (lib/analysis/explain.js, MIN_REQUESTS_FOR_P99): samples written here as
// the recorder writes them, no server.
import t from 'tap'
import { MIN_REQUESTS_FOR_P99, explainRun, seriesOf } from '../../lib/analysis/explain.js'

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
  t.ok(MIN_REQUESTS_FOR_P99 >= 20, 'a p99 needs at least 20 requests in its second')
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
