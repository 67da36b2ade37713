// How the capacity search behaves without a server, two ways:
//
// - noise bands: the chance that a step at rate r holds falls in a straight
//   line of log r from 1 to 0 across r½ ÷ (1 + b) … r½ × (1 + b); for each
//   band b, many searches with the command's defaults: how often the
//   interval held r½, the mean confidence stated, the steps taken;
// - M/D/c steps: each step an M/D/c queue simulated for the step's settling
//   and measured seconds from empty (as the pacer starts over at each rate),
//   judged on the p99 of the requests that ended in its measured seconds,
//   its length and the bracket's resolution chosen as the command chooses
//   them (lib/capacity/step-length.js);
//   many searches per size against the queue's known capacity
//   (known-answers/capacity-truth.js): within 10 %, settled, confidence of
//   90 % or more, the seconds of steps taken.
//
// The tables of docs/capacity.md.
//   node benchmarks/capacity-search.js [searches] [bands|mdc]
import { CapacitySearch } from '../lib/capacity/search.js'
import { CAPACITY_DEFAULTS } from '../lib/capacity/defaults.js'
import { mulberry32 } from '../lib/results/bootstrap-interval.js'
import { queueCapacity, simulatedSearch } from './known-answers/capacity-truth.js'
import { CAPACITY_CASES } from './known-answers/capacity.js'

const runs = Number(process.argv[2] ?? 2000)
const which = process.argv[3] ?? 'bands'
const { startRate, factor, maxRate, minRate, resolution, repeats, stepS, settleS, maxTimeS } = CAPACITY_DEFAULTS

/** @param {(rate: number, i: number) => boolean} holds @param {number} start */
function searchOn(holds, start = startRate) {
  const search = new CapacitySearch({ startRate: start, factor, maxRate, minRate, resolution, repeats })
  let i = 0
  for (let rate = search.next(); rate !== null; rate = search.next()) {
    if ((i + 1) * (stepS + settleS) > maxTimeS) {
      search.timeUp()
      break
    }
    search.record(holds(rate, i++))
  }
  return search
}

/** @param {number} x */
const pct = x => `${(100 * x).toFixed(1)} %`

if (which === 'bands') {
  const HALF = 4000
  console.log('noise band | interval holds r½ | mean confidence stated | steps | verdicts')
  for (const band of [0, 0.05, 0.1, 0.25, 0.5]) {
    const p = (/** @type {number} */ r) =>
      band === 0 ? (r <= HALF ? 1 : 0) : Math.min(1, Math.max(0, 0.5 - Math.log(r / HALF) / (2 * Math.log(1 + band))))
    let covered = 0
    let stated = 0
    let steps = 0
    /** @type {Record<string, number>} */
    const verdicts = {}
    for (let seed = 1; seed <= runs; seed++) {
      const u = mulberry32(seed)
      const search = searchOn(rate => u() < p(rate))
      const result = search.result()
      if (result.low !== null && result.high !== null && result.low <= HALF && result.high >= HALF) covered++
      stated += result.confidence ?? 0
      steps += search.trials.length
      verdicts[result.verdict] = (verdicts[result.verdict] ?? 0) + 1
    }
    const verdictText = Object.entries(verdicts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
    console.log(
      `±${band * 100} % | ${pct(covered / runs)} | ${pct(stated / runs)} | ` +
        `${(steps / runs).toFixed(0)} | ${verdictText}`
    )
  }
} else {
  console.log('size | truth | within 10 % | bracketed | confidence ≥ 90 % | all three | median error | mean s of steps')
  for (const { clients, sleepMs, limitMs } of CAPACITY_CASES) {
    const serviceMs = sleepMs + 0.25
    const truth = queueCapacity({ servers: clients, serviceMs, quantile: 0.99, limitMs }).rate
    let within = 0
    let bracketed = 0
    let confident = 0
    let all = 0
    let seconds = 0
    /** @type {number[]} */
    const errors = []
    for (let run = 1; run <= runs; run++) {
      const u = mulberry32(run)
      const startRate = Math.round(((clients * 1000) / serviceMs) * (0.1 + 0.4 * u()))
      const simulated = simulatedSearch({ servers: clients, serviceMs, limitMs, startRate, seed: run * 100003 })
      const r = simulated.search.result()
      const error = r.capacity === null ? Infinity : r.capacity / truth - 1
      const ok = [Math.abs(error) <= 0.1, r.verdict === 'bracketed', (r.confidence ?? 0) >= 0.9]
      within += Number(ok[0])
      bracketed += Number(ok[1])
      confident += Number(ok[2])
      all += Number(ok.every(Boolean))
      seconds += simulated.seconds
      errors.push(error)
    }
    errors.sort((a, b) => a - b)
    console.log(
      `c=${clients} D=${serviceMs} ms p99<${limitMs}ms | ${truth.toFixed(0)}/s | ${pct(within / runs)} | ` +
        `${pct(bracketed / runs)} | ${pct(confident / runs)} | ${pct(all / runs)} | ` +
        `${pct(errors[runs >> 1])} | ${(seconds / runs).toFixed(0)}`
    )
  }
}
