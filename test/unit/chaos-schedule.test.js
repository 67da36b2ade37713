// The chaos soak's schedule and its memory trend: the same seed gives the
// same faults, at gaps within the bounds, of the kinds asked for; a short
// soak takes each kind once before any twice; the least-squares slope of
// a line is its slope; the change taken as a fault's is the one at it.
import t from 'tap'
import { drawSchedule, FAULT_KINDS } from '../../benchmarks/chaos/schedule.js'
import { memorySlopes, rssFloor, rssSlope } from '../../benchmarks/chaos/rss.js'
import { changeNear } from '../../benchmarks/chaos/checks.js'

t.test('a seed gives one schedule, with gaps of one to three minutes', async t => {
  const first = drawSchedule({ seed: 1, lengthS: 1800 })
  t.same(drawSchedule({ seed: 1, lengthS: 1800 }), first, 'the same seed, the same faults')
  t.notSame(drawSchedule({ seed: 2, lengthS: 1800 }), first, 'another seed, other faults')
  t.ok(first.length >= 9 && first.length <= 30, `${first.length} faults in 30 minutes`)
  t.ok(first[0].at_s >= 60 && first[0].at_s <= 180, `the first at ${first[0].at_s} s`)
  for (let i = 1; i < first.length; i++) {
    const gap = first[i].at_s - first[i - 1].at_s
    t.ok(gap >= 60 && gap <= 180, `gap ${i}: ${gap} s`)
  }
  t.ok(first.at(-1)?.at_s <= 1800 - 90, 'none in the last minute and a half')
  for (const fault of first) {
    t.ok(FAULT_KINDS.includes(fault.kind), `${fault.kind} is a kind`)
    if (fault.kind === 'wal_full') t.ok(fault.hold_s >= 10 && fault.hold_s <= 20, `WAL full for ${fault.hold_s} s`)
    else t.equal(fault.hold_s, 10, `${fault.kind} lasts 10 s`)
  }
})

t.test('a short soak draws each kind once before any twice', async t => {
  const kinds = /** @type {const} */ (['sigstop', 'blackhole', 'wal_full'])
  const faults = drawSchedule({ seed: 3, lengthS: 200, gapS: [15, 18], kinds, distinct: true, quietEndS: 10 })
  t.ok(faults.length >= 6, `${faults.length} faults`)
  t.same(new Set(faults.slice(0, 3).map(f => f.kind)), new Set(kinds), 'the first three are the three kinds')
  t.same(new Set(faults.slice(3, 6).map(f => f.kind)), new Set(kinds), 'and so are the next three')
})

t.test('the slope of resident memory, in MiB per ten minutes, after the start-up', async t => {
  const line = Array.from({ length: 100 }, (_, i) => ({ t_s: i * 10, rss_bytes: 50 * 2 ** 20 + i * 10 * 1024 }))
  // 10 KiB every 10 s: 600 KiB in ten minutes
  t.equal(Number(rssSlope(line, 0)?.toFixed(4)), Number((600 / 1024).toFixed(4)), '600 KiB per 10 min')
  const startUp = [{ t_s: 0, rss_bytes: 0 }, ...line.slice(10)]
  t.equal(Number(rssSlope(startUp, 50)?.toFixed(4)), Number((600 / 1024).toFixed(4)), 'the start-up left out')
  t.equal(rssSlope(line.slice(0, 2), 0), null, 'no slope from two samples')
})

t.test('where the slope lies: the JavaScript heap, the buffers outside it, the rest', async t => {
  const MiB = 2 ** 20
  // over 1000 s: the heap flat, the buffers up 1 MiB, the rest up 2 MiB
  const samples = Array.from({ length: 101 }, (_, i) => {
    const heap_total = 20 * MiB
    const external = 4 * MiB + (i / 100) * MiB
    return {
      t_s: i * 10,
      memory: { rss: heap_total + external + 40 * MiB + (i / 50) * MiB, heap_total, heap_used: 10 * MiB, external }
    }
  })
  const parts = memorySlopes(samples, 0)
  const per10 = (/** @type {number} */ mib) => Number(((mib * 600) / 1000).toFixed(4))
  t.equal(Number(parts?.heap.toFixed(4)), 0, 'the heap flat')
  t.equal(Number(parts?.buffers.toFixed(4)), per10(1), 'the buffers: 1 MiB over 1000 s')
  t.equal(Number(parts?.rest.toFixed(4)), per10(2), 'the rest: 2 MiB over 1000 s')
  t.equal(memorySlopes([], 0), null, 'none without samples')
})

t.test('the change at a fault: in its window, not the end of a condition, a named one first', async t => {
  const fault = { planned: { at_s: 30, kind: 'sigstop', hold_s: 10 }, from_s: 30, to_s: 40, detail: '', done: true }
  const change = (
    /** @type {number} */ at,
    /** @type {string} */ metric,
    /** @type {number} */ after,
    causes = []
  ) => ({
    at_s: at,
    metric,
    after: { median: after },
    causes
  })
  const ended = change(29, 'condition:reconnects', 0)
  const noise = change(30, 'p99_us:read_row', 5)
  const drop = change(31, 'throughput', 0, [{ kind: 'server_stopped', label: 'stopped' }])
  t.equal(changeNear([ended, noise, drop], fault), drop, 'the named drop, not the nearer noise or the end before')
  t.equal(changeNear([ended, noise], fault), noise, 'with none named, the nearest')
  t.equal(changeNear([ended], fault), null, 'the end of a condition alone is no change at the fault')
  t.equal(changeNear([change(24, 'throughput', 0), change(56, 'throughput', 0)], fault), null, 'none outside')
})

t.test("resident memory's floor: the lowest of each window, after the start-up", async t => {
  // a sawtooth: 1 MiB more every 10 s, back to 60 MiB every 100 s
  const saw = Array.from({ length: 60 }, (_, i) => ({ t_s: i * 10, rss_bytes: (60 + (i % 10)) * 2 ** 20 }))
  const floor = rssFloor(saw, 100, 100)
  t.same(
    floor.map(s => s.t_s),
    [100, 200, 300, 400, 500],
    'one per window, at its lowest'
  )
  t.equal(rssSlope(floor, 0), 0, 'a flat floor under the sawtooth')
  t.ok((rssSlope(saw.slice(10, 55), 0) ?? 0) > 0.5, 'where a slope of every sample, cut mid-tooth, rises')
})
