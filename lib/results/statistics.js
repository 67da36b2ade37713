import { isNumber, meanOf } from './arithmetic.js'
import { round } from '../helpers/numbers.js'
import { bootstrapMean, LEVEL, MIN_REPETITIONS, RESAMPLES, SEED } from './bootstrap-interval.js'
import { effectSide, roundEffect, twoSampleEffect } from './t-interval.js'

// Honest statistics over the repetitions of a variant: a confidence
// interval of the mean of each degradation ratio, a verdict between
// variants only when Welch's interval of their difference excludes none,
// the machine's own noise (how much the "before" windows moved from
// repetition to repetition), and a flag on "during" windows too short to
// trust.
//
// The interval shown per variant, its level, resamples, seed and the
// fewest repetitions it needs are bootstrap-interval.js's; the verdict's
// interval is t-interval.js's. The verdict does not ask whether two
// variants' bootstrap intervals overlap: with 3 repetitions each is the
// min - max of the three ratios, and two min - max ranges of values drawn
// alike miss each other in 2 × 3! × 3! / 6! = 10 % of cases, twice the 5 %
// a 95 % test allows.

export const MIN_DURING_SAMPLES = 30
// An effect within this many coefficients of variation of the "before"
// windows is not clearly above the machine's noise.
export const NOISE_FACTOR = 2

export const STATISTICS_METHOD = {
  interval: `percentile bootstrap of the mean of a variant's per-repetition ratios: ${RESAMPLES} resamples with replacement of the repetitions, the mean of each, the ${round(((1 - LEVEL) / 2) * 100, 1)}th to ${round(((1 + LEVEL) / 2) * 100, 1)}th percentile of those means (linear interpolation); a seeded generator (mulberry32, seed ${SEED}): the same data gives the same interval`,
  small_samples: `with n repetitions there are only C(2n-1, n) distinct resamples (10 for n = 3); with n = 3 the ${LEVEL * 100} % interval is the min - max of the three ratios and covers less than ${LEVEL * 100} %; fewer than ${MIN_REPETITIONS} repetitions: no interval`,
  verdict: `each variant against the first (the baseline), per ratio: Welch's ${LEVEL * 100} % interval of the difference of the mean logs of the two variants' per-repetition ratios, given as the ratio of their geometric means (of the difference of their means when a ratio is 0); "worse" or "better" only when it excludes no difference (a two-sided test at ${round((1 - LEVEL) * 100, 1)} %), else the data cannot tell them apart. Not whether the bootstrap intervals overlap: with 3 repetitions each is the min - max of the three ratios, and two min - max ranges of values drawn alike miss each other in 10 % of cases`,
  worse:
    'degradation_ratio (throughput during / before): lower is worse; p99_ratio (p99 during / before): higher is worse',
  noise: `the machine's noise: the coefficient of variation (sample standard deviation / mean) of the "before" windows' throughput and p99 across the variant's repetitions; an effect (|ratio - 1|) of at most ${NOISE_FACTOR} times that is not clearly above the noise`,
  short_during: `a "during" window of fewer than ${MIN_DURING_SAMPLES} samples is flagged: too short to trust`
}

// What one run's phases hold (lib/report/phases.js computes them).
/**
 * @typedef {{ before: number | null, during: number | null, after: number | null }} Phased
 */

/**
 * @typedef {object} RunPhases
 * @property {{ name: string, duration_s: number | null, start_s: number, end_s: number | null, ok: boolean | null,
 *     completed: boolean, source: 'events' | 'samples' } | null} action
 * @property {{ before: number, during: number, after: number }} samples
 * @property {Phased} throughput
 * @property {{ p50: Phased, p99: Phased }} latency_us
 * @property {number | null} degradation_ratio
 * @property {number | null} p99_ratio
 */

/** @typedef {import('./bootstrap-interval.js').Interval} Interval */

/**
 * The coefficient of variation (sample standard deviation / |mean|) of the
 * values known, with its parts; null with fewer than 2 values or a mean of 0.
 * @param {(number | null | undefined)[]} values
 * @returns {{ n: number, mean: number, sd: number, cv: number } | null}
 */
export function variation(values) {
  const xs = values.filter(isNumber)
  if (xs.length < 2) return null
  const mean = meanOf(xs)
  if (mean === 0) return null
  const sd = Math.sqrt(xs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (xs.length - 1))
  return { n: xs.length, mean, sd, cv: sd / Math.abs(mean) }
}

