// The capacity search without a server: its climb, bisection and
// confirmation on made-up outcomes (a sharp boundary, a noisy one, one
// below the start, none below the maximum), the sign-test confidence, the
// objectives' parsing and judging, a step's length and the bracket's
// resolution from the requests beyond the percentile, a step measured from
// recorded latencies, and the result line.
import t from 'tap'
import { CapacitySearch, signTail, roundRate } from '../../lib/capacity/search.js'
import { parseObjective, parseObjectives, keeps } from '../../lib/capacity/objective.js'
import { markStep, measureStep } from '../../lib/capacity/step-measure.js'
import { resultLine, stepsTable } from '../../lib/capacity/capacity-table.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'
import { InputError } from '../../lib/errors.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { measuredSeconds, noisyResolution, tailShare, withNoisyResolution } from '../../lib/capacity/step-length.js'

const DEFAULTS = { startRate: 100, factor: 2, maxRate: 1e6, minRate: 1, resolution: 0.1, repeats: 5 }

/**
 * Runs a search to its end against an outcome function of the rate.
 * @param {import('../../lib/capacity/search.js').SearchOptions} options
 * @param {(rate: number, i: number) => boolean} holds
 */
function search(options, holds) {
  const s = new CapacitySearch(options)
  for (let rate = s.next(), i = 0; rate !== null; rate = s.next(), i++) s.record(holds(rate, i))
  return s
}

t.test('a sharp boundary is bracketed within the resolution, with a 93 % interval', async t => {
  const s = search(DEFAULTS, rate => rate <= 8200)
  const r = s.result()
  t.equal(r.verdict, 'bracketed')
  t.ok(/** @type {number} */ (r.low) <= 8200 && /** @type {number} */ (r.high) > 8200, `8200 in [${r.low}, ${r.high}]`)
  t.ok(/** @type {number} */ (r.high) / /** @type {number} */ (r.low) <= 1.1 + 1e-9, 'within 10 %')
  t.equal(
    r.capacity,
    roundRate(Math.sqrt(/** @type {number} */ (r.low) * /** @type {number} */ (r.high))),
    'the middle'
  )
  t.same(r.lowSteps, { held: 5, steps: 5 })
  t.same(r.highSteps, { held: 0, steps: 5 })
  t.equal(r.confidence, 1 - 2 / 32, '5 of 5 at each end')
  t.equal(r.highestHeld, r.low)
  t.equal(r.lowestBroken, r.high)
  t.same(
    s.trials.slice(0, 8).map(x => x.rate),
    [100, 200, 400, 800, 1600, 3200, 6400, 12800],
    'climbs by doubling'
  )
  t.ok(s.trials.length < 30, `${s.trials.length} steps`)
})

t.test('a first step that breaks goes down until one holds', async t => {
  const r = search(DEFAULTS, rate => rate < 30).result()
  t.equal(r.verdict, 'bracketed')
  t.ok(/** @type {number} */ (r.low) < 30 && /** @type {number} */ (r.high) >= 30, `[${r.low}, ${r.high}]`)
})

t.test('nothing holds: below the minimum rate', async t => {
  const s = search(DEFAULTS, () => false)
  const r = s.result()
  t.equal(r.verdict, 'below_min')
  t.equal(r.capacity, null)
  t.ok(/** @type {number} */ (r.lowestBroken) >= 1)
  t.match(resultLine(r, 'p99<10ms'), /^capacity: below [\d.]+ requests\/s for p99<10ms/)
})

t.test('everything holds: above the maximum rate', async t => {
  const r = search({ ...DEFAULTS, maxRate: 1000 }, () => true).result()
  t.equal(r.verdict, 'above_max')
  t.equal(r.capacity, 1000)
  t.match(resultLine(r, 'p99<10ms'), /above 1000 requests\/s/)
})

t.test('a lower end that mostly breaks when tried again moves the bracket down', async t => {
  // holds up to 5000 the first time each rate is tried, only up to 4000 after
  const seen = new Map()
  const s = search(DEFAULTS, rate => {
    const n = (seen.get(rate) ?? 0) + 1
    seen.set(rate, n)
    return n === 1 ? rate <= 5000 : rate <= 4000
  })
  const r = s.result()
  t.equal(r.verdict, 'bracketed')
  t.ok(/** @type {number} */ (r.low) <= 4000 && /** @type {number} */ (r.high) > 4000, `[${r.low}, ${r.high}]`)
  t.ok(s.shifts >= 1)
})

