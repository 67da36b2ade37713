// The report's statistics (lib/results/bootstrap-interval.js,
// lib/results/statistics.js) on known data: the percentile bootstrap
// interval of a mean, its determinism, what it gives with 3 repetitions and
// with fewer, the machine's noise, and the verdicts between variants
// (Welch's interval, lib/results/t-interval.js); with
// fast-check, that the interval holds the sample mean, stays within the
// values and is the same for the same seed.
import t from 'tap'
import fc from 'fast-check'
import {
  bootstrapMean,
  distinctResamples,
  mulberry32,
  quantile,
  LEVEL,
  RESAMPLES,
  SEED
} from '../../lib/results/bootstrap-interval.js'
import { compareVariants, variantStatistics, variation, verdictLines } from '../../lib/results/statistics.js'

/** @param {number[]} xs */
const meanOf = xs => xs.reduce((a, b) => a + b, 0) / xs.length

t.test('the generator is seeded and uniform in [0, 1)', async t => {
  const a = mulberry32(SEED)
  const b = mulberry32(SEED)
  const first = Array.from({ length: 1000 }, a)
  t.same(Array.from({ length: 1000 }, b), first, 'the same seed, the same numbers')
  t.notSame(Array.from({ length: 1000 }, mulberry32(SEED + 1)), first, 'another seed, other numbers')
  t.ok(
    first.every(x => x >= 0 && x < 1),
    'all in [0, 1)'
  )
  t.ok(Math.abs(meanOf(first) - 0.5) < 0.03, `mean near 0.5 (${meanOf(first)})`)
})

t.test('quantiles and distinct resamples', async t => {
  t.equal(quantile([1, 2, 3, 4], 0.5), 2.5, 'median of four, interpolated')
  t.equal(quantile([1, 2, 3, 4], 0), 1)
  t.equal(quantile([1, 2, 3, 4], 1), 4)
  t.equal(quantile([10, 20, 30, 40, 50], 0.25), 20)
  t.same([1, 2, 3, 4, 5].map(distinctResamples), [1, 3, 10, 35, 126], 'C(2n - 1, n)')
})

t.test('3 repetitions: the 95 % interval is the min - max', async t => {
  const ci = bootstrapMean([0.6, 0.62, 0.61])
  t.ok(ci, 'an interval')
  if (!ci) return
  t.equal(ci.n, 3)
  t.equal(ci.low, 0.6, 'low: the smallest ratio (1/27 of the resamples are it three times)')
  t.equal(ci.high, 0.62, 'high: the largest')
  t.ok(Math.abs(ci.mean - 0.61) < 1e-12, 'the mean')
  t.equal(ci.min, 0.6)
  t.equal(ci.max, 0.62)
  t.equal(ci.distinct_resamples, 10, '10 distinct resamples')
  t.equal(ci.level, LEVEL)
  t.equal(ci.resamples, RESAMPLES)
  t.equal(ci.seed, SEED)
  t.match(ci.note, /only 10 distinct resamples/, 'says how weak it is')
})

t.test('fewer than 3 repetitions: no interval, and says so', async t => {
  for (const values of [[0.7], [0.7, 0.8]]) {
    const ci = bootstrapMean(values)
    t.equal(ci?.low, null, `${values.length}: no low`)
    t.equal(ci?.high, null, `${values.length}: no high`)
    t.match(ci?.note, /fewer than 3, no confidence interval/, `${values.length}: the note`)
    t.equal(ci?.min, Math.min(...values), 'min - max still given')
  }
  t.equal(bootstrapMean([]), null, 'no value: null')
  t.equal(bootstrapMean([null, undefined, NaN]), null, 'nothing known: null')
  t.equal(bootstrapMean([0.5, null, 0.7, 0.6])?.n, 3, 'unknown values left out')
})

t.test('10 repetitions: close to the normal approximation, inside the min - max', async t => {
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
  const ci = bootstrapMean(values)
  if (!ci || ci.low === null || ci.high === null) return t.fail('an interval')
  // the bootstrap's standard error: the population SD / sqrt(n) = sqrt(8.25 / 10)
  const se = Math.sqrt(8.25 / 10)
  t.ok(Math.abs(ci.low - (5.5 - 1.96 * se)) < 0.15, `low ${ci.low} near ${5.5 - 1.96 * se}`)
  t.ok(Math.abs(ci.high - (5.5 + 1.96 * se)) < 0.15, `high ${ci.high} near ${5.5 + 1.96 * se}`)
  t.ok(ci.low > 1 && ci.high < 10, 'narrower than the min - max')
  t.equal(ci.note, null, 'no warning')
  t.same(bootstrapMean(values), ci, 'the same interval again')
  t.notSame(bootstrapMean(values, { seed: 7 }), ci, 'another seed moves it a little')
  const fewer = bootstrapMean(values, { resamples: 2000 })
  t.ok(fewer && fewer.low !== null && Math.abs(fewer.low - ci.low) < 0.2, '2000 resamples: about the same')
})

