// The known answer of a capacity search on a server whose every request
// takes a fixed time D over c connections (`SELECT pg_sleep(d)` behind
// `-c c`): the open loop's c clients take the next arrival of the schedule
// as each comes free, first come first served, and a request's latency
// counts from its intended start, so the load is a queue with c servers.
// With Poisson arrivals (the capacity command's, `--arrival poisson`, the
// default) that is an M/D/c queue; with evenly spaced ones (`--arrival
// fixed`) a D/D/c queue, which never waits below c / D.
//
// The answer is the highest arrival rate λ whose percentile of response
// time stays under the objective, found by simulating a few hundred
// thousand arrivals at each λ tried and bisecting on λ. The arrivals are
// the same unit-mean gaps at every λ (scaled by 1/λ), so the simulated
// percentile rises with λ and the bisection is clean.
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { CapacitySearch } from '../../lib/capacity/search.js'
import { CAPACITY_DEFAULTS } from '../../lib/capacity/defaults.js'
import { parseObjectives } from '../../lib/capacity/objective.js'
import { measuredSeconds, tailShare, withNoisyResolution } from '../../lib/capacity/step-length.js'

/**
 * @typedef {object} Queue
 * @property {number} servers      c
 * @property {number} serviceMs    D: the sleep plus the round trip of an empty query
 * @property {'poisson' | 'fixed'} [arrival]  default poisson
 * @property {number[]} [serviceSamples]  measured service times (ms): drawn from at random (an M/G/c queue)
 *   instead of the fixed D
 */

/**
 * Response times (ms) of n arrivals at `rate` per second, first come first
 * served on c servers with a fixed service time: arrival k starts when it
 * comes or when arrival k − c ends, whichever is later (with a fixed
 * service time the servers free up in the order they were taken).
 * @param {Queue & { rate: number, gaps: Float64Array, seed?: number }} options   gaps: unit-mean inter-arrival gaps
 * @returns {Float64Array}
 */
export function responseTimes({ servers, serviceMs, rate, gaps, serviceSamples, seed = 1 }) {
  if (serviceSamples) return generalResponseTimes({ servers, rate, gaps, serviceSamples, seed })
  const n = gaps.length
  const out = new Float64Array(n)
  const ends = new Float64Array(n)
  const meanGapMs = 1000 / rate
  let at = 0
  for (let k = 0; k < n; k++) {
    at += gaps[k] * meanGapMs
    const start = k >= servers ? Math.max(at, ends[k - servers]) : at
    ends[k] = start + serviceMs
    out[k] = ends[k] - at
  }
  return out
}

/**
 * Response times with service times drawn from samples: each arrival takes
 * the server that frees first, first come first served.
 * @param {{ servers: number, rate: number, gaps: Float64Array, serviceSamples: number[], seed: number }} options
 */
function generalResponseTimes({ servers, rate, gaps, serviceSamples, seed }) {
  const u = mulberry32(seed ^ 0x5bd1e995)
  const free = new Float64Array(servers)
  const out = new Float64Array(gaps.length)
  const meanGapMs = 1000 / rate
  let at = 0
  for (let k = 0; k < gaps.length; k++) {
    at += gaps[k] * meanGapMs
    let first = 0
    for (let s = 1; s < servers; s++) if (free[s] < free[first]) first = s
    const end = Math.max(at, free[first]) + serviceSamples[Math.floor(u() * serviceSamples.length)]
    free[first] = end
    out[k] = end - at
  }
  return out
}

/**
 * Unit-mean gaps: exponential (Poisson arrivals) or all 1 (fixed).
 * @param {number} n
 * @param {number} seed
 * @param {'poisson' | 'fixed'} arrival
 */
export function unitGaps(n, seed, arrival = 'poisson') {
  const gaps = new Float64Array(n)
  const u = mulberry32(seed)
  for (let k = 0; k < n; k++) gaps[k] = arrival === 'fixed' ? 1 : -Math.log(1 - u())
  return gaps
}

/**
 * The q-quantile of response times, the first tenth (the queue filling from empty) left out.
 * @param {Float64Array} times
 * @param {number} quantile
 */
