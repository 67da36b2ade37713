// How the capacity search's interval behaves on a noisy boundary, without a
// server: the chance that a step at rate r holds falls in a straight line
// of log r from 1 to 0 across r½ ÷ (1 + b) … r½ × (1 + b); for each noise
// band b, many searches with the command's defaults. Prints how often the
// interval held r½, the mean confidence stated, and the steps taken: the
// table of docs/capacity.md.
//   node benchmarks/capacity-search.js [searches]
import { CapacitySearch } from '../lib/capacity/search.js'
import { CAPACITY_DEFAULTS } from '../lib/capacity/defaults.js'
import { mulberry32 } from '../lib/results/bootstrap-interval.js'

const runs = Number(process.argv[2] ?? 2000)
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
    const { startRate, factor, maxRate, minRate, resolution, repeats } = CAPACITY_DEFAULTS
    const search = new CapacitySearch({ startRate, factor, maxRate, minRate, resolution, repeats })
    for (let rate = search.next(); rate !== null; rate = search.next()) search.record(u() < p(rate))
    const result = search.result()
    if (result.low !== null && result.high !== null && result.low <= HALF && result.high >= HALF) covered++
    stated += result.confidence ?? 0
    steps += search.trials.length
    verdicts[result.verdict] = (verdicts[result.verdict] ?? 0) + 1
  }
  const pct = (/** @type {number} */ x) => `${((100 * x) / runs).toFixed(1)} %`
  console.log(
    `±${band * 100} % | ${pct(covered)} | ${pct(stated)} | ${(steps / runs).toFixed(0)} | ${Object.entries(verdicts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`
  )
}