t.test('an end whose steps split goes out a notch, and the new end needs one step more', async t => {
  // holds up to 7000; between 7000 and 7700 every other time; above, never
  const seen = new Map()
  const s = search(DEFAULTS, rate => {
    const n = (seen.get(rate) ?? 0) + 1
    seen.set(rate, n)
    return rate <= 7000 || (rate <= 7700 && n % 2 === 1)
  })
  const r = s.result()
  t.equal(r.verdict, 'bracketed')
  t.ok(/** @type {number} */ (r.low) <= 7000, `low ${r.low}`)
  t.ok(/** @type {number} */ (r.high) > 7700, `high ${r.high}`)
  t.ok(s.shifts >= 1, `${s.shifts} moves`)
  const widened = s.lowEnds.size > 1 ? r.lowSteps : r.highSteps
  t.ok(/** @type {{ steps: number }} */ (widened).steps >= 6, 'a second rate at an end takes 6 steps')
  // each end's share of the error stays under 1/32: the confidence under the union bound is still ≥ 93 %
  t.ok(/** @type {number} */ (r.confidence) >= 1 - 2 / 32 - 1e-9, `confidence ${r.confidence}`)
  const mid = Math.sqrt(/** @type {number} */ (r.low) * /** @type {number} */ (r.high))
  t.ok(mid > 7000 / 1.1 && mid < 7700 * 1.1, `capacity ${r.capacity}`)
})

t.test('a noisy boundary: the confidence stated is not above how often the interval holds the rate', async t => {
  // p(r), the chance that a step at rate r holds, falls from 1 to 0 in a
  // straight line of log r across 4000 ÷ 1.05 … 4000 × 1.05, ½ at 4000
  const p = (/** @type {number} */ rate) => Math.min(1, Math.max(0, 0.5 - Math.log(rate / 4000) / (2 * Math.log(1.05))))
  let covered = 0
  let stated = 0
  const runs = 300
  for (let seed = 1; seed <= runs; seed++) {
    const u = mulberry32(seed)
    const r = search(DEFAULTS, rate => u() < p(rate)).result()
    if (r.low !== null && r.high !== null && r.low <= 4000 && r.high >= 4000) covered++
    stated += r.confidence ?? 0
  }
  t.ok(
    stated / runs <= covered / runs + 0.02,
    `mean confidence ${(stated / runs).toFixed(3)}, coverage ${(covered / runs).toFixed(3)}`
  )
  t.ok(covered / runs >= 0.9, 'the interval holds the half-way rate in most runs')
})

t.test('a search that never settles ends as unsettled, within its trials', async t => {
  const s = search({ ...DEFAULTS, maxTrials: 50 }, (_rate, i) => i % 2 === 0)
  t.ok(s.trials.length <= 50)
  t.ok(['unsettled', 'bracketed', 'below_min', 'above_max'].includes(s.result().verdict))
})

t.test('a server that slows down for good during the search: unsettled, not a capacity below the minimum', async t => {
  // holds up to 5000 for its first 12 steps, then nothing holds any more
  const s = search(DEFAULTS, (rate, i) => i < 12 && rate <= 5000)
  const r = s.result()
  t.equal(r.verdict, 'unsettled')
  t.equal(r.capacity, null)
  t.ok(/** @type {number} */ (r.highestHeld) >= 4000, `highest held ${r.highestHeld}`)
  t.match(
    resultLine(r, 'p99<10ms'),
    /^capacity: unsettled for p99<10ms: rates that held earlier broke later \(highest held \d+, lowest broken [\d.]+ requests\/s\)/
  )
})

t.test('stopped before the end: what is known', async t => {
  const s = new CapacitySearch(DEFAULTS)
  s.record(true)
  s.record(true)
  s.stop()
  t.equal(s.next(), null)
  const r = s.result()
  t.equal(r.verdict, 'stopped')
  t.equal(r.capacity, null)
  t.equal(r.highestHeld, 200)
  t.match(resultLine(r, 'p99<10ms'), /not found/)
  t.throws(() => s.record(true), /no step/)
})

t.test('the sign test', async t => {
  t.equal(signTail(6, 6), 1 / 64)
  t.equal(signTail(0, 6), 1)
  t.equal(signTail(5, 6), 7 / 64)
  t.equal(signTail(3, 3), 1 / 8)
  t.equal(signTail(0, 0), 1)
})

t.test('rates are rounded as a person writes them', async t => {
  t.equal(roundRate(8237.4), 8240)
  t.equal(roundRate(123456), 123000)
  t.equal(roundRate(141.42), 141)
  t.equal(roundRate(70.7107), 70.7)
  t.equal(roundRate(0.123456), 0.123)
})