export function steadyQuantile(times, quantile) {
  const kept = times.slice(Math.floor(times.length / 10)).sort()
  return kept[Math.min(kept.length - 1, Math.floor(quantile * kept.length))]
}

/**
 * The highest rate whose percentile of response time stays under the limit.
 * @param {Queue & { quantile: number, limitMs: number, arrivals?: number, seed?: number }} options
 * @returns {{ rate: number, stable: number, quantileMsAt: number }}  rate: the answer; stable: c / D
 */
export function queueCapacity({
  servers,
  serviceMs,
  serviceSamples,
  arrival = 'poisson',
  quantile,
  limitMs,
  arrivals = 400000,
  seed = 1
}) {
  const stable = (servers * 1000) / serviceMs
  const gaps = unitGaps(arrivals, seed, arrival)
  const at = (/** @type {number} */ rate) =>
    steadyQuantile(responseTimes({ servers, serviceMs, serviceSamples, rate, gaps, seed }), quantile)
  // the percentile of the service alone, when the server is never busy
  const floor = serviceSamples ? at(stable * 1e-4) : serviceMs
  if (floor >= limitMs) return { rate: 0, stable, quantileMsAt: floor }
  // below stability the queue may still hold the percentile; above it, it never does for long
  let low = stable * 0.01
  let high = stable
  if (at(high * 0.9999) < limitMs) return { rate: stable, stable, quantileMsAt: at(high * 0.9999) }
  while (high / low > 1.0005) {
    const mid = Math.sqrt(low * high)
    if (at(mid) < limitMs) low = mid
    else high = mid
  }
  return { rate: low, stable, quantileMsAt: at(low) }
}

/**
 * Whether one simulated step of the capacity search holds its objective: the
 * p99 of the requests that end within the step (after its settling time), on
 * an M/D/c queue at the rate, stays under the limit.
 * @param {{ servers: number, serviceMs: number, rate: number, seed: number,
 *   settleS: number, stepS: number, limitMs: number }} step
 */
export function simulatedStepHolds({ servers, serviceMs, rate, seed, settleS, stepS, limitMs }) {
  const n = Math.ceil(rate * (settleS + stepS) * 1.3) + 20
  const gaps = unitGaps(n, seed)
  const times = responseTimes({ servers, serviceMs, rate, gaps })
  /** @type {number[]} */
  const measured = []
  let at = 0
  for (let k = 0; k < n; k++) {
    at += (gaps[k] * 1000) / rate
    const end = at + times[k]
    if (end >= settleS * 1000 && end < (settleS + stepS) * 1000) measured.push(times[k])
  }
  measured.sort((a, b) => a - b)
  return measured[Math.min(measured.length - 1, Math.floor(0.99 * measured.length))] < limitMs
}

/**
 * One search of `pgloadgen capacity`'s method, with its defaults and time
 * limit, on simulated steps of an M/D/c queue (simulatedStepHolds): each
 * step's measured length and the bracket's resolution chosen as the command
 * chooses them (lib/capacity/step-length.js).
 * @param {{ servers: number, serviceMs: number, limitMs: number, startRate: number, seed: number }} options
 * @returns {{ search: CapacitySearch, seconds: number }}  seconds: of steps, settling included
 */
export function simulatedSearch({ servers, serviceMs, limitMs, startRate, seed }) {
  const { factor, maxRate, minRate, resolution, repeats, stepS, settleS, maxTimeS } = CAPACITY_DEFAULTS
  const tail = tailShare(parseObjectives(`p99<${limitMs}ms`, undefined))
  const options = { startRate, factor, maxRate, minRate, resolution, repeats }
  const search = new CapacitySearch(withNoisyResolution(options, tail, stepS))
  let seconds = 0
  let i = 0
  for (let rate = search.next(); rate !== null; rate = search.next()) {
    const remainingS = maxTimeS - seconds
    const measured = measuredSeconds({ rate, tail, stepS, settleS, remainingS, stepsLeft: search.stepsLeft() })
    if (settleS + measured > remainingS) {
      search.timeUp()
      break
    }
    seconds += settleS + measured
    search.record(simulatedStepHolds({ servers, serviceMs, rate, seed: seed + i++, settleS, stepS: measured, limitMs }))
  }
  return { search, seconds }
}
