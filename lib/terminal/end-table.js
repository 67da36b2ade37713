import { Screen } from './screen.js'
import { summaryTable } from './summary-table.js'

/**
 * The end table of a summary on stderr, for a command with no progress
 * line of its own (merge): coloured on a terminal, hidden at --log-level
 * silent.
 * @param {Record<string, any>} summary
 * @param {{ level: import('../log.js').LevelName, report?: string | null, recordDir?: string | null,
 *     stream?: import('./status-line.js').TerminalStream }} options
 */
export function printSummaryTable(summary, { level, report = null, recordDir = null, stream = process.stderr }) {
  new Screen({ stream, level }).print((colours, width) => summaryTable(summary, { colours, width, report, recordDir }))
}
