import { PLAIN } from './colours.js'
import { ms, rate } from './figure-format.js'
import { renderTable } from './table.js'

// The comparison table of an experiment's report (its summary.json), in
// text: per variant the mean of its repetitions before, during and after
// the action, the ratio during / before with its confidence interval, and
// the verdict against the first variant. Throughput and p99 latency are a
// table each, so that both fit in 80 columns.

/**
 * @typedef {import('../results/bootstrap-interval.js').Interval} Interval
 * @typedef {import('../results/statistics.js').Verdict} Verdict
 */

/** The report's verdicts, in a column's width. */
const SHORT_VERDICT = { worse: 'worse', better: 'better', 'cannot tell apart': 'cannot tell', 'no interval': 'no CI' }

/**
 * @param {Record<string, any>} summary   an experiment's summary.json (report/phases.js)
 * @param {{ colours?: import('./colours.js').Colours, width?: number }} [options]
 * @returns {string[]} lines, without newlines
 */
export function comparisonTable(summary, { colours = PLAIN, width = 80 } = {}) {
  /** @type {Array<Record<string, any>>} */
  const variants = summary.variants ?? []
  if (variants.length === 0) return []
  /** @type {Verdict[]} */
  const comparisons = summary.comparisons ?? []
  const baseline = variants[0].name
  /**
   * @param {string} title
   * @param {'degradation_ratio' | 'p99_ratio'} metric
   * @param {(v: Record<string, any>) => Record<string, { mean?: number } | null>} phased
   * @param {(value: number | null | undefined) => string} format
   */
  const table = (title, metric, phased, format) => {
    const rows = variants.map((v, i) => {
      const figures = phased(v)
      /** @type {Interval | null} */
      const interval = v.statistics?.[metric] ?? null
      const verdict = i === 0 ? 'baseline' : verdictOf(comparisons, v.name, metric)
      return {
        cells: [
          v.name,
          String(v.aggregate?.repetitions ?? v.repetitions?.length ?? 0),
          format(figures.before?.mean),
          format(figures.during?.mean),
          format(figures.after?.mean),
          ratio(interval?.mean),
          ciText(interval),
          verdict
        ],
        cellStyles: [...Array(7).fill((/** @type {string} */ s) => s), verdictStyle(verdict, colours)]
      }
    })
    const columns = [
      { title: 'variant' },
      { title: 'reps', align: /** @type {const} */ ('right') },
      { title: 'before', align: /** @type {const} */ ('right') },
      { title: 'during', align: /** @type {const} */ ('right') },
      { title: 'after', align: /** @type {const} */ ('right') },
      { title: 'ratio', align: /** @type {const} */ ('right') },
      { title: '95 % CI' },
      { title: `vs ${baseline}`, flexible: true, min: 8 }
    ]
    return [colours.bold(title), ...renderTable(columns, rows, { width, header: colours.dim })]
  }
  return [
    '',
    colours.bold(`experiment ${summary.name}: the mean of each variant's repetitions`),
    '',
    ...table(
      'throughput, requests/s (ratio: during / before)',
      'degradation_ratio',
      v => v.aggregate?.throughput ?? {},
      rate
    ),
    '',
    ...table('p99 latency, ms (ratio: during / before)', 'p99_ratio', v => v.aggregate?.latency_us?.p99 ?? {}, ms)
  ]
}

/**
 * @param {number | null | undefined} value
 */
function ratio(value) {
  return typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(2)}×` : '-'
}

/**
 * "0.60–0.62", or why there is none.
 * @param {Interval | null} interval
 */
function ciText(interval) {
  if (!interval) return '-'
  if (interval.low === null || interval.high === null) return `none (${interval.n} rep.)`
  return `${interval.low.toFixed(2)}–${interval.high.toFixed(2)}`
}

/**
 * @param {Verdict[]} comparisons
 * @param {string} variant
 * @param {string} metric
 */
function verdictOf(comparisons, variant, metric) {
  const verdict = comparisons.find(c => c.variant === variant && c.metric === metric)
  return verdict ? (SHORT_VERDICT[verdict.verdict] ?? verdict.verdict) : '-'
}

/**
 * @param {string} verdict
 * @param {import('./colours.js').Colours} colours
 */
function verdictStyle(verdict, colours) {
  if (verdict === 'worse') return colours.red
  if (verdict === 'better') return colours.green
  return colours.dim
}
