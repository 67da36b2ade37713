// Whether the generator, not the server, decided a capacity search: the
// steps at the ends of the final bracket judged on the generator's own
// lateness and on a pace not kept while the latencies were fine; the
// result line that states no capacity then.
import t from 'tap'
import { generatorLimit, LATENESS_SHARE } from '../../lib/capacity/generator-limit.js'
import { parseObjective } from '../../lib/capacity/objective.js'
import { resultLine } from '../../lib/capacity/capacity-table.js'

const objectives = [parseObjective('p99<60ms', ['sleep'])]

/**
 * A step as capacity-run.js keeps it, with what the rule reads.
 * @param {number} rate
 * @param {{ held: boolean, latenessUs: number | null, keptPace?: boolean, kept?: boolean }} figures
 * @returns {import('../../lib/capacity/capacity-run.js').CapacityStep}
 */
function step(rate, { held, latenessUs, keptPace = true, kept = held }) {
  return {
    step: 1,
    phase: 'confirm',
    rate,
    seconds: 5,
    achieved: rate,
    done: rate * 5,
    unexpected: 0,
    rowsPerS: 0,
    p50Us: 10000,
    p99Us: kept ? 50000 : 70000,
    lagP99Us: 1000,
    latenessP99Us: latenessUs,
    objectives: [{ objective: 'p99<60ms', valueUs: kept ? 50000 : 70000, kept }],
    keptPace,
    held
  }
}

const result = /** @type {import('../../lib/capacity/search.js').SearchResult} */ ({
  verdict: 'bracketed',
  capacity: 350,
  low: 330,
  high: 370,
  confidence: 0.94,
  lowSteps: { held: 5, steps: 5 },
  highSteps: { held: 0, steps: 5 },
  highestHeld: 330,
  lowestBroken: 370
})

t.test('a generator whose timers are on time: the server decided', async t => {
  const steps = [
    step(100, { held: true, latenessUs: 90000 }), // not an end of the bracket: not counted
    ...[1, 2, 3].map(() => step(330, { held: true, latenessUs: 2000 })),
    ...[1, 2, 3].map(() => step(370, { held: false, latenessUs: 3000 }))
  ]
  t.equal(generatorLimit(steps, result, objectives), null)
})

t.test('timers late by a quarter of the limit or more at the ends: the generator decided', async t => {
  const late = LATENESS_SHARE * 60000
  const steps = [
    ...[1, 2, 3].map(() => step(330, { held: true, latenessUs: late })),
    ...[1, 2, 3].map(() => step(370, { held: false, latenessUs: late + 5000 }))
  ]
  const limit = generatorLimit(steps, result, objectives)
  t.match(limit, { reason: 'lateness', limitUs: 60000, steps: 6 })
  t.ok(/** @type {number} */ (limit?.latenessP99Us) >= late)
  const line = resultLine(result, 'p99<60ms', limit)
  t.match(line, /^capacity: not measured for p99<60ms: the generator was the limit \(its own timers fired/)
  t.notMatch(line, /350/, 'no capacity stated')
})

t.test(
  'steps that fell behind while their latencies kept the objective: the generator could not offer the rate',
  async t => {
    const steps = [
      ...[1, 2, 3].map(() => step(330, { held: true, latenessUs: 1000 })),
      ...[1, 2, 3].map(() => step(370, { held: false, kept: true, keptPace: false, latenessUs: 1000 }))
    ]
    t.match(generatorLimit(steps, result, objectives), { reason: 'pace' })
    t.match(
      resultLine(result, 'p99<60ms', generatorLimit(steps, result, objectives)),
      /did not go out at the rate asked/
    )
    // behind because the server was slow: its latencies broke the objective too
    const slow = steps.map(s => (s.rate === 370 ? step(370, { held: false, keptPace: false, latenessUs: 1000 }) : s))
    t.equal(generatorLimit(slow, result, objectives), null)
  }
)
