// The load's shapes (lib/generator/shapes/): when each request of a client
// is meant to start, on a fake clock. No server.
import t from 'tap'
import { shapeOf } from '../../lib/generator/shapes/load-shape.js'
import { ClosedLoop } from '../../lib/generator/shapes/closed-loop.js'
import { OpenLoop } from '../../lib/generator/shapes/open-loop.js'
import { Paced } from '../../lib/generator/shapes/paced.js'
import { Pacer } from '../../lib/generator/pacer.js'
import { FakeClock } from '../helpers/fake-clock.js'

t.test('each client gets the shape of its load', async t => {
  new FakeClock().install(t)
  const pacer = new Pacer({ rate: 100, arrival: 'fixed', maxLagMs: null })
  const paced = { intervalS: 10 }
  t.ok(shapeOf({ pacer: null, workload: { pacing: null } }, 0) instanceof ClosedLoop, 'no rate, no pacing: closed')
  t.ok(shapeOf({ pacer, workload: { pacing: null } }, 0) instanceof OpenLoop, '--rate: open')
  t.ok(shapeOf({ pacer: null, workload: { pacing: paced } }, 0) instanceof Paced, "a workload's pacing: paced")
})

t.test('a closed loop sends at once, the latency from the send', async t => {
  const shape = new ClosedLoop()
  t.equal(shape.due(), null)
  t.ok(shape.stillDue())
  t.notOk(shape.reschedulable, 'no schedule to start over')
})

t.test("an open loop takes the schedule's times, void once it starts over", async t => {
  const clock = new FakeClock(1000).install(t)
  const pacer = new Pacer({ rate: 100, arrival: 'fixed', maxLagMs: null })
  pacer.begin(1000)
  const shape = new OpenLoop(pacer)
  const first = shape.due()
  const second = shape.due()
  t.equal(second - /** @type {number} */ (first), 10, '100 requests/s: 10 ms apart')
  t.ok(shape.stillDue(), 'the same schedule')
  clock.nowMs += 5
  pacer.setRate(50)
  t.notOk(shape.stillDue(), 'a new rate: the time taken before it is void')
  shape.due()
  t.ok(shape.stillDue(), 'a time of the new schedule holds')
  t.ok(shape.reschedulable, 'a wait for a time is cut short by a new rate')
})

t.test('a paced client keeps its period from its offset, and starts over after a pause', async t => {
  const clock = new FakeClock(1000).install(t)
  const pacing = { intervalS: 2, offsetS: (/** @type {number} */ id) => id * 0.5 }
  const shape = new Paced(pacing, 3, clock.nowMs)
  t.same([shape.due(), shape.due(), shape.due()], [2500, 4500, 6500], 'one period apart, from 1.5 s in')
  clock.nowMs = 20000
  shape.resumed()
  t.equal(shape.due(), 20000, 'after a pause: now, not the times the pause left behind')
  t.equal(shape.due(), 22000, 'then one period apart again')
  const late = new Paced({ intervalS: 1 }, 0, 1000)
  late.due()
  clock.nowMs = 1500
  late.resumed()
  t.equal(late.due(), 2000, 'a pause shorter than the period owes nothing and skips nothing')
})
