// The order of the tgres workload's writes (lib/workloads/tgres/order.js),
// on a simulated clock: clients take writes and hold them for seeded random
// times. A segment never has two writes in flight, its writes go in data
// time's order, every write is handed out once, the segments stay within
// two steps of each other, and a client waits only when it must.
import t from 'tap'
import { layout } from '../../lib/workloads/tgres/layout.js'
import { SegmentOrder } from '../../lib/workloads/tgres/order.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'

/**
 * @param {{ series: number, width?: number, slice?: number }} shape
 */
const shapeOf = ({ series, width = 200, slice = 0 }) =>
  layout({ series, segmentWidth: width, step: 10, slots: 12, fillfactor: 100, slice })

/**
 * Runs `clients` clients until `units` writes have been handed out, each
 * write lasting duration() simulated milliseconds.
 * @param {ReturnType<typeof shapeOf>} shape
 * @param {{ clients: number, units: number, duration: () => number }} run
 */
async function simulate(shape, { clients, units, duration }) {
  const order = new SegmentOrder(shape)
  let now = 0
  /** @type {Array<{ at: number, resolve: () => void }>} */
  const events = []
  const inFlight = new Uint8Array(shape.segments)
  const lastOf = new Float64Array(shape.segments).fill(-1)
  const problems = []
  const handed = new Set()
  let started = 0
  let mostInFlight = 0
  let widestSkew = 0
  const client = async () => {
    while (started < units) {
      started++
      const n = await order.acquire()
      const seg = shape.unitSeg[n % shape.unitsPerStep]
      if (inFlight[seg] === 1) problems.push(`write ${n}: segment ${seg} has one in flight`)
      if (n <= lastOf[seg]) problems.push(`write ${n} of segment ${seg} after its write ${lastOf[seg]}`)
      if (handed.has(n)) problems.push(`write ${n} handed out twice`)
      handed.add(n)
      inFlight[seg] = 1
      lastOf[seg] = n
      mostInFlight = Math.max(mostInFlight, order.inFlight)
      const steps = Array.from({ length: shape.segments }, (_, s) => order.handedStep(s))
      widestSkew = Math.max(widestSkew, Math.max(...steps) - Math.min(...steps))
      await new Promise(resolve => events.push({ at: now + duration(), resolve: () => resolve(undefined) }))
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
      problems.push(`stuck after ${handed.size} writes: no write in flight, no client served`)
      break
    }
    events.sort((a, b) => a.at - b.at)
    const event = /** @type {{ at: number, resolve: () => void }} */ (events.shift())
    now = event.at
    event.resolve()
  }
  if (problems.length === 0) await all
  const sorted = [...handed].sort((a, b) => a - b)
  const gapless = sorted.findIndex((n, k) => n !== k)
  return { order, problems, handed: sorted, gapless, mostInFlight, widestSkew, now }
}

const SHAPES = [
  { name: '3 segments (200, 200, 50)', shape: { series: 450 } },
  { name: '2 segments in slices of 64', shape: { series: 400, slice: 64 } },
  { name: '50 segments', shape: { series: 10000 } },
  { name: 'one segment', shape: { series: 150 } }
]

t.test('a segment never has two writes in flight, and its writes go in order', async t => {
  for (const { name, shape } of SHAPES) {
    const layoutOf = shapeOf(shape)
    for (const clients of [1, 3, 8]) {
      const random = mulberry32(1000 * clients + layoutOf.segments)
      // 0.2 to 5 ms, most near 0.5 ms: a write now and then lasts ten of the others
      const duration = () => 0.2 + 0.3 * -Math.log(1 - random()) * (random() < 0.05 ? 10 : 1)
      const run = await simulate(layoutOf, { clients, units: 1000, duration })
      const label = `${name}, ${clients} clients`
      t.same(run.problems, [], `${label}: no write of a busy segment, none out of order or twice`)
      // every write below the highest handed out, save those within the last step and a little
      t.ok(
        run.gapless === -1 || run.gapless >= run.handed.length - 2 * layoutOf.unitsPerStep - clients,
        `${label}: the writes handed out are every write up to the last step or two (${run.handed.length})`
      )
      t.ok(run.widestSkew <= 2, `${label}: the segments' data times are within two steps (${run.widestSkew})`)
      t.ok(
        run.mostInFlight <= Math.min(clients, layoutOf.segments),
        `${label}: at most ${Math.min(clients, layoutOf.segments)} in flight (${run.mostInFlight})`
      )
    }
  }
})

