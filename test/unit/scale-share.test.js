// The splitting function of instances (and threads): integer shares add up
// to the total and differ by at most one, nested parts are parts of the
// whole, and the parts' open-loop schedules together are the single
// schedule, arrival for arrival (fixed and Poisson alike).
import t from 'tap'
import fc from 'fast-check'
import { shareOf, nestShare, isShare, formatShare } from '../../lib/scale/share.js'
import { Pacer } from '../../lib/generator/pacer.js'
import { WorkloadServices } from '../../lib/lab/workload-services.js'

const total = fc.integer({ min: 0, max: 100000 })
const parts = fc.integer({ min: 1, max: 64 })

t.test('integer shares add up to the total and differ by at most one', async t => {
  fc.assert(
    fc.property(total, parts, (total, parts) => {
      const shares = Array.from({ length: parts }, (_, i) => shareOf(total, i, parts))
      const sum = shares.reduce((a, b) => a + b, 0)
      if (sum !== total) return false
      if (Math.max(...shares) - Math.min(...shares) > 1) return false
      // round-robin: share i counts the items k < total with k mod parts = i
      const dealt = new Array(parts).fill(0)
      for (let k = 0; k < total; k++) dealt[k % parts]++
      return shares.every((s, i) => s === dealt[i])
    }),
    { numRuns: 300 }
  )
  t.pass('300 totals and part counts')
})

t.test('a part of a part is a part of the whole', async t => {
  fc.assert(
    fc.property(total, parts, parts, fc.nat(), fc.nat(), (total, outerParts, innerParts, i, j) => {
      const outer = { index: i % outerParts, parts: outerParts }
      const inner = { index: j % innerParts, parts: innerParts }
      const nested = nestShare(outer, inner)
      return (
        isShare(nested) &&
        shareOf(shareOf(total, outer.index, outer.parts), inner.index, inner.parts) ===
          shareOf(total, nested.index, nested.parts)
      )
    }),
    { numRuns: 300 }
  )
  t.equal(formatShare({ index: 2, parts: 3 }), '2/3')
  t.notOk(isShare({ index: 3, parts: 3 }))
  t.notOk(isShare({ index: 0, parts: 0 }))
})

/**
 * The first n arrivals of a pacer, from origin 0.
 * @param {ConstructorParameters<typeof Pacer>[0]} options
 * @param {number} n
 */
function arrivals(options, n) {
  const pacer = new Pacer(options)
  pacer.restart(0)
  return Array.from({ length: n }, () => pacer.take())
}

for (const arrival of /** @type {const} */ (['fixed', 'poisson'])) {
  t.test(`the union of the parts' ${arrival} schedules is the single schedule`, async t => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        parts,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 2 ** 48 }),
        (rate, parts, perPart, seed) => {
          const single = arrivals({ rate, arrival, maxLagMs: null, seed }, parts * perPart)
          const union = []
          for (let index = 0; index < parts; index++) {
            const part = arrivals({ rate, arrival, maxLagMs: null, seed, share: { index, parts } }, perPart)
            // each part keeps arrivals index, index + parts, …
            for (let j = 0; j < perPart; j++) if (part[j] !== single[index + j * parts]) return false
            union.push(...part)
          }
          union.sort((a, b) => a - b)
          return union.every((at, k) => at === single[k])
        }
      ),
      { numRuns: 200 }
    )
    t.pass('200 rates, part counts and seeds')
  })
}

t.test('one part without a seed keeps the schedule it always had', async t => {
  const fixed = arrivals({ rate: 200, arrival: 'fixed', maxLagMs: null }, 5)
  t.same(fixed, [0, 5, 10, 15, 20], 'fixed: one interval apart from the origin')
  const poisson = arrivals({ rate: 1000, arrival: 'poisson', maxLagMs: null }, 20000)
  const meanGap = poisson[poisson.length - 1] / (poisson.length - 1)
  t.ok(Math.abs(meanGap - 1) < 0.05, `poisson: mean gap ${meanGap.toFixed(3)} ms at 1000/s`)
  const again = arrivals({ rate: 1000, arrival: 'poisson', maxLagMs: null, seed: 7 }, 50)
  t.same(
    arrivals({ rate: 1000, arrival: 'poisson', maxLagMs: null, seed: 7 }, 50),
    again,
    'a seed gives the same schedule twice'
  )
})

t.test('a ramp split over parts starts the clients of the one ramp', async t => {
  const TOTAL = 7
  const PARTS = 3
  const EVERY_S = 0.05
  /** @type {{ at: number, part: number, concurrency: number }[]} */
  const changes = []
  const started = Date.now()
  const services = Array.from({ length: PARTS }, (_, index) => {
    const generator = {
      concurrency: 0,
      /** @param {number} n */
      setConcurrency(n) {
        this.concurrency = n
        changes.push({ at: Date.now() - started, part: index, concurrency: n })
      }
    }
    const workload = /** @type {any} */ ({ ramp: { everyS: EVERY_S }, maintain: null, statistics: [] })
    const s = new WorkloadServices(/** @type {any} */ ({ workload, registry: null, statsIntervalS: 10 }))
    s.start(/** @type {any} */ (generator), shareOf(TOTAL, index, PARTS), { index, parts: PARTS })
    return { s, generator }
  })
  await new Promise(resolve => setTimeout(resolve, (TOTAL + 3) * EVERY_S * 1000))
  for (const { s } of services) await s.stop()
  t.same(
    services.map(({ generator }) => generator.concurrency),
    [3, 2, 2],
    'each part reached its share'
  )
  // client k of the whole ramp is part k mod 3's: after the k-th start, the parts run shareOf(k)
  const order = changes.map(c => c.part)
  t.same(order, [0, 1, 2, 0, 1, 2, 0], 'the parts took the clients round-robin, one per step')
})
