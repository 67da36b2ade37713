import { esc, fmtPct, fmtRatio } from './html.js'
import { LEVEL, MIN_REPETITIONS, RESAMPLES, SEED } from '../results/bootstrap-interval.js'
import { MIN_DURING_SAMPLES, NOISE_FACTOR, RATIOS } from '../results/statistics.js'

// The statistics of statistics.js on the experiment page: each ratio's
// confidence interval, the machine's noise beside the effect, the verdict
// of each variant against the first, and the warnings (too few
// repetitions, "during" windows too short to trust).

/** @typedef {import('../results/statistics.js').VariantStatistics} VariantStatistics */
/** @typedef {import('../results/statistics.js').Verdict} Verdict */
/** @typedef {import('../results/bootstrap-interval.js').Interval} Interval */

const PCT = `${Math.round(LEVEL * 100)} %`

/**
 * "0.55× – 0.62×", or why there is none.
 * @param {Interval | null} interval
 */
export function fmtInterval(interval) {
  if (!interval) return '–'
  if (interval.low === null || interval.high === null) return `no CI (${interval.n} rep.)`
  return `${fmtRatio(interval.low)} – ${fmtRatio(interval.high)}`
}

/**
 * A ratio's mean, with its interval and min – max under it.
 * @param {Interval | null} interval
 * @param {string} cls
 */
export function intervalCell(interval, cls) {
  if (!interval) return `<td class="${cls}">–</td>`
  const ci =
    interval.low === null ? `no CI: ${interval.n} rep. &lt; ${MIN_REPETITIONS}` : `${PCT} CI ${fmtInterval(interval)}`
  const range = interval.n > 1 ? ` · min – max ${fmtRatio(interval.min)} – ${fmtRatio(interval.max)}` : ''
  return `<td class="${cls} ci" data-ci-low="${interval.low ?? ''}" data-ci-high="${interval.high ?? ''}">${fmtRatio(interval.mean)}<span class="range">${ci}${range}</span></td>`
}

/**
 * The machine's noise (CV of the "before" windows across repetitions)
 * beside the effect (|ratio − 1|).
 * @param {VariantStatistics} stats
 * @param {'degradation_ratio' | 'p99_ratio'} key
 */
export function noiseCell(stats, key) {
  const ratio = RATIOS.find(r => r.key === key)
  const noise = stats.noise[/** @type {NonNullable<typeof ratio>} */ (ratio).noise]
  const effect = stats.effect[key]
  if (!noise) {
    return `<td class="noise muted">– <span class="range">${stats.repetitions < 2 ? 'fewer than 2 repetitions' : 'no before window'}</span></td>`
  }
  const against = effect
    ? `effect ${fmtPct(effect.size)} ${effect.above_noise ? `&gt; ${NOISE_FACTOR}× noise` : `≤ ${NOISE_FACTOR}× noise: not clearly above it`}`
    : ''
  return `<td class="noise" data-noise-cv="${noise.cv}">±${fmtPct(noise.cv)}<span class="range">${against}</span></td>`
}

/**
 * A variant's verdict against the first, for one ratio.
 * @param {Verdict[]} comparisons
 * @param {string} variant
 * @param {string} metric
 * @param {boolean} first
 */
export function verdictCell(comparisons, variant, metric, first) {
  if (first) return '<td class="verdict muted">baseline</td>'
  const verdict = comparisons.find(c => c.variant === variant && c.metric === metric)
  if (!verdict) return '<td class="verdict">–</td>'
  const cls = verdict.verdict === 'worse' ? 'worse' : verdict.verdict === 'better' ? 'better' : 'muted'
  const short = verdict.verdict === 'no interval' ? 'cannot tell: no CI' : verdict.verdict
  return `<td class="verdict ${cls}" title="${esc(verdict.text)}">${esc(short)}</td>`
}

/**
 * Under the comparison table: the verdicts in words, then the warnings.
 * @param {{ comparisons: Verdict[], variants: Array<{ name: string, statistics: VariantStatistics }> }} summary
 */
export function statisticsNotes(summary) {
  const items = summary.comparisons
    .map(c => `<li class="verdict-${c.verdict.replace(/\s+/g, '-')}">${esc(c.text)}</li>`)
    .join('')
  const verdicts = summary.comparisons.length ? `<ul class="verdicts" id="verdicts">${items}</ul>` : ''
  const warnings = summary.variants.flatMap(v =>
    v.statistics.notes.map(note => `<p class="warning">${esc(v.name)}: ${esc(note)}</p>`)
  )
  return `${verdicts}${warnings.join('\n')}`
}

/** The method in one paragraph, for the lead of the comparison. */
export function statisticsLead() {
  return `Confidence intervals (CI): ${PCT} percentile bootstrap of the mean of the repetitions' ratios (${RESAMPLES} resamples, seed ${SEED}); with ${MIN_REPETITIONS} repetitions it is their min – max, with fewer there is none. A variant is called worse or better than the first only when Welch's ${PCT} interval of the ratio of their geometric means excludes 1 (a two-sided test at 5 %; not the overlap of the two CIs: two min – max ranges of alike values miss each other in 10 % of cases); otherwise the data cannot tell them apart. Noise: the coefficient of variation of the "before" windows across the repetitions, beside the effect |ratio − 1|. A "during" window shorter than ${MIN_DURING_SAMPLES} samples is flagged.`
}

/**
 * The warning of "during" windows too short to trust, or ''.
 * @param {number[]} short   their samples, one figure per repetition flagged
 */
export function duringFlag(short) {
  if (short.length === 0) return ''
  const many = short.length > 1 || short[0] !== 1
  return `<span class="warning short-during" style="display:block;font-size:11.5px">during window: ${short.join(', ')} sample${many ? 's' : ''} &lt; ${MIN_DURING_SAMPLES}: too short to trust</span>`
}

/**
 * The short "during" windows of one repetition (none, or its own).
 * @param {{ action: unknown, samples: { during: number } }} rep
 * @returns {number[]}
 */
export function shortDuring(rep) {
  return rep.action && rep.samples.during < MIN_DURING_SAMPLES ? [rep.samples.during] : []
}
