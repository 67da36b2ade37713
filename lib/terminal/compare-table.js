import { PLAIN } from './colours.js'
import { ms, plural, rate } from './figure-format.js'
import { renderTable } from './table.js'
import { groupChanges } from '../analysis/explain.js'
import { momentLines } from './changes-lines.js'

// The text of `pgloadgen compare`: the entries, then for each entry after
// the baseline a table of every figure, A's and its own value, the ratio,
// the 95 % interval of its repetitions (in A's units) and the verdict.
// Every figure is read from the comparison object that --json prints
// (lib/compare/compare.js), never recomputed, so that the two cannot
// disagree. A figure an entry did not record is "n/a", never 0.

/** @typedef {import('../compare/compare.js').Comparison} Comparison */
/** @typedef {import('../compare/figures.js').Figure} Figure */

export const NA = 'n/a'

/** The verdicts, in a column's width. */
const SHORT_VERDICT = /** @type {Record<string, string>} */ ({
  'cannot tell apart': 'cannot tell',
  'no interval': 'no CI'
})

const GROUP_TITLES = { load: 'load', latency: 'latency, ms', failures: 'failures, per run', server: 'server' }

/**
 * @param {Comparison} comparison
 * @param {{ colours?: import('./colours.js').Colours, width?: number }} [options]
 * @returns {string[]} lines, without newlines
 */
export function compareTable(comparison, { colours = PLAIN, width = 80 } = {}) {
  const baseline = comparison.entries[0]
  const lines = [
    '',
    colours.bold(`compare: ${comparison.entries.length} entries, each against ${baseline.letter} (the baseline)`)
  ]
  for (const entry of comparison.entries) {
    const seconds = entry.elapsed_s.reduce((a, b) => a + b, 0)
    const reps = entry.kind === 'variant' ? plural(entry.repetitions, 'repetition') : 'a run'
    lines.push(
      `  ${colours.bold(entry.letter)}  ${entry.name}: ${entry.workload}, ${reps}, ${seconds.toFixed(1)} s of load  ${colours.dim(entry.path)}`
    )
  }
  if (comparison.forced) lines.push(colours.yellow('  --force: the entries ran different workloads'))
  lines.push(...changeLines(comparison, colours, width))
  for (const against of comparison.comparisons) {
    const entry = comparison.entries.find(e => e.letter === against.entry)
    if (!entry) continue
    lines.push(
      '',
      colours.bold(
        `${entry.letter} against ${baseline.letter}: ratio ${entry.letter} / ${baseline.letter}, 95 % CI of ${entry.letter}'s repetitions in ${baseline.letter}'s units`
      )
    )
    lines.push(...figureTable(comparison, baseline, entry, against.figures, colours, width))
  }
  lines.push('', colours.dim(`verdict: better or worse only where Welch's 95 % interval of the entry's`))
  lines.push(
    colours.dim(`repetitions against ${baseline.letter}'s excludes no difference; cannot tell: it holds none;`)
  )
  lines.push(colours.dim('no CI: fewer than 3 repetitions; higher, lower: counts neither better nor worse'))
  return lines
}

// at most this many moments per entry; the rest are counted
const CHANGES_PER_ENTRY = 3

/**
 * What changed within each entry's runs, and why: a few lines per entry.
 * @param {Comparison} comparison
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 */
function changeLines(comparison, colours, width) {
  if (comparison.entries.every(e => e.changes === null)) return []
  const lines = ['', colours.bold('what changed within the runs')]
  for (const entry of comparison.entries) {
    if (entry.changes === null) {
      lines.push(`  ${entry.letter}  not recorded`)
      continue
    }
    /**
     * @type {Array<{ repetition: number, at_s: number, changes: import('../analysis/explain.js').Change[],
     *     causes: import('../analysis/explain.js').Cause[] }>}
     */
    const moments = []
    for (const repetition of [...new Set(entry.changes.map(c => c.repetition))]) {
      for (const group of groupChanges(entry.changes.filter(c => c.repetition === repetition)))
        moments.push({ repetition, ...group })
    }
    if (moments.length === 0) {
      lines.push(`  ${entry.letter}  nothing; ${entry.repetitions > 1 ? 'every repetition was' : 'the run was'} steady`)
    }
    for (const m of moments.slice(0, CHANGES_PER_ENTRY)) {
      lines.push(...momentLines(m, width, `  ${entry.letter}  ${entry.repetitions > 1 ? `rep ${m.repetition}, ` : ''}`))
    }
    if (moments.length > CHANGES_PER_ENTRY) {
      lines.push(colours.dim(`     … ${moments.length - CHANGES_PER_ENTRY} more (--json)`))
    }
  }
  return lines
}

