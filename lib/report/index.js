import { InputError } from '../errors.js'
import { readFile } from 'node:fs/promises'
import { writeReport } from './render.js'
import { verdictLines } from '../results/statistics.js'

export { renderReport, writeReport, buildReport } from './render.js'
export { experimentSummary, runPhases, aggregate, METHOD } from './phases.js'
export { findAction } from '../results/run-actions.js'
export { runWhole, wholeSpread, WHOLE_RUN_METHOD } from '../results/whole-run.js'
export { bootstrapMean } from '../results/bootstrap-interval.js'
export { compareVariants, variantStatistics, verdictLines, STATISTICS_METHOD } from '../results/statistics.js'

/**
 * `pgloadgen report DIR`: writes DIR/report.html (and DIR/summary.json for
 * an experiment), prints the report's path on stdout and returns 0. A
 * missing or unreadable DIR throws an InputError (exit 2, one line).
 * @param {{ dir?: string }} args
 * @param {{ log: import('../log.js').Logger, stdout: { write: (s: string) => unknown } }} io
 * @returns {Promise<number>}
 */
export async function reportCommand(args, { log, stdout }) {
  const dir = args.dir
  if (typeof dir !== 'string' || dir.trim() === '') {
    throw new InputError('report: give a run or experiment directory', { code: 'PGLG_MISSING_VALUE' })
  }
  const written = await writeReport(dir)
  // an experiment's verdicts in words (statistics.js), on stderr with the log
  if (written.summary) {
    for (const line of verdictLines(JSON.parse(await readFile(written.summary, 'utf8')))) log.info(line)
  }
  log.info(
    `${written.kind} report written to ${written.report}${written.summary ? `, summary to ${written.summary}` : ''}`
  )
  stdout.write(`${written.report}\n`)
  return 0
}
