// The thresholds of the hole scan (lib/analysis/hole-calibration.js)
// measured again: for each interval length and ρ, the 99th percentile of
// the largest |z| over every hole of a steady AR(1) series (Gaussian in
// logarithms), the noise fitted first around one level, then around the
// best hole until it stays, as hole-scan.js refits its candidate.
//   node benchmarks/hole-calibration-table.js [series per cell] [seed]
import { drawCase, makeSeries, seeded } from '../lib/analysis/series-cases.js'
import { noiseOf } from '../lib/analysis/series-noise.js'
import { prewhiten } from '../lib/analysis/change-scan.js'
import { refittedHole, scanHoles } from '../lib/analysis/hole-scan.js'
import { LENGTHS, RHOS, MARGIN } from '../lib/analysis/hole-calibration.js'

const cases = Number(process.argv[2] ?? 1000)
const rand = seeded(Number(process.argv[3] ?? 4242))

/**
 * @param {number} n
 * @param {number} rho
 */
function largestZ(n, rho) {
  const c = drawCase({ shape: 'steady', size: 0, n, rho, noise: 'lognormal', spread: 0.2 }, rand)
  const z = Float64Array.from(makeSeries(c, rand), Math.log)
  const first = noiseOf(z, [0, n])
  const best = scanHoles(prewhiten(z, first.rho, first.scale), 0, n, MARGIN)
  return best ? refittedHole(z, best, MARGIN).z : 0
}

for (const n of LENGTHS) {
  const row = RHOS.map(rho => {
    const values = Array.from({ length: cases }, () => largestZ(n, rho)).sort((a, b) => a - b)
    return Number(values[Math.floor(0.99 * cases)].toFixed(2))
  })
  console.log(JSON.stringify([n, row]))
}
