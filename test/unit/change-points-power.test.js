// findChangePoints against known answers (lib/analysis/series-cases.js): a
// seeded subset of the known-answer suite's series, so the figures are the
// same on every run and machine. Steady AR(1) series must rarely report a
// change; clear changes must be found within 5 s; the method's power is
// held against the oracle's where that target is met (independent noise),
// and on the held-out shapes of the earlier method's failures to at least
// its figures (margins below the measured counts: docs/change-points.md).
// docs/change-points.md. No server.
import t from 'tap'
import { powerOf, steadyRate, WITHIN } from '../../lib/analysis/series-power.js'

const FIGURES = /** @type {string[]} */ ([])
t.teardown(() => {
  for (const line of FIGURES) t.comment(line)
})

t.test('steady series rarely report a change, Gaussian or log-normal, ρ up to 0.8', async t => {
  let reported = 0
  let run = 0
  let seed = 7100
  for (const noise of /** @type {const} */ (['gaussian', 'lognormal'])) {
    for (const rho of [0, 0.5, 0.8]) {
      const rate = steadyRate({ n: 120, rho, noise, spread: 0.35 }, 100, seed++)
      reported += Math.round(rate * 100)
      run += 100
    }
  }
  FIGURES.push(`steady: ${reported} of ${run} series with a change`)
  t.ok(reported / run <= 0.02, `${reported} of ${run} steady series with a change: at most 2 %`)
})

t.test('changes of 30 % and more, five long-run standard errors and more, are found within 5 s', async t => {
  let clear = 0
  let found = 0
  let seed = 7200
  for (const [shape, size, n] of /** @type {const} */ ([
    ['step', -0.3, 120],
    ['step', 0.5, 120],
    ['hole', -0.5, 180],
    ['step-decline', -0.55, 180]
  ])) {
    for (const rho of [0, 0.3]) {
      const r = powerOf({ shape, size, n, rho, noise: 'lognormal', spread: 0.2 }, 30, seed++, 0.01)
      clear += r.clear
      found += r.clearFound
    }
  }
  FIGURES.push(`clear changes (ρ ≤ 0.3): ${found} of ${clear} found within ${WITHIN} s`)
  t.ok(clear >= 200, `${clear} clear changes drawn`)
  t.ok(found / clear >= 0.95, `${found} of ${clear} found within ${WITHIN} s: at least 95 %`)
})

t.test('power at least 90 % of the oracle’s in independent noise of 20 %', async t => {
  let seed = 7300
  for (const noise of /** @type {const} */ (['gaussian', 'lognormal'])) {
    const r = powerOf({ shape: 'step', size: -0.3, n: 120, rho: 0, noise, spread: 0.2 }, 60, seed++, 0.01)
    FIGURES.push(`30 % drop, independent ${noise} noise: ${r.found} found, the oracle ${r.oracle}, of 60`)
    t.ok(r.found >= 0.9 * r.oracle, `${noise}: ${r.found} against the oracle's ${r.oracle}`)
  }
})

// The held-out shapes (20 % spread, the drop at mid-run), seeds of
// this test's own: the earlier method found 68, 11, 59 and 12 of 100.
t.test('held-out shapes: found more often than by the earlier method', async t => {
  let seed = 8101
  for (const [shape, size, rho, n, least, earlier] of /** @type {const} */ ([
    ['step', -0.3, 0.5, 120, 35, 68],
    ['step', -0.3, 0.8, 120, 10, 11],
    ['step', -0.5, 0.7, 120, 45, 59],
    ['last-drop', -0.3, 0.5, 60, 12, 12]
  ])) {
    const r = powerOf({ shape, size, n, rho, noise: 'gaussian', spread: 0.2, at: n / 2 }, 50, seed++, 0.01)
    FIGURES.push(
      `held out, ${shape} ${size} at ρ ${rho}: ${r.found} of 50 (the oracle ${r.oracle}; earlier ${earlier} of 100)`
    )
    t.ok(r.found >= least, `${shape} ${size}, ρ ${rho}: ${r.found} of 50, at least ${least}`)
  }
})