/**
 * @param {Comparison} comparison
 * @param {import('../compare/compare.js').ComparedEntry} baseline
 * @param {import('../compare/compare.js').ComparedEntry} entry
 * @param {Record<string, import('../compare/verdicts.js').FigureComparison>} compared
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 */
function figureTable(comparison, baseline, entry, compared, colours, width) {
  const columns = [
    { title: 'figure' },
    { title: baseline.letter, align: /** @type {const} */ ('right') },
    { title: entry.letter, align: /** @type {const} */ ('right') },
    { title: `${entry.letter}/${baseline.letter}`, align: /** @type {const} */ ('right') },
    { title: '95 % CI' },
    { title: `vs ${baseline.letter}`, flexible: true, min: 6 }
  ]
  const none = (/** @type {string} */ s) => s
  /** @type {import('./table.js').Row[]} */
  const rows = []
  let group = ''
  for (const figure of comparison.figures) {
    if (figure.group !== group) {
      group = figure.group
      rows.push({ cells: [GROUP_TITLES[figure.group]], style: colours.dim })
    }
    const c = compared[figure.key]
    const a = baseline.figures[figure.key] ?? null
    const b = entry.figures[figure.key] ?? null
    const verdict = SHORT_VERDICT[c.verdict] ?? c.verdict
    rows.push({
      cells: [
        `  ${figure.label}`,
        formatFigure(figure, a),
        formatFigure(figure, b),
        ratioText(c.ratio, a, b),
        intervalText(c),
        verdict
      ],
      cellStyles: [none, none, none, none, none, verdictStyle(c.verdict, colours)]
    })
  }
  return renderTable(columns, rows, { width, header: colours.dim })
}

/**
 * A figure as the table shows it: latencies in ms (three decimals), rates
 * with one decimal, counts whole (a mean over repetitions with one
 * decimal), bytes in binary units, seconds with three decimals.
 * @param {Figure} figure
 * @param {number | null | undefined} value
 */
export function formatFigure(figure, value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NA
  switch (figure.unit) {
    case 'us':
      return ms(value)
    case 'rate':
      return rate(value)
    case 'bytes':
      return bytes(value)
    case 'seconds':
      return `${value.toFixed(3)} s`
    default:
      return Number.isInteger(value) ? String(value) : value.toFixed(1)
  }
}

/**
 * @param {number} value
 */
export function bytes(value) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = value
  let i = 0
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${units[i]}`
}

/**
 * "1.76×"; n/a when either figure is; "-" when the baseline's is 0.
 * @param {number | null} ratio
 * @param {number | null} a
 * @param {number | null} b
 */
export function ratioText(ratio, a, b) {
  if (a === null || b === null) return NA
  return ratio === null ? '-' : `${ratio.toFixed(2)}×`
}

/**
 * "0.60–0.62", or why there is none.
 * @param {import('../compare/verdicts.js').FigureComparison} c
 */
export function intervalText(c) {
  if (c.interval) return `${c.interval[0].toFixed(2)}–${c.interval[1].toFixed(2)}`
  if (c.verdict === 'n/a') return '-'
  const n = Math.min(c.repetitions, c.baseline_repetitions)
  return c.verdict === 'no interval' ? `none (${n} rep.)` : '-'
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