t.test('with as many clients as segments or fewer, writes of equal length never wait', async t => {
  for (const { name, shape } of SHAPES) {
    const layoutOf = shapeOf(shape)
    for (let clients = 1; clients <= Math.min(layoutOf.segments, 8); clients++) {
      const run = await simulate(layoutOf, { clients, units: 500, duration: () => 1 })
      t.same(run.problems, [], `${name}, ${clients} clients: in order`)
      t.equal(run.order.waits, 0, `${name}, ${clients} clients: no wait`)
      t.equal(run.mostInFlight, clients, `${name}, ${clients} clients: all busy`)
    }
  }
})

t.test('the brief of the defect: 3 clients, 3 segments, one write slow', async t => {
  const layoutOf = shapeOf({ series: 450 })
  let k = 0
  // write 4 (segment 1's of step 1) lasts as long as ten others: its client
  // holds segment 1, the others go on with segments 0 and 2 up to a step ahead
  const run = await simulate(layoutOf, { clients: 3, units: 60, duration: () => (k++ === 4 ? 10 : 1) })
  t.same(run.problems, [], 'in order')
  t.ok(run.order.waits > 0, `clients waited for segment 1 once the others were a step ahead (${run.order.waits})`)
  t.ok(run.widestSkew <= 2, 'within two steps')
})

t.test('more clients than segments: the rest wait, and the segments are all kept busy', async t => {
  const layoutOf = shapeOf({ series: 450 })
  const random = mulberry32(7)
  const run = await simulate(layoutOf, { clients: 8, units: 2000, duration: () => 0.5 + random() })
  t.same(run.problems, [], 'in order')
  t.equal(run.mostInFlight, 3, 'three in flight at most, one a segment')
  t.ok(run.order.waits > 0, `clients waited (${run.order.waits})`)
  // a segment's writes back to back: 2000 writes of 1 ms on average over 3 segments
  t.ok(run.now < (2000 / 3) * 1 * 1.3, `the segments were kept busy: ${run.now.toFixed(0)} ms for 2000 writes`)
})

t.test('the step a read expects follows the segment', async t => {
  const layoutOf = shapeOf({ series: 450 })
  const order = new SegmentOrder(layoutOf)
  t.same(
    [0, 1, 2].map(s => order.handedStep(s)),
    [-1, -1, -1],
    'before the first write: none'
  )
  const first = order.take()
  t.equal(first, 0, "segment 0's write of step 0 first")
  t.same(
    [0, 1, 2].map(s => order.handedStep(s)),
    [0, -1, -1],
    'segment 0 has been handed step 0'
  )
  t.equal(order.take(), 1, 'then segment 1, while segment 0 is busy')
  t.equal(order.take(), 2, 'then segment 2')
  t.equal(order.take(), -1, 'then nothing: every segment is busy')
  order.release(1)
  t.equal(order.take(), 4, "segment 1's write of step 1 goes before segment 0's, still busy")
  t.same(
    [0, 1, 2].map(s => order.handedStep(s)),
    [0, 1, 0],
    'segment 1 is a step ahead'
  )
  order.release(2)
  t.equal(order.take(), 5, 'segment 2 follows')
  order.release(1)
  order.release(2)
  t.equal(order.take(), -1, 'no more than a step ahead of segment 0')
  order.release(0)
  t.equal(order.take(), 3, "segment 0's write of step 1")
})