/** The ratios that get an interval and a verdict, and which way is worse. */
export const RATIOS = /** @type {const} */ ([
  { key: 'degradation_ratio', label: 'throughput during / before', higherIsWorse: false, noise: 'throughput_before' },
  { key: 'p99_ratio', label: 'p99 latency during / before', higherIsWorse: true, noise: 'p99_before' }
])

/**
 * @typedef {object} VariantStatistics
 * @property {number} repetitions
 * @property {{ degradation_ratio: number[], p99_ratio: number[] }} ratios   the repetitions' ratios known, in order:
 *   what the intervals and the verdicts are computed from
 * @property {Interval | null} degradation_ratio
 * @property {Interval | null} p99_ratio
 * @property {{ throughput_before: ReturnType<typeof variation>, p99_before: ReturnType<typeof variation> }} noise
 * @property {{ degradation_ratio: Effect | null, p99_ratio: Effect | null }} effect
 * @property {Array<{ repetition: number, samples: number }>} short_during   repetitions (1, 2, …) whose during window
 *   is too short
 * @property {string[]} notes
 */

/**
 * @typedef {object} Effect
 * @property {number} size          |mean ratio − 1|
 * @property {number | null} noise  the CV of the matching "before" figure
 * @property {boolean | null} above_noise  size > NOISE_FACTOR × noise; null without a noise figure
 */

/**
 * A variant's intervals, noise and flags, from its repetitions' phases.
 * @param {RunPhases[]} reps
 * @returns {VariantStatistics}
 */
export function variantStatistics(reps) {
  const ratios = {
    degradation_ratio: reps.map(r => r.degradation_ratio).filter(isNumber),
    p99_ratio: reps.map(r => r.p99_ratio).filter(isNumber)
  }
  const degradation = bootstrapMean(ratios.degradation_ratio)
  const p99 = bootstrapMean(ratios.p99_ratio)
  const noise = {
    throughput_before: rounded(variation(reps.map(r => r.throughput.before))),
    p99_before: rounded(variation(reps.map(r => r.latency_us.p99.before)))
  }
  /**
   * @param {Interval | null} interval
   * @param {ReturnType<typeof variation>} cv
   * @returns {Effect | null}
   */
  const effect = (interval, cv) => {
    if (!interval) return null
    const size = round(Math.abs(interval.mean - 1), 4)
    return { size, noise: cv ? cv.cv : null, above_noise: cv ? size > NOISE_FACTOR * cv.cv : null }
  }
  const shortDuring = reps.flatMap((r, i) =>
    r.action && r.samples.during < MIN_DURING_SAMPLES ? [{ repetition: i + 1, samples: r.samples.during }] : []
  )
  const notes = []
  if (reps.length < MIN_REPETITIONS) {
    notes.push(
      `${reps.length} repetition${reps.length === 1 ? '' : 's'}: a confidence interval needs at least ${MIN_REPETITIONS}; the data cannot tell this variant from another`
    )
  }
  for (const s of shortDuring) notes.push(duringNote(s.samples, s.repetition))
  return {
    repetitions: reps.length,
    ratios,
    degradation_ratio: roundInterval(degradation),
    p99_ratio: roundInterval(p99),
    noise,
    effect: {
      degradation_ratio: effect(degradation, noise.throughput_before),
      p99_ratio: effect(p99, noise.p99_before)
    },
    short_during: shortDuring,
    notes
  }
}

/**
 * @param {number} samples
 * @param {number} [repetition]
 */
export function duringNote(samples, repetition) {
  return `${repetition === undefined ? '' : `rep-${repetition}: `}during window: ${samples} sample${samples === 1 ? '' : 's'} < ${MIN_DURING_SAMPLES}: too short to trust`
}

/**
 * @typedef {object} Verdict
 * @property {string} metric          degradation_ratio or p99_ratio
 * @property {string} baseline        the first variant
 * @property {string} variant
 * @property {'worse' | 'better' | 'cannot tell apart' | 'no interval'} verdict   the variant against the baseline
 * @property {[number, number] | null} baseline_interval   the baseline's bootstrap interval (descriptive)
 * @property {[number, number] | null} variant_interval    the variant's
 * @property {import('./t-interval.js').Effect | null} effect   the variant against the baseline: Welch's interval
 *   the verdict rests on (null: no interval)
 * @property {string} text
 */

