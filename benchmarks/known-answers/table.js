// The known-answer suite's table: one row per scenario, the lab's answer
// beside the truth, as Markdown (readable in a terminal and pasted as is
// into docs/results.md).

/** @typedef {import('./contract.js').KnownAnswerRow} KnownAnswerRow */

const COLUMNS = /** @type {const} */ (['part', 'scenario', 'cases', 'result', 'truth', 'error', 'target', 'met'])

/**
 * A cell's text: Markdown's column bar escaped, one line.
 * @param {unknown} value
 */
function cell(value) {
  const text = typeof value === 'boolean' ? (value ? 'yes' : '**no**') : String(value)
  return text.replaceAll('|', '\\|').replaceAll(/\s*\n\s*/g, ' ')
}

/**
 * The rows as a Markdown table, with a last line counting the targets met.
 * @param {KnownAnswerRow[]} rows
 * @returns {string[]}
 */
export function tableLines(rows) {
  const lines = [`| ${COLUMNS.join(' | ')} |`, `| ${COLUMNS.map(() => '---').join(' | ')} |`]
  for (const row of rows) lines.push(`| ${COLUMNS.map(column => cell(row[column])).join(' | ')} |`)
  const met = rows.filter(row => row.met).length
  lines.push('', `${met} of ${rows.length} targets met`)
  return lines
}

/**
 * Where the figures came from, in one line: the processor, its cores, the
 * load average before the suite and after it, Node and the date.
 * @param {{ cpu: string, cores: number, loadBefore: number, loadAfter: number, node: string, date: Date }} machine
 */
export function machineLine(machine) {
  const day = machine.date.toISOString().slice(0, 10)
  return (
    `${day}: ${machine.cpu}, ${machine.cores} cores, load average ${machine.loadBefore.toFixed(1)} before and ` +
    `${machine.loadAfter.toFixed(1)} after, Node ${machine.node}`
  )
}
