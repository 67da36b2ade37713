import path from 'node:path'
import { InputError } from '../../errors.js'

/**
 * The options of pgloadgen merge.
 * @param {import('yargs').Argv} y
 */
export function mergeBuilder(y) {
  return y
    .positional('dirs', {
      type: 'string',
      array: true,
      describe: 'the run directories of the instances (pgloadgen run --instance I/N --record DIR)'
    })
    .option('out', {
      type: 'string',
      describe: 'directory of the merged summary.json, samples and report.html (default: merged, next to the first DIR)'
    })
    .option('json', { type: 'boolean', default: false, describe: 'print the merged summary on stdout' })
}

/**
 * pgloadgen merge DIR… [--out DIR] [--json]: one summary and one report of
 * the instances' runs; prints the merged summary (--json) or the report's
 * path on stdout.
 * @type {import('./action-commands.js').CommandRun}
 */
export async function mergeCommand(args, { log, stdout }) {
  const dirs = /** @type {unknown[]} */ (args.dirs ?? []).map(String)
  if (dirs.length === 0) {
    throw new InputError('merge: give the run directories of the instances', { code: 'PGLG_MISSING_VALUE' })
  }
  if (args.out !== undefined && String(args.out).trim() === '') {
    throw new InputError('merge: --out must name a directory', { code: 'PGLG_MISSING_VALUE' })
  }
  const out = args.out === undefined ? path.join(path.dirname(path.resolve(dirs[0])), 'merged') : String(args.out)
  // the merge and the end table are loaded by this command alone, not at the CLI's start
  const { mergeRuns } = await import('../../merge/merge-runs.js')
  const { printSummaryTable } = await import('../../terminal/end-table.js')
  const { summaryJson } = await import('../../summary/summary-json.js')
  const { summary, report } = await mergeRuns(dirs, out, log)
  log.info(
    `merged ${summary.merged.runs} runs: ${summary.throughput} requests/s over ${summary.elapsed_s} s, p99 ${summary.latency_us.p99} µs, start skew ${summary.start_skew_ms} ms; report written to ${report}`
  )
  printSummaryTable(summary, { level: log.level, report })
  stdout.write(args.json ? summaryJson(summary) : `${report}\n`)
  return 0
}
