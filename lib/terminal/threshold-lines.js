import { formatLimit, formatValue } from '../config/thresholds.js'
import { abortLine } from '../summary/threshold-verdicts.js'
import { renderTable } from './table.js'

// The end table's thresholds: a row each, as --threshold gave them, with
// the figure the run reached and pass or FAIL, read from the summary's
// `thresholds` field; then what stopped the run early, if anything.

/**
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 * @returns {string[]}
 */
export function thresholdLines(summary, colours, width) {
  /** @type {import('../summary/threshold-verdicts.js').ThresholdResult[]} */
  const results = Array.isArray(summary.thresholds) ? summary.thresholds : []
  if (results.length === 0) return []
  const columns = [
    { title: 'threshold', flexible: true, min: 12 },
    { title: 'limit', align: /** @type {const} */ ('right') },
    { title: 'value', align: /** @type {const} */ ('right') },
    { title: 'result' }
  ]
  const none = (/** @type {string} */ s) => s
  const rows = results.map(result => ({
    cells: [result.expr, formatLimit(result), formatValue(result.value, result.unit), result.pass ? 'pass' : 'FAIL'],
    cellStyles: [
      none,
      none,
      none,
      result.pass ? colours.green : (/** @type {string} */ s) => colours.red(colours.bold(s))
    ]
  }))
  const failed = results.filter(result => !result.pass).length
  const verdict =
    failed === 0
      ? colours.green(`thresholds: all ${results.length} held`)
      : colours.red(colours.bold(`thresholds: ${failed} of ${results.length} failed (exit 3)`))
  return [
    '',
    ...renderTable(columns, rows, { width, header: colours.dim }),
    verdict,
    ...(summary.threshold_abort ? [colours.red(abortLine(summary.threshold_abort))] : [])
  ]
}
