import { groupChanges } from '../analysis/explain.js'
import { describeCauses, describeChange, metricName } from '../analysis/wording.js'

// The end table's "what changed" block: at most five lines, one moment the
// run changed per line (the series that moved most, and how many others
// moved with it), with what the lab saw then on the same line or, when it
// does not fit, the next; in time order. When the moments do not all fit,
// those whose throughput moved, and then those that moved most, are shown.
// Only a recorded run has one: the changes come from its samples.

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
  const entries = groups.map(group => ({ group, lines: momentLines(group, width) }))
  const all = entries.reduce((n, e) => n + e.lines.length, 1)
  // the moments that moved most when they do not all fit, a line kept to say how many more there are
  const budget = all <= MAX_LINES ? MAX_LINES - 1 : MAX_LINES - 2
  /** @type {Set<(typeof entries)[number]>} */
  const chosen = new Set()
  let used = 0
  for (const entry of [...entries].sort((a, b) => weight(b.group) - weight(a.group))) {
    if (used + entry.lines.length > budget) continue
    chosen.add(entry)
    used += entry.lines.length
  }
  const lines = [colours.bold('what changed:'), ...entries.filter(e => chosen.has(e)).flatMap(e => e.lines)]
  if (chosen.size < groups.length) lines.push(`  … ${groups.length - chosen.size} more in summary.json (changes)`)
  return lines
}

/**
 * How much a moment moved, to choose the moments the block shows: one
 * whose throughput moved before any other, then by the largest change (a
 * change from or to nothing, such as a stall, counts as the whole).
 * @param {{ changes: import('../analysis/explain.js').Change[] }} group
 */
function weight({ changes }) {
  const size = (/** @type {import('../analysis/explain.js').Change} */ c) =>
    c.effect === null ? 1 : Math.min(1, Math.abs(c.effect))
  const throughput = changes.filter(c => c.metric === 'throughput')
  return (throughput.length > 0 ? 2 : 0) + Math.max(0, ...(throughput.length > 0 ? throughput : changes).map(size))
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