t.test('property: the interval holds the sample mean, stays within the values, and is deterministic', async t => {
  const ratio = fc.double({ min: 0, max: 10, noNaN: true, noDefaultInfinity: true })
  fc.assert(
    fc.property(
      fc.array(ratio, { minLength: 3, maxLength: 30 }),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      (values, seed) => {
        const ci = bootstrapMean(values, { seed, resamples: 2000 })
        if (!ci || ci.low === null || ci.high === null) return false
        const m = meanOf(values)
        const again = bootstrapMean(values, { seed, resamples: 2000 })
        return (
          ci.low <= m &&
          m <= ci.high &&
          ci.low <= ci.high &&
          ci.low >= Math.min(...values) &&
          ci.high <= Math.max(...values) &&
          JSON.stringify(again) === JSON.stringify(ci)
        )
      }
    ),
    { numRuns: 300, seed: 13 }
  )
  t.pass('300 random samples of ratios')
})

t.test('variation: the coefficient of variation of the before windows', async t => {
  const v = variation([900, 1000, 1100])
  t.equal(v?.mean, 1000)
  t.equal(v?.sd, 100, 'sample standard deviation (n - 1)')
  t.equal(v?.cv, 0.1)
  t.equal(variation([1000]), null, 'one value: no spread')
  t.equal(variation([0, 0]), null, 'a mean of 0: none')
})

/**
 * Phases of a repetition, as runPhases gives them, with the figures the statistics read.
 * @param {{ ratio: number | null, p99Ratio: number | null, before: number, p99: number, during?: number }} r
 * @returns {import('../../lib/report/phases.js').RunPhases}
 */
function phases({ ratio, p99Ratio, before, p99, during = 40 }) {
  return {
    action: {
      name: 'vacuum',
      duration_s: during,
      start_s: 20,
      end_s: 20 + during,
      ok: true,
      completed: true,
      source: 'events'
    },
    samples: { before: 10, during, after: 10 },
    throughput: { before, during: ratio === null ? null : before * ratio, after: before },
    latency_us: {
      p50: { before: p99 / 4, during: null, after: null },
      p99: { before: p99, during: p99Ratio === null ? null : p99 * p99Ratio, after: p99 }
    },
    degradation_ratio: ratio,
    p99_ratio: p99Ratio
  }
}

/**
 * @param {number[]} ratios
 * @param {number[]} p99Ratios
 * @param {{ during?: number }} [options]
 */
function statistics(ratios, p99Ratios, { during } = {}) {
  return variantStatistics(
    ratios.map((ratio, i) =>
      phases({ ratio, p99Ratio: p99Ratios[i], before: [900, 1000, 1100, 1000][i % 4], p99: 2000, during })
    )
  )
}

/** @param {number[]} xs */
const meanLog = xs => meanOf(xs.map(Math.log))