t.test('objectives: the grammar of --threshold, upper bounds on latencies only', async t => {
  const types = ['insert_row', 'read_row']
  t.match(parseObjective('p99<10ms', types), { type: null, figure: 'latency', quantile: 0.99, op: '<', limitUs: 10000 })
  t.match(parseObjective('insert_row:p95<=2ms', types), { type: 'insert_row', quantile: 0.95, op: '<=', limitUs: 2000 })
  t.match(parseObjective('lag_p99 < 50ms', types), {
    figure: 'lag',
    quantile: 0.99,
    limitUs: 50000,
    text: 'lag_p99<50ms'
  })
  t.match(parseObjective('max<1s', types), { quantile: 1, limitUs: 1e6 })
  t.equal(parseObjectives('p99<10ms,lag_p99<50ms', types).length, 2)
  t.equal(parseObjectives(['p99<10ms', 'p50<1ms'], types).length, 2)
  for (const bad of [
    'p99>10ms',
    'throughput<5000',
    'nope:p99<1ms',
    'p99<10',
    'p99',
    'insert_row:lag_p99<1ms',
    'audit==exact',
    'mean<2ms'
  ]) {
    t.throws(() => parseObjective(bad, types), InputError, bad)
  }
  t.throws(() => parseObjectives(undefined, types), InputError, 'none given')
  const o = parseObjective('p99<10ms', types)
  t.equal(keeps(o, 9999), true)
  t.equal(keeps(o, 10000), false)
  t.equal(keeps(o, null), false, 'nothing measured does not hold')
})

t.test('a step long enough for its percentile: at least --step, at most twice, within the time left', async t => {
  const tail = tailShare(parseObjectives(['p99<100ms', 'lag_p95<1s'], undefined))
  t.ok(Math.abs(/** @type {number} */ (tail) - 0.01) < 1e-12, 'the smallest share beyond a percentile: the p99')
  t.equal(tailShare(parseObjectives('max<1s', undefined)), null, 'a maximum: no length makes it less noisy')
  const base = { tail, stepS: 5, settleS: 2, remainingS: 100, stepsLeft: 5 }
  t.equal(measuredSeconds({ ...base, rate: 74, stepsLeft: null }), 5, 'climbing and bisecting: --step')
  t.equal(measuredSeconds({ ...base, rate: 347 }), 5, '347/s hold 17 beyond the p99 in 5 s: --step')
  const close = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) < 1e-9
  t.ok(close(measuredSeconds({ ...base, rate: 125 }), 8), '1000 requests at 125/s: the 10th slowest is the p99')
  t.equal(measuredSeconds({ ...base, rate: 40 }), 10, 'twice --step at most')
  t.ok(close(measuredSeconds({ ...base, rate: 74, remainingS: 50 }), 8), 'the time left shared among the steps needed')
  t.equal(measuredSeconds({ ...base, rate: 74, remainingS: 20 }), 5, 'never shorter than --step')
  t.equal(measuredSeconds({ ...base, tail: null, rate: 74 }), 5, 'a maximum: --step')
})

t.test('the resolution widens where a --step step holds fewer than 10 requests beyond the percentile', async t => {
  const at = (/** @type {number} */ rate) => noisyResolution({ rate, tail: 0.01, stepS: 5, resolution: 0.1 })
  t.equal(at(347), 0.1, '17 beyond: as given')
  t.equal(at(200), 0.1, '10 beyond: as given')
  t.ok(Math.abs(at(74) - 0.1 * (10 / 3.7)) < 1e-12, '3.7 beyond: 2.7 times')
  t.ok(Math.abs(at(10) - 0.3) < 1e-12, 'at most 3 times')
  t.equal(noisyResolution({ rate: 10, tail: null, stepS: 5, resolution: 0.1 }), 0.1, 'a maximum: as given')
  // a sharp boundary at 74/s: the bisection stops at a bracket of 27 %, not 10 %
  const options = withNoisyResolution(DEFAULTS, 0.01, 5)
  const s = search({ ...options, startRate: 30 }, rate => rate <= 74)
  const r = s.result()
  t.equal(r.verdict, 'bracketed')
  t.ok(/** @type {number} */ (r.low) <= 74 && /** @type {number} */ (r.high) > 74, `74 in [${r.low}, ${r.high}]`)
  const ratio = /** @type {number} */ (r.high) / /** @type {number} */ (r.low)
  t.ok(ratio > 1.1 && ratio <= 1 + at(/** @type {number} */ (r.low)) + 1e-9, `ratio ${ratio.toFixed(3)}`)
  t.ok(s.trials.length < search({ ...DEFAULTS, startRate: 30 }, rate => rate <= 74).trials.length, 'fewer steps')
})

t.test('the steps the confirmation still needs', async t => {
  const s = new CapacitySearch({ ...DEFAULTS, startRate: 1000 })
  t.equal(s.stepsLeft(), null, 'climbing')
  for (let rate = s.next(); rate !== null && s.phase !== 'confirm'; rate = s.next()) s.record(rate <= 1500)
  t.equal(s.phase, 'confirm')
  // each end has one step from the bisection: 4 more each
  t.equal(s.stepsLeft(), 8)
  s.record(s.next() === s.low)
  t.equal(s.stepsLeft(), 7)
})

