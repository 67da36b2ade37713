// The thresholds of lib/analysis/change-calibration.js measured again: for
// each scan length and ρ, the 99th percentile of the largest |z| of one
// scan of a steady AR(1) series (Gaussian in logarithms), the noise fitted
// first around one level, then around the best split, and the scan
// repeated, as change-points.js refits a candidate.
//   node benchmarks/change-calibration-table.js [series per cell] [seed]
import { drawCase, makeSeries, seeded } from '../lib/analysis/series-cases.js'
import { noiseOf } from '../lib/analysis/series-noise.js'
import { prewhiten, scanInterval } from '../lib/analysis/change-scan.js'

const cases = Number(process.argv[2] ?? 3000)
const rand = seeded(Number(process.argv[3] ?? 31337))
const MARGIN = 10

/**
 * @param {number} n
 * @param {number} rho
 */
function largestZ(n, rho) {
  const c = drawCase({ shape: 'steady', size: 0, n, rho, noise: 'lognormal', spread: 0.2 }, rand)
  const z = Float64Array.from(makeSeries(c, rand), Math.log)
  const first = noiseOf(z, [0, n])
  const best = scanInterval(prewhiten(z, first.rho, first.scale), 0, n, MARGIN)
  const refit = noiseOf(z, [0, best?.at ?? n, n])
  return Math.abs(scanInterval(prewhiten(z, refit.rho, refit.scale), 0, n, MARGIN)?.z ?? 0)
}

for (const n of [20, 30, 40, 60, 90, 120, 180, 240, 480, 960]) {
  const row = [0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95].map(rho => {
    const values = Array.from({ length: cases }, () => largestZ(n, rho)).sort((a, b) => a - b)
    return Number(values[Math.floor(0.99 * cases)].toFixed(2))
  })
  console.log(JSON.stringify([n, row]))
}
