// The order of the tgres workload's writes (lib/workloads/tgres/order.js),
// on a simulated clock: clients take writes and hold them for seeded random
// times. A segment never has two writes in flight, its writes go in data
// time's order with none skipped, every write is handed out once, a client
// waits only when every segment is busy, and a segment passed over while
// its write was slow catches up.
import t from 'tap'
import { layout } from '../../lib/workloads/tgres/layout.js'
import { SegmentOrder } from '../../lib/workloads/tgres/order.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'

/**
 * @param {{ series: number, width?: number, slice?: number, slots?: number }} shape
 */
const shapeOf = ({ series, width = 200, slice = 0, slots = 12 }) =>
  layout({ series, segmentWidth: width, step: 10, slots, fillfactor: 100, slice })

/**
 * Runs `clients` clients until `units` writes have been handed out, each
 * write lasting duration(n) simulated milliseconds.
 * @param {ReturnType<typeof shapeOf>} shape
 * @param {{ clients: number, units: number, duration: (n: number) => number }} run
 */
async function simulate(shape, { clients, units, duration }) {
  const order = new SegmentOrder(shape)
  const perStep = shape.unitsPerStep
  let now = 0
  /** @type {Array<{ at: number, resolve: () => void }>} */
  const events = []
  const inFlight = new Uint8Array(shape.segments)
  // each segment's next write, found here from the layout
  const expected = Array.from({ length: shape.segments }, (_, seg) => shape.unitSeg.indexOf(seg))
  const problems = []
  let started = 0
  let mostInFlight = 0
  let busyTime = 0
  // by segment: the step of its last write handed out; the widest gap between two segments'
  const lastStep = new Float64Array(shape.segments).fill(NaN)
  let widest = 0
  const client = async () => {
    while (started < units) {
      started++
      const n = await order.acquire()
      const seg = shape.unitSeg[n % perStep]
      if (inFlight[seg] === 1) problems.push(`write ${n}: segment ${seg} has one in flight`)
      if (n !== expected[seg]) problems.push(`write ${n} of segment ${seg}, not its next, ${expected[seg]}`)
      do expected[seg]++
      while (shape.unitSeg[expected[seg] % perStep] !== seg)
      inFlight[seg] = 1
      mostInFlight = Math.max(mostInFlight, order.inFlight)
      lastStep[seg] = Math.floor(n / perStep)
      if (!lastStep.includes(NaN)) widest = Math.max(widest, Math.max(...lastStep) - Math.min(...lastStep))
      const lasts = duration(n)
      busyTime += lasts
      await new Promise(resolve => events.push({ at: now + lasts, resolve: () => resolve(undefined) }))
      inFlight[seg] = 0
      order.release(seg)
    }
  }
  let finished = false
  const all = Promise.all(Array.from({ length: clients }, client)).then(() => {
    finished = true
  })
  while (!finished) {
    await new Promise(resolve => setImmediate(resolve))
    if (finished) break
    if (events.length === 0) {
      problems.push(`stuck after ${started} writes: no write in flight, no client served`)
      break
    }
    events.sort((a, b) => a.at - b.at)
    const event = /** @type {{ at: number, resolve: () => void }} */ (events.shift())
    now = event.at
    event.resolve()
  }
  if (problems.length === 0) await all
  const skew = Math.max(...lastStep) - Math.min(...lastStep)
  return { order, problems, mostInFlight, skew, widest, busy: busyTime / now / clients }
}

const SHAPES = [
  { name: '3 segments (200, 200, 50)', shape: { series: 450 } },
  { name: '2 segments in slices of 64', shape: { series: 400, slice: 64 } },
  { name: '50 segments', shape: { series: 10000 } },
  { name: 'one segment', shape: { series: 150 } }
]

t.test(
  'a segment never has two writes in flight, its writes go in order, and a client waits only when it must',
  async t => {
    for (const { name, shape } of SHAPES) {
      const layoutOf = shapeOf(shape)
      for (const clients of [1, 3, 8]) {
        const random = mulberry32(1000 * clients + layoutOf.segments)
        // 0.2 to 5 ms, most near 0.5 ms: a write now and then lasts ten of the others
        const duration = () => 0.2 + 0.3 * -Math.log(1 - random()) * (random() < 0.05 ? 10 : 1)
        const run = await simulate(layoutOf, { clients, units: 300, duration })
        const label = `${name}, ${clients} clients`
        t.same(run.problems, [], `${label}: no write of a busy segment, none out of order, skipped or twice`)
        const most = Math.min(clients, layoutOf.segments)
        t.equal(run.mostInFlight, most, `${label}: ${most} in flight at most`)
        t.ok(run.widest < 12, `${label}: the segments' steps were less than a pass of 12 apart (${run.widest})`)
        if (clients < layoutOf.segments) t.equal(run.order.waits, 0, `${label}: no client waited`)
        if (clients > layoutOf.segments) t.ok(run.order.waits > 0, `${label}: clients waited (${run.order.waits})`)
      }
    }
  }
)