t.test('a step measured from recorded latencies', async t => {
  const stats = new RequestStats(['insert_row', 'read_row'])
  // before the step: slow requests that must not count
  for (let i = 0; i < 100; i++) stats.finish(0, 500000, true)
  const mark = markStep(stats, 0)
  for (let i = 0; i < 1000; i++) {
    stats.finish(i % 2, i < 990 ? 1000 : 20000, true)
    stats.lag.record(100)
  }
  const objectives = [
    parseObjective('p99<10ms', stats.types),
    parseObjective('read_row:p50<2ms', stats.types),
    parseObjective('lag_p99<1ms', stats.types)
  ]
  const step = measureStep(stats, mark, 5000, 200, objectives)
  t.equal(step.done, 1000)
  t.equal(step.achieved, 200)
  t.ok(/** @type {number} */ (step.p99Us) <= 1100, `p99 ${step.p99Us}`)
  t.ok(step.keptPace)
  t.ok(step.held)
  t.same(
    step.objectives.map(o => o.kept),
    [true, true, true]
  )
  const slower = measureStep(stats, mark, 5000, 400, objectives)
  t.notOk(slower.keptPace, '1000 in 5 s is not 400/s')
  t.notOk(slower.held)
  const strict = measureStep(stats, mark, 5000, 200, [parseObjective('p99.9<5ms', stats.types)])
  t.notOk(strict.held, 'the slowest tenth of a percent is 20 ms')
  const table = stepsTable([
    { ...step, step: 1, phase: 'climb' },
    { ...slower, step: 2, phase: 'climb' }
  ]).join('\n')
  t.match(table, /asked\/s\s+achieved\/s\s+p99 ms\s+lag p99 ms/)
  t.match(table, /read_row:p50 ms/)
  t.match(table, /held/)
  t.match(table, /broke \(fell behind\)/)
})

t.test('the result line', async t => {
  const s = search(DEFAULTS, rate => rate <= 8200)
  t.match(resultLine(s.result(), 'p99<10ms'), /^capacity: \d+ requests\/s \(9\d% interval \d+–\d+\) for p99<10ms$/)
})

t.test("a plan's capacity step: its fields checked with the plan", async t => {
  const { parsePlan } = await import('../../lib/experiment/plan.js')
  const base = (/** @type {Record<string, unknown>} */ step, workload = 'manta') => ({
    name: 'cap',
    server: { profile: 'default' },
    workload,
    concurrency: 4,
    prepare: { duration: '2s' },
    variants: [{ name: 'a', steps: [{ load: '1s' }, step] }],
    repetitions: 1
  })
  const plan = await parsePlan(
    base({
      capacity: 'p99<10ms',
      start_rate: 50,
      max_rate: 800,
      repeats: 3,
      step: '2s',
      settle: '1s',
      concurrency: 16
    }),
    { baseDir: process.cwd() }
  )
  const step = plan.variants[0].steps[1]
  t.equal(step.kind, 'capacity')
  t.match(step.capacity, {
    concurrency: 16,
    settings: { stepS: 2, settleS: 1, search: { startRate: 50, maxRate: 800, repeats: 3, factor: 2 } }
  })
  t.equal(step.capacity?.settings.objectives[0].limitUs, 10000)
  const two = await parsePlan(base({ capacity: ['p99<10ms', 'lag_p99<50ms'] }), { baseDir: process.cwd() })
  t.equal(two.variants[0].steps[1].capacity?.settings.objectives.length, 2)
  const cases = [
    [{ capacity: 'p99<10' }, /^variants\[0\]\.steps\[1\]\.capacity "p99<10": p99 is a latency/],
    [
      { capacity: 'nope:p99<1ms' },
      /^variants\[0\]\.steps\[1\]\.capacity "nope:p99<1ms": the workload has no request type/
    ],
    [{ capacity: 'p99<10ms', repeats: 0 }, /^variants\[0\]\.steps\[1\]\.repeats must be a whole number above 0/],
    [{ capacity: 'p99<10ms', start_rate: 900, max_rate: 100 }, /start_rate 900 is above max_rate 100/],
    [{ capacity: 'p99<10ms', load: '1s' }, /give exactly one of/],
    [{ capacity: 'p99<10ms', timeout: '1s' }, /timeout: not a field of a capacity step/]
  ]
  for (const [step, message] of cases)
    await t.rejects(parsePlan(base(step), { baseDir: process.cwd() }), message, message.source)
  await t.rejects(
    parsePlan({ ...base({ capacity: 'p99<1s' }, 'fleet'), concurrency: undefined }, { baseDir: process.cwd() }),
    /paces its clients itself/
  )
})
