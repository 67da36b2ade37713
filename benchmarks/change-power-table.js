// The power table of docs/change-points.md: per shape, noise and spread,
// for each ρ, the method's power and the oracle's (series found of those
// run) and the false-positive rate of steady series of the same setting;
// the oracle at the method's pooled false-positive rate.
//   node benchmarks/change-power-table.js [series per setting] [seed]
import os from 'node:os'
import { NOISES, RHOS, SHAPES, SPREADS, powerOf, steadyRate } from '../lib/analysis/series-power.js'

const cases = Number(process.argv[2] ?? 100)
let seed = Number(process.argv[3] ?? 3400)
console.log(`${os.cpus()[0]?.model}, load average ${os.loadavg()[0].toFixed(1)}, ${new Date().toISOString()}`)
/** @type {Map<string, number>} */
const steady = new Map()
let pooled = 0
for (const n of [60, 120, 180]) {
  for (const noise of NOISES) {
    for (const spread of SPREADS) {
      for (const rho of RHOS) {
        const rate = steadyRate({ n, rho, noise, spread }, cases, seed++)
        steady.set(`${n} ${noise} ${spread} ${rho}`, rate)
        pooled += rate / (3 * NOISES.length * SPREADS.length * RHOS.length)
      }
    }
  }
}
const oracleRate = Math.max(0.005, pooled)
console.log(`oracle at ${(100 * oracleRate).toFixed(1)} % false positives; ${cases} series per cell`)
console.log(`\n| shape | noise | spread | ${RHOS.map(r => `ρ ${r}`).join(' | ')} |`)
console.log(`| --- | --- | --- | ${RHOS.map(() => '---').join(' | ')} |`)
for (const s of SHAPES) {
  for (const noise of NOISES) {
    for (const spread of SPREADS) {
      const cells = RHOS.map(rho => {
        const r = powerOf({ ...s, rho, noise, spread }, cases, seed++, oracleRate)
        const ratio = r.oracle > 0 ? `${Math.round((100 * r.found) / r.oracle)} %` : '–'
        const fp = (100 * (steady.get(`${s.n} ${noise} ${spread} ${rho}`) ?? NaN)).toFixed(0)
        return `${r.found}/${r.oracle} (${ratio}; fp ${fp} %)`
      })
      const label = `${s.shape} ${s.size > 0 ? '+' : ''}${Math.round(100 * s.size)} %, ${s.n} s`
      console.log(`| ${label} | ${noise} | ${Math.round(100 * spread)} % | ${cells.join(' | ')} |`)
    }
  }
}
