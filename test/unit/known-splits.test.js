// A rate that fell to 0 for seconds on end (a stall the lab saw) is cut at
// the stall's ends and segmented between them: the fall and the return are
// changes however autocorrelated and wide the noise around them, and with
// no cut the segmentation is findChangePoints' own.
import t from 'tap'
import { changePointsWithCuts } from '../../lib/analysis/known-splits.js'
import { findChangePoints } from '../../lib/analysis/change-points.js'
import { seeded, normal } from '../../lib/analysis/series-cases.js'

/**
 * 50 seconds of a rate about 800 with log-normal AR(1) noise (ρ 0.7, 35 %),
 * 0 from holeFrom for holeLength seconds.
 * @param {number} seed
 * @param {number} holeFrom
 * @param {number} holeLength
 */
function stalledRate(seed, holeFrom, holeLength) {
  const rand = seeded(seed)
  const values = []
  let e = 0
  for (let i = 0; i < 50; i++) {
    e = 0.7 * e + Math.sqrt(1 - 0.49) * 0.35 * normal(rand)
    values.push(i >= holeFrom && i < holeFrom + holeLength ? 0 : Math.round(800 * Math.exp(e)))
  }
  return values
}

t.test('a stall cut out of the rate is a fall and a return, in every seeded series', async t => {
  let found = 0
  let foundWithout = 0
  const cases = 200
  for (let seed = 1; seed <= cases; seed++) {
    const from = 10 + (seed % 20)
    const length = 3 + (seed % 12)
    const values = stalledRate(seed, from, length)
    const { changes, segments } = changePointsWithCuts(values, [from, from + length], { minEffect: 0.2 })
    const fall = changes.find(c => c.index === from && c.effect <= -0.99)
    const back = changes.find(c => c.index === from + length && c.before.median === 0 && c.after.median > 0)
    if (fall && back) found++
    if (segments[0].from !== 0 || segments[segments.length - 1].to !== values.length)
      t.fail('segments cover the series')
    for (let i = 1; i < segments.length; i++) if (segments[i].from !== segments[i - 1].to) t.fail('no gap')
    const plain = findChangePoints(values, { minEffect: 0.2 }).changes
    if (plain.some(c => Math.abs(c.index - from) <= 1)) foundWithout++
  }
  t.equal(found, cases, `the fall and the return found in all ${cases}`)
  t.ok(foundWithout < cases, `(without the cuts the fall was found in ${foundWithout})`)
})

t.test('no cut: findChangePoints itself', async t => {
  const values = stalledRate(7, 20, 11).map(v => (v === 0 ? 700 : v))
  t.same(changePointsWithCuts(values, [], {}), findChangePoints(values, {}))
  t.same(changePointsWithCuts(values, [0, 50, 99], {}), findChangePoints(values, {}), 'cuts at the ends are no cuts')
})

t.test('a piece with no value leaves no gap', async t => {
  const values = /** @type {Array<number | null>} */ (stalledRate(3, 20, 5))
  for (let i = 20; i < 25; i++) values[i] = null
  const { segments, changes } = changePointsWithCuts(values, [20, 25], {})
  t.equal(segments[0].from, 0)
  t.equal(segments[segments.length - 1].to, values.length)
  for (let i = 1; i < segments.length; i++) t.equal(segments[i].from, segments[i - 1].to, 'no gap')
  t.notOk(
    changes.some(c => c.pValue === 0 && Math.abs(c.effect) < 0.2),
    'a cut whose sides do not differ is no change'
  )
})
