// The verdicts between runs (lib/compare/verdicts.js) on per-repetition
// values whose difference is known: Welch's interval decides, not whether
// the bootstrap intervals overlap; counts that may be 0 are compared by
// the difference of their means; fewer than 3 repetitions give no verdict.
import t from 'tap'
import { compareFigures, VERDICT_METHOD } from '../../lib/compare/verdicts.js'

/** @type {import('../../lib/compare/figures.js').Figure[]} */
const FIGURES = [
  { key: 'throughput', group: 'load', label: 'throughput, req/s', unit: 'rate', better: 'higher' },
  { key: 'vacuums', group: 'server', label: 'vacuums', unit: 'count', better: null }
]

/**
 * An entry whose figures are the mean of its repetitions.
 * @param {Record<string, number[]>} repetitions
 * @returns {import('../../lib/compare/figures.js').EntryFigures}
 */
function entry(repetitions) {
  const values = Object.fromEntries(
    Object.entries(repetitions).map(([key, xs]) => [key, xs.reduce((a, b) => a + b, 0) / xs.length])
  )
  return { values, repetitions, types: [], autovacuum_sources: [] }
}

t.test("a verdict only where Welch's interval excludes no difference", async t => {
  const a = entry({ throughput: [800, 810, 820], vacuums: [0, 0, 0] })
  const b = entry({ throughput: [1000, 1010, 1020], vacuums: [2, 2, 3] })
  const { throughput, vacuums } = compareFigures(FIGURES, a, b)
  t.equal(throughput.verdict, 'better', 'a higher rate, far beyond the noise')
  t.match(throughput.effect, { kind: 'ratio', none: 1, n: [3, 3] })
  t.ok(Number(throughput.effect?.low) > 1, `its interval lies above 1: ${throughput.effect?.low}`)
  t.equal(vacuums.effect?.kind, 'difference', 'a count of 0: the difference of the means')
  t.equal(vacuums.effect?.estimate, Math.round((7 / 3) * 1e4) / 1e4)
  t.equal(vacuums.verdict, 'higher', 'a count neither better nor worse: higher')
})

t.test('bootstrap intervals apart are not enough', async t => {
  // 800-1000 against 1010-1200: the min - max ranges (the bootstrap intervals of 3) miss each other, as two
  // ranges of values drawn alike do in 10 % of cases
  const a = entry({ throughput: [800, 900, 1000] })
  const b = entry({ throughput: [1010, 1100, 1200] })
  const { throughput } = compareFigures(FIGURES.slice(0, 1), a, b)
  t.ok(
    Number(throughput.interval?.[0]) > Number(throughput.baseline_interval?.[1]),
    `the bootstrap intervals do not overlap: ${throughput.baseline_interval} and ${throughput.interval}`
  )
  t.equal(throughput.verdict, 'cannot tell apart', "Welch's interval holds 1")
  t.ok(Number(throughput.effect?.low) < 1 && Number(throughput.effect?.high) > 1)
  t.match(VERDICT_METHOD.verdict, /Welch's 95 % interval/, 'the method says so')
})

t.test('fewer than 3 repetitions, or a figure not recorded: no verdict', async t => {
  const a = entry({ throughput: [800, 810, 820] })
  const two = compareFigures(FIGURES.slice(0, 1), a, entry({ throughput: [400, 410] })).throughput
  t.same([two.verdict, two.effect], ['no interval', null])
  const none = compareFigures(FIGURES.slice(1), a, entry({ vacuums: [1, 1, 1] })).vacuums
  t.same([none.verdict, none.effect], ['n/a', null])
})