/**
 * Each variant against the first, per ratio: worse or better only when
 * Welch's interval of the variant against the baseline excludes no
 * difference.
 * @param {Array<{ name: string, statistics: VariantStatistics }>} variants
 * @returns {Verdict[]}
 */
export function compareVariants(variants) {
  if (variants.length < 2) return []
  const [first, ...others] = variants
  /** @type {Verdict[]} */
  const out = []
  for (const ratio of RATIOS) {
    for (const other of others) {
      const a = first.statistics[ratio.key]
      const b = other.statistics[ratio.key]
      // no action measured in either: nothing to compare
      if (!a && !b) continue
      const ia = a && a.low !== null && a.high !== null ? /** @type {[number, number]} */ ([a.low, a.high]) : null
      const ib = b && b.low !== null && b.high !== null ? /** @type {[number, number]} */ ([b.low, b.high]) : null
      const base = {
        metric: ratio.key,
        baseline: first.name,
        variant: other.name,
        baseline_interval: ia,
        variant_interval: ib
      }
      if (!ia || !ib) {
        const missing = [...(!ia ? [first] : []), ...(!ib ? [other] : [])]
        const why = missing
          .map(
            v =>
              `${v.name} has ${v.statistics[ratio.key]?.n ?? 0} repetition${v.statistics[ratio.key]?.n === 1 ? '' : 's'} with a ratio`
          )
          .join(', ')
        out.push({
          ...base,
          verdict: 'no interval',
          effect: null,
          text: `${ratio.label}: cannot tell ${other.name} from ${first.name}: ${why}, fewer than ${MIN_REPETITIONS}: no confidence interval`
        })
        continue
      }
      const effect = roundEffect(
        twoSampleEffect(other.statistics.ratios[ratio.key], first.statistics.ratios[ratio.key]),
        4
      )
      const why = `(${effectText(effect, other.name, first.name)})`
      const side = effectSide(effect)
      if (side !== null) {
        const bWorse = (side === 'above') === ratio.higherIsWorse
        const [worse, better] = bWorse ? [other.name, first.name] : [first.name, other.name]
        out.push({
          ...base,
          verdict: bWorse ? 'worse' : 'better',
          effect,
          text: `${ratio.label}: ${worse} is worse than ${better} ${why}`
        })
      } else {
        out.push({
          ...base,
          verdict: 'cannot tell apart',
          effect,
          text: `${ratio.label}: cannot tell ${other.name} and ${first.name} apart ${why}`
        })
      }
    }
  }
  return out
}

/**
 * Welch's interval of a verdict in words: "Welch's 95 % interval of the
 * ratio B / A, 0.81 to 0.93, excludes 1".
 * @param {import('./t-interval.js').Effect} effect
 * @param {string} variant
 * @param {string} baseline
 */
function effectText(effect, variant, baseline) {
  const of = effect.kind === 'ratio' ? `the ratio ${variant} / ${baseline}` : `the difference ${variant} - ${baseline}`
  const ends = [effect.low, effect.high].map(end => /** @type {number} */ (end).toPrecision(3))
  const holds = effectSide(effect) === null ? 'holds' : 'excludes'
  return `Welch's ${LEVEL * 100} % interval of ${of}, ${ends[0]} to ${ends[1]}, ${holds} ${effect.none}`
}

/**
 * One line per verdict, for a log or a terminal.
 * @param {{ comparisons?: Verdict[] | null, variants: Array<{ name: string,
 *     statistics?: VariantStatistics }> }} summary
 * @returns {string[]}
 */
export function verdictLines(summary) {
  const lines = (summary.comparisons ?? []).map(v => v.text)
  for (const variant of summary.variants) {
    for (const note of variant.statistics?.notes ?? []) lines.push(`${variant.name}: ${note}`)
  }
  return lines
}

/**
 * @param {Interval | null} interval
 * @returns {Interval | null}
 */
function roundInterval(interval) {
  if (!interval) return null
  const r = (/** @type {number} */ v) => round(v, 4)
  return {
    ...interval,
    mean: r(interval.mean),
    low: interval.low === null ? null : r(interval.low),
    high: interval.high === null ? null : r(interval.high)
  }
}

/**
 * @param {ReturnType<typeof variation>} v
 */
function rounded(v) {
  if (!v) return null
  return { n: v.n, mean: round(v.mean, 2), sd: round(v.sd, 2), cv: round(v.cv, 4) }
}