t.test("verdicts: worse only when Welch's interval of the ratio excludes 1", async t => {
  const vacuum = { name: 'vacuum', statistics: statistics([0.8, 0.82, 0.81], [1.5, 1.6, 1.55]) }
  const freeze = { name: 'freeze', statistics: statistics([0.6, 0.62, 0.61], [1.5, 1.7, 1.6]) }
  const light = { name: 'light', statistics: statistics([0.95, 0.97, 0.96], [2.0, 2.1, 2.2]) }
  const verdicts = compareVariants([vacuum, freeze, light])
  t.equal(verdicts.length, 4, 'two ratios, two variants against the first')
  const find = (/** @type {string} */ metric, /** @type {string} */ variant) =>
    verdicts.find(v => v.metric === metric && v.variant === variant)
  const slower = find('degradation_ratio', 'freeze')
  t.equal(slower?.verdict, 'worse')
  t.match(
    slower?.text,
    /^throughput during \/ before: freeze is worse than vacuum \(Welch's 95 % interval of the ratio freeze \/ vacuum, 0\.7\d+ to 0\.7\d+, excludes 1\)$/
  )
  t.same(slower?.variant_interval, [0.6, 0.62], "the variant's bootstrap interval, shown as before")
  t.same(slower?.baseline_interval, [0.8, 0.82])
  t.equal(slower?.effect?.kind, 'ratio')
  t.equal(
    slower?.effect?.estimate,
    Math.round(Math.exp(meanLog([0.6, 0.62, 0.61]) - meanLog([0.8, 0.82, 0.81])) * 1e4) / 1e4,
    'the ratio of the geometric means'
  )
  t.ok(
    Number(slower?.effect?.low) < Number(slower?.effect?.estimate) && Number(slower?.effect?.high) < 1,
    `its interval lies below 1: ${slower?.effect?.low} to ${slower?.effect?.high}`
  )
  t.equal(find('degradation_ratio', 'light')?.verdict, 'better', 'a higher throughput ratio is better')
  t.match(
    find('degradation_ratio', 'light')?.text,
    /^throughput during \/ before: vacuum is worse than light \(Welch's 95 % interval of the ratio light \/ vacuum, 1\.1\d+ to 1\.2\d+, excludes 1\)$/
  )
  t.equal(find('p99_ratio', 'freeze')?.verdict, 'cannot tell apart', '1.5-1.7 against 1.5-1.6')
  t.match(
    find('p99_ratio', 'freeze')?.text,
    /^p99 latency during \/ before: cannot tell freeze and vacuum apart \(Welch's 95 % interval of the ratio freeze \/ vacuum, 0\.\d+ to 1\.\d+, holds 1\)$/
  )
  t.equal(find('p99_ratio', 'light')?.verdict, 'worse', 'a higher p99 ratio is worse')
  t.match(find('p99_ratio', 'light')?.text, /^p99 latency during \/ before: light is worse than vacuum \(Welch's/)
  t.same(compareVariants([vacuum]), [], 'one variant: nothing to compare')

  const touching = { name: 'touching', statistics: statistics([0.82, 0.83, 0.84], [1.6, 1.7, 1.8]) }
  t.equal(compareVariants([vacuum, touching])[0].verdict, 'cannot tell apart', 'ranges that share an end')

  // 0.8-1.0 against 1.01-1.2: the min - max ranges (the bootstrap intervals of 3) miss each other, as two
  // ranges of values drawn alike do in 10 % of cases; the means are 0.2 apart with a spread of 0.1 a side
  const spread = { name: 'spread', statistics: statistics([0.8, 0.9, 1.0], [1.5, 1.6, 1.55]) }
  const apart = { name: 'apart', statistics: statistics([1.01, 1.1, 1.2], [1.5, 1.6, 1.55]) }
  const [ranges] = compareVariants([spread, apart])
  t.ok(
    Number(ranges.variant_interval?.[0]) > Number(ranges.baseline_interval?.[1]),
    `the bootstrap intervals do not overlap: ${ranges.baseline_interval} and ${ranges.variant_interval}`
  )
  t.equal(ranges.verdict, 'cannot tell apart', "but Welch's interval holds 1: no verdict")
  t.ok(
    Number(ranges.effect?.low) < 1 && Number(ranges.effect?.high) > 1,
    `${ranges.effect?.low} to ${ranges.effect?.high}`
  )

  // a throughput that stopped during the action: a ratio of 0, no logarithm; the difference of the means
  const stalled = { name: 'stalled', statistics: statistics([0, 0.1, 0.05], [1.5, 1.6, 1.55]) }
  const [stall] = compareVariants([vacuum, stalled])
  t.equal(stall.verdict, 'worse')
  t.equal(stall.effect?.kind, 'difference')
  t.equal(stall.effect?.estimate, Math.round((0.05 - 0.81) * 1e4) / 1e4, 'the difference of the means')
  t.match(stall.text, /\(Welch's 95 % interval of the difference stalled - vacuum, -0\.\d+ to -0\.\d+, excludes 0\)$/)

  const two = { name: 'two', statistics: statistics([0.3, 0.31], [5, 5.1]) }
  const noCi = compareVariants([vacuum, two])
  t.same(
    noCi.map(v => [v.verdict, v.effect]),
    [
      ['no interval', null],
      ['no interval', null]
    ],
    'fewer than 3 repetitions: no verdict'
  )
  t.match(
    noCi[0].text,
    /cannot tell two from vacuum: two has 2 repetitions with a ratio, fewer than 3: no confidence interval/
  )
  t.match(two.statistics.notes[0], /2 repetitions: a confidence interval needs at least 3/)
  const lines = verdictLines({ comparisons: noCi, variants: [vacuum, two] })
  t.equal(lines.length, 3, 'the verdicts, then the notes')
})

t.test('noise beside the effect, and short during windows', async t => {
  const s = statistics([0.8, 0.82, 0.81], [1.05, 1.06, 1.04], { during: 5 })
  t.equal(s.noise.throughput_before?.cv, 0.1, 'before windows 900, 1000, 1100 req/s: CV 10 %')
  t.equal(s.noise.p99_before?.cv, 0, 'the same p99 before each time: no noise')
  t.same(
    s.effect.degradation_ratio,
    { size: 0.19, noise: 0.1, above_noise: false },
    '19 % is not above twice a 10 % noise'
  )
  t.same(s.short_during, [
    { repetition: 1, samples: 5 },
    { repetition: 2, samples: 5 },
    { repetition: 3, samples: 5 }
  ])
  t.equal(s.notes[0], 'rep-1: during window: 5 samples < 30: too short to trust')
  const long = statistics([0.5, 0.52, 0.51], [2, 2.1, 2.2], { during: 30 })
  t.same(long.short_during, [], '30 samples: not flagged')
  t.equal(long.effect.degradation_ratio?.above_noise, true, '49 % is above twice a 10 % noise')
})
