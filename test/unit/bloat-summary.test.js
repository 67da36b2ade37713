// The bloat part's row of one major and shape: which figure met the bound,
// and the role that cannot read pg_stats, for which no figure is the answer.
import t from 'tap'
import { summarise, TARGET_POINTS } from '../../benchmarks/known-answers/bloat/summary.js'
import { SHAPES } from '../../benchmarks/known-answers/bloat/shapes.js'

const plain = /** @type {import('../../benchmarks/known-answers/bloat/shapes.js').Shape} */ (SHAPES.find(s => !s.role))
const blind = /** @type {import('../../benchmarks/known-answers/bloat/shapes.js').Shape} */ (SHAPES.find(s => s.role))

/**
 * @param {number} truth @param {number | null} estimate @param {number | null} [onDemand]
 * @returns {import('../../benchmarks/known-answers/bloat/measure.js').Figures}
 */
const fig = (truth, estimate, onDemand = truth) => ({
  truth,
  estimate,
  method: estimate === null ? null : 'estimate',
  onDemand
})

t.test('the estimate within the bound meets it', async t => {
  const row = summarise(18, plain, [{ heap: fig(0.4, 0.43), btrees: [fig(0.1, 0.12), fig(0.2, 0.19)] }])
  t.equal(row.met, true)
  t.equal(row.part, 'bloat')
  t.match(row.scenario, /^PG 18, /)
  t.match(row.error, /worst heap \+3\.0, B-tree \+2\.0 points/)
})

t.test('an estimate off by more is met only by the exact figure shown on demand', async t => {
  const off = 0.1 + (TARGET_POINTS + 1) / 100
  const exact = summarise(17, plain, [{ heap: fig(0.4, 0.41), btrees: [fig(0.1, off), fig(0.2, 0.2)] }])
  t.equal(exact.met, true)
  t.match(exact.error, /B-tree \+6\.0 \(pgstatindex \+0\.0\)/)
  const none = summarise(17, plain, [{ heap: fig(0.4, 0.41), btrees: [fig(0.1, off, null), fig(0.2, 0.2)] }])
  t.equal(none.met, false, 'no exact figure either')
  const absent = summarise(17, plain, [{ heap: fig(0.4, null, null), btrees: [fig(0.1, 0.1), fig(0.2, 0.2)] }])
  t.equal(absent.met, false, 'a shape whose table is readable must have a figure')
})

t.test("the heap's pgstattuple_approx figure is shown beside the others when measured", async t => {
  const heap = { ...fig(0.4, 0.1), approx: 0.42 }
  const row = summarise(13, plain, [{ heap, btrees: [fig(0.1, 0.11), fig(0.2, 0.2)] }])
  t.match(row.error, /worst heap -30\.0 \(pgstattuple \+0\.0, pgstattuple_approx \+2\.0\), B-tree \+1\.0 points/)
  t.equal(row.met, true, 'met by the exact figure')
  const close = summarise(13, plain, [{ heap: { ...fig(0.4, 0.41), approx: 0.4 }, btrees: [fig(0.1, 0.1)] }])
  t.match(close.error, /worst heap \+1\.0 \(pgstattuple_approx \+0\.0\)/)
})

t.test('a role that cannot read pg_stats: met only when no estimate is shown', async t => {
  const none = summarise(16, blind, [{ heap: fig(0.5, null), btrees: [fig(0.5, null), fig(0.5, null)] }])
  t.equal(none.met, true)
  t.equal(none.error, 'no figure shown')
  const guess = summarise(16, blind, [{ heap: fig(0.5, 0.886), btrees: [fig(0.5, null), fig(0.5, null)] }])
  t.equal(guess.met, false)
})

t.test('the shapes: unique names, the quick ones among them', async t => {
  const names = SHAPES.map(s => s.name)
  t.equal(new Set(names).size, names.length)
  const { QUICK_SHAPES } = await import('../../benchmarks/known-answers/bloat/shapes.js')
  t.ok(QUICK_SHAPES.every(name => names.includes(name)))
})
