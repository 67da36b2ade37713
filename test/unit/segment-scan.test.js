// The stretch scan of lib/analysis/segment-scan.js: its O(1) statistic is
// the regression of the prewhitened series on the stretch's pattern, the
// same number a direct least-squares fit gives; the scan finds a planted
// stretch's two ends, and one that runs to the end as a single shift; it
// counts the stretches it scores. No server.
import t from 'tap'
import { prewhiten } from '../../lib/analysis/change-scan.js'
import { scanStretches, stretchCount, stretchZ } from '../../lib/analysis/segment-scan.js'
import { normal, seeded } from '../../lib/analysis/series-cases.js'

/**
 * AR(1) noise of unit innovations, with `shift` added over [a, b).
 * @param {number} n
 * @param {number} rho
 * @param {number} a
 * @param {number} b
 * @param {number} shift
 * @param {number} seed
 */
function series(n, rho, a, b, shift, seed) {
  const rand = seeded(seed)
  const z = new Float64Array(n)
  let e = 0
  for (let i = 0; i < n; i++) {
    e = rho * e + normal(rand)
    z[i] = e + (i >= a && i < b ? shift : 0)
  }
  return z
}

/**
 * The z of the pattern's slope by a direct least-squares fit of y on g and a constant.
 * @param {import('../../lib/analysis/change-scan.js').Prewhitened} p
 * @param {number} from
 * @param {number} to
 * @param {number} a
 * @param {number} b
 */
function directZ(p, from, to, a, b) {
  const g = []
  const y = []
  for (let t = from + 1; t < to; t++) {
    g.push(t === a ? 1 : t > a && t < b ? 1 - p.rho : t === b ? -p.rho : 0)
    y.push(p.y[t])
  }
  const meanG = g.reduce((s, v) => s + v, 0) / g.length
  const meanY = y.reduce((s, v) => s + v, 0) / y.length
  let sxy = 0
  let sxx = 0
  for (let k = 0; k < g.length; k++) {
    sxy += (g[k] - meanG) * (y[k] - meanY)
    sxx += (g[k] - meanG) ** 2
  }
  return sxy / (p.scale * Math.sqrt(sxx))
}

t.test('the statistic is the direct regression on the stretch pattern', async t => {
  const z = series(90, 0.6, 30, 50, 2, 11)
  const p = prewhiten(z, 0.6, 1)
  for (const [from, to, a, b] of [
    [0, 90, 30, 50],
    [5, 80, 20, 70],
    [0, 90, 60, 90],
    [10, 60, 21, 31]
  ]) {
    t.ok(
      Math.abs(stretchZ(p, from, to, a, b) - directZ(p, from, to, a, b)) < 1e-9,
      `[${a}, ${b}) within [${from}, ${to})`
    )
  }
})

t.test('a planted stretch is found by both ends; one to the end as a shift', async t => {
  const hole = scanStretches(prewhiten(series(180, 0.5, 70, 90, -4, 12), 0.5, 1), 0, 180, 10)
  t.ok(hole && Math.abs(hole.a - 70) <= 1 && Math.abs(hole.b - 90) <= 1, `hole at [${hole?.a}, ${hole?.b})`)
  t.ok(hole && hole.z < -5, `its z ${hole?.z.toFixed(1)} is large and negative`)
  const last = scanStretches(prewhiten(series(60, 0.3, 40, 60, -4, 13), 0.3, 1), 0, 60, 10)
  t.ok(last && Math.abs(last.a - 40) <= 1 && last.b === 60, `last stretch at [${last?.a}, ${last?.b})`)
})

t.test('the stretches counted are the stretches scored', async t => {
  for (const n of [20, 35, 90]) {
    let scored = 0
    for (let a = 10; a + 10 <= n; a++) scored += Math.max(0, n - 10 - (a + 10) + 1) + 1
    t.equal(stretchCount(n, 10), scored, `${n} points`)
  }
  t.equal(stretchCount(20, 10), 1, 'the one stretch of 20 points: a shift at 10')
})
