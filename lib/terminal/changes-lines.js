import { groupChanges } from '../analysis/explain.js'
import { describeCauses, describeChange } from '../analysis/wording.js'

// The end table's "what changed" block: at most five lines, one per moment
// the run changed (its metrics that moved together, and what the lab saw
// then). Only a recorded run has one: the changes come from its samples.

export const MAX_LINES = 5

/**
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 * @returns {string[]}
 */
export function changesLines (summary, colours, width) {
  const changes = summary.changes
  if (!Array.isArray(changes)) return []
  if (changes.length === 0) return [`what changed: ${colours.green('nothing; the run was steady')}`]
  const groups = groupChanges(changes)
  const shown = groups.length > MAX_LINES - 1 ? groups.slice(0, MAX_LINES - 2) : groups
  const lines = [colours.bold('what changed:')]
  for (const group of shown) {
    // the first series that moved, throughput before latencies; the others counted
    const [first, ...others] = [...group.changes].sort((a, b) => seriesRank(a.metric) - seriesRank(b.metric))
    const what = `${describeChange(first)}${others.length ? ` (+${others.length} more series)` : ''}`
    const text = `  at ${Math.round(group.at_s)} s: ${what}; ${describeCauses(group.causes)}`
    lines.push(text.length > width ? `${text.slice(0, Math.max(20, width - 1))}…` : text)
  }
  if (shown.length < groups.length) lines.push(`  … ${groups.length - shown.length} more in summary.json (changes)`)
  return lines
}

/** @param {string} metric */
function seriesRank (metric) {
  return metric === 'throughput' ? 0 : metric.startsWith('p99_us:') ? 1 : 2
}
