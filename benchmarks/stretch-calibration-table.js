// The stretch thresholds of lib/analysis/change-calibration.js measured
// again: for each scan length and ρ, the 99th percentile of the largest |z|
// of one scan for a stretch that leaves and comes back (segment-scan.js) on
// a steady AR(1) series (Gaussian in logarithms), the noise fitted first
// around one level, then around the best stretch, and the scan repeated,
// as change-points.js refits a candidate.
//   node benchmarks/stretch-calibration-table.js [series per cell] [seed]
import { drawCase, makeSeries, seeded } from '../lib/analysis/series-cases.js'
import { noiseOf } from '../lib/analysis/series-noise.js'
import { prewhiten } from '../lib/analysis/change-scan.js'
import { scanStretches } from '../lib/analysis/segment-scan.js'
import { STRETCH_LENGTHS, RHOS } from '../lib/analysis/change-calibration.js'

const cases = Number(process.argv[2] ?? 3000)
const rand = seeded(Number(process.argv[3] ?? 41337))
const MARGIN = 10

/**
 * @param {number} n
 * @param {number} rho
 */
function largestZ(n, rho) {
  const c = drawCase({ shape: 'steady', size: 0, n, rho, noise: 'lognormal', spread: 0.2 }, rand)
  const z = Float64Array.from(makeSeries(c, rand), Math.log)
  const first = noiseOf(z, [0, n])
  const best = scanStretches(prewhiten(z, first.rho, first.scale), 0, n, MARGIN)
  const bounds = [...new Set([0, best?.a ?? n, best?.b ?? n, n])].sort((a, b) => a - b)
  const refit = noiseOf(z, bounds)
  return Math.abs(scanStretches(prewhiten(z, refit.rho, refit.scale), 0, n, MARGIN)?.z ?? 0)
}

for (const n of STRETCH_LENGTHS) {
  const row = RHOS.map(rho => {
    const values = Array.from({ length: cases }, () => largestZ(n, rho)).sort((a, b) => a - b)
    return Number(values[Math.floor(0.99 * cases)].toFixed(2))
  })
  console.log(JSON.stringify([n, row]))
}
