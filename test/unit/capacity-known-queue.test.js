// The capacity search against a server whose answer is known, without a
// server: each step an M/D/4 queue (pg_sleep(0.01) over 4 clients, D 10.25
// ms) simulated for the step's settling and measured seconds from empty, as
// the pacer starts over at each rate, and judged on its p99 like a real
// step; the truth is the rate whose steady p99 is 60 ms
// (benchmarks/known-answers/capacity-truth.js). Seeded: the same searches
// every run, so no machine makes it pass or fail.
import t from 'tap'
import { CapacitySearch } from '../../lib/capacity/search.js'
import { CAPACITY_DEFAULTS } from '../../lib/capacity/defaults.js'
import { queueCapacity, simulatedStepHolds } from '../../benchmarks/known-answers/capacity-truth.js'

const SERVERS = 4
const SERVICE_MS = 10.25
const LIMIT_MS = 60

/**
 * Whether a simulated step at `rate` keeps p99 < 60 ms.
 * @param {number} rate
 * @param {number} seed
 */
function stepHolds(rate, seed) {
  const { settleS, stepS } = CAPACITY_DEFAULTS
  return simulatedStepHolds({ servers: SERVERS, serviceMs: SERVICE_MS, rate, seed, settleS, stepS, limitMs: LIMIT_MS })
}

t.test('the truth: an M/D/4 queue keeps p99 < 60 ms up to about 347 requests/s', async t => {
  const truth = queueCapacity({
    servers: SERVERS,
    serviceMs: SERVICE_MS,
    quantile: 0.99,
    limitMs: LIMIT_MS,
    arrivals: 100000
  })
  t.ok(truth.rate > 335 && truth.rate < 360, `${truth.rate.toFixed(1)} requests/s`)
  t.ok(truth.rate < truth.stable, 'below c / D')
  const fixed = queueCapacity({
    servers: SERVERS,
    serviceMs: SERVICE_MS,
    arrival: 'fixed',
    quantile: 0.99,
    limitMs: LIMIT_MS,
    arrivals: 100000
  })
  t.ok(fixed.rate > 0.99 * fixed.stable, 'evenly spaced arrivals never wait below c / D')
})

t.test('20 searches on simulated steps: within 10 %, settled, 90 % confidence, in under 3 minutes', async t => {
  const truth = queueCapacity({
    servers: SERVERS,
    serviceMs: SERVICE_MS,
    quantile: 0.99,
    limitMs: LIMIT_MS,
    arrivals: 100000
  }).rate
  const { factor, maxRate, minRate, resolution, repeats, stepS, settleS, maxTimeS } = CAPACITY_DEFAULTS
  let met = 0
  for (let run = 1; run <= 20; run++) {
    const search = new CapacitySearch({ startRate: 50, factor, maxRate, minRate, resolution, repeats })
    let i = 0
    for (let rate = search.next(); rate !== null; rate = search.next()) {
      if ((i + 1) * (stepS + settleS) > maxTimeS) search.timeUp()
      else search.record(stepHolds(rate, run * 100003 + i++))
    }
    const r = search.result()
    const ok =
      r.capacity !== null &&
      Math.abs(r.capacity / truth - 1) <= 0.1 &&
      r.verdict === 'bracketed' &&
      /** @type {number} */ (r.confidence) >= 0.9
    if (ok) met++
  }
  // 94 % of 200 such searches met all three (node benchmarks/capacity-search.js 200 mdc): 17 of 20 leaves margin
  t.ok(met >= 17, `${met} of 20 met the target`)
})
