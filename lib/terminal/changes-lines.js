import { groupChanges } from '../analysis/explain.js'
import { describeCauses, describeChange, metricName } from '../analysis/wording.js'

// The end table's "what changed" block: at most five lines, one moment the
// run changed per line (the series that moved most, and how many others
// moved with it), with what the lab saw then on the same line or, when it
// does not fit, the next. Only a recorded run has one: the changes come
// from its samples.

export const MAX_LINES = 5

/**
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 * @returns {string[]}
 */
export function changesLines(summary, colours, width) {
  const changes = summary.changes
  if (!Array.isArray(changes)) return []
  if (changes.length === 0) return [`what changed: ${colours.green('nothing; the run was steady')}`]
  const groups = groupChanges(changes)
  const lines = [colours.bold('what changed:')]
  let shown = 0
  for (const group of groups) {
    const entry = momentLines(group, width)
    // keep a line to say how many more there are
    const reserve = shown + 1 < groups.length ? 1 : 0
    if (lines.length + entry.length + reserve > MAX_LINES) break
    lines.push(...entry)
    shown++
  }
  if (shown < groups.length) lines.push(`  … ${groups.length - shown} more in summary.json (changes)`)
  return lines
}

/**
 * One moment: "at 18 s: throughput 3500 → 1960/s (−44 %) (+1 more: p99 q); cause",
 * on two lines when one is too narrow (also for `pgloadgen compare`).
 * @param {{ at_s: number, changes: import('../analysis/explain.js').Change[],
 *     causes: import('../analysis/explain.js').Cause[] }} group
 * @param {number} width
 * @param {string} [lead]   before "at": an entry's letter, a repetition
 * @returns {string[]}
 */
export function momentLines(group, width, lead = '  ') {
  // the first series that moved, throughput before latencies; the others named
  const [first, ...others] = [...group.changes].sort((a, b) => seriesRank(a.metric) - seriesRank(b.metric))
  const more = others.length ? ` (+${others.length} more: ${others.map(c => metricName(c.metric)).join(', ')})` : ''
  const what = `${lead}at ${Math.round(group.at_s)} s: ${describeChange(first)}`
  const cause = describeCauses(group.causes)
  const one = `${what}${more}; ${cause}`
  if (one.length <= width) return [one]
  return [cut(`${what}${more}`, width), cut(`${' '.repeat(lead.length + 2)}${cause}`, width)]
}

/** @param {string} text @param {number} width */
function cut(text, width) {
  return text.length > width ? `${text.slice(0, Math.max(20, width - 1))}…` : text
}

/** @param {string} metric */
function seriesRank(metric) {
  return metric === 'throughput' ? 0 : metric.startsWith('p99_us:') ? 1 : 2
}