t.test('the defect: 3 clients, 3 segments, one write slow', async t => {
  const layoutOf = shapeOf({ series: 450 })
  // write 4 (segment 1's of step 1) lasts as long as ten others: its segment
  // is passed over meanwhile; with fewer clients than segments it catches up
  const run = await simulate(layoutOf, { clients: 3, units: 90, duration: n => (n === 4 ? 10 : 1) })
  t.same(run.problems, [], 'in order')
  t.equal(run.order.waits, 0, 'no client waited')
  t.equal(run.busy, 1, 'the clients were never idle')
  t.equal(run.skew, 9, 'segment 1 ends the nine steps behind it fell (as many clients as segments: all always busy)')
  const fewer = await simulate(layoutOf, { clients: 2, units: 90, duration: n => (n === 4 ? 10 : 1) })
  t.same(fewer.problems, [], 'with 2 clients: in order')
  t.equal(fewer.order.waits, 0, 'no client waited')
  t.ok(
    fewer.widest >= 3 && fewer.skew <= 1,
    `segment 1 fell behind (${fewer.widest} steps) and caught up (${fewer.skew})`
  )
})

t.test('no write goes so far ahead of one in flight that the rings would share no data time', async t => {
  // segment 1 holds step 0 until its write of step 1 ends; a ring of 3
  // slots at step 3 would hold 1 to 3 only
  const layoutOf = shapeOf({ series: 450, slots: 3 })
  const run = await simulate(layoutOf, { clients: 3, units: 90, duration: n => (n === 4 ? 30 : 1) })
  t.same(run.problems, [], 'in order')
  t.equal(run.widest, 1, 'segments 0 and 2 went on one step ahead of segment 1, not two')
  t.ok(run.order.waits > 0, `then their clients waited for segment 1 (${run.order.waits})`)
})

t.test('more clients than segments: the rest wait, and the segments are kept busy', async t => {
  const layoutOf = shapeOf({ series: 450 })
  const random = mulberry32(7)
  const run = await simulate(layoutOf, { clients: 8, units: 1000, duration: () => 0.5 + random() })
  t.same(run.problems, [], 'in order')
  t.equal(run.mostInFlight, 3, 'three in flight at most, one a segment')
  t.ok(run.order.waits > 0, `clients waited (${run.order.waits})`)
  // a segment's write that lasts long holds the others back 11 steps after it (a ring of 12): they idle a little then
  t.ok(run.busy * 8 > 3 * 0.98, `the segments were kept busy (${((run.busy * 8) / 3).toFixed(3)} of the time)`)
})

t.test('the step a read expects follows the segment', async t => {
  const layoutOf = shapeOf({ series: 450 })
  const order = new SegmentOrder(layoutOf)
  const handed = () => [0, 1, 2].map(s => order.handedStep(s))
  t.same(handed(), [-1, -1, -1], 'before the first write: none')
  t.equal(order.take(), 0, "segment 0's write of step 0 first")
  t.same(handed(), [0, -1, -1], 'segment 0 has been handed step 0')
  t.equal(order.take(), 1, 'then segment 1, while segment 0 is busy')
  t.equal(order.take(), 2, 'then segment 2')
  t.equal(order.take(), -1, 'then nothing: every segment is busy')
  order.release(1)
  t.equal(order.take(), 4, "segment 1's write of step 1, while segment 0's is still busy")
  t.same(handed(), [0, 1, 0], 'segment 1 is a step ahead')
  order.release(2)
  t.equal(order.take(), 5, 'segment 2 follows')
  order.release(1)
  order.release(1)
  t.equal(order.take(), 7, 'segment 1 again, step 2 (a second release of a free segment changes nothing)')
  t.equal(order.take(), -1, 'nothing else is free')
  order.release(0)
  order.release(2)
  t.equal(order.take(), 3, "segment 0's write of step 1 first: the earliest")
  t.equal(order.take(), 8, 'then segment 2, step 2')
})
