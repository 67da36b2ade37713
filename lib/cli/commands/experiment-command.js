import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { loadPlan } from '../../experiment/plan.js'
import { runExperiment } from '../../experiment/runner.js'
import { StopSignal } from '../../helpers/stop-signal.js'
import { parseProgress } from '../progress-option.js'
import { Screen } from '../../terminal/screen.js'
import { ExperimentProgress } from '../../terminal/experiment-progress.js'
import { comparisonTable } from '../../terminal/comparison-table.js'
import { answerLines } from '../../terminal/answer-lines.js'
import { experimentAnswer } from '../../report/answer-lead.js'

/**
 * pgloadgen experiment PLAN --out DIR: the plan is validated whole before
 * anything starts; SIGINT stops after the step in progress and still writes
 * the report of what ran (exit 1). The progress goes to stderr as it runs,
 * the plan's question and its answer at the end, then the report's comparison
 * table.
 * @type {import('./action-commands.js').CommandRun}
 */
export async function experimentCommand(args, { log: plainLog }) {
  const plan = await loadPlan(args.plan)
  const everyS = parseProgress(args.progress)
  // from here every log line goes through the screen: above the progress line on a terminal
  const screen = new Screen({ stream: process.stderr, level: plainLog.level })
  const log = screen.log
  const progress = new ExperimentProgress(screen, plan, everyS)
  const stop = new StopSignal(log)
  try {
    const code = await runExperiment(plan, { out: args.out, stop, log, onPhase: phase => progress.enter(phase) })
    progress.stop()
    const summaryFile = path.join(path.resolve(args.out), 'summary.json')
    if (existsSync(summaryFile)) {
      const summary = JSON.parse(await readFile(summaryFile, 'utf8'))
      // the question and its answer first, then the tables
      const answer = experimentAnswer({ question: plan.question, expect: plan.expect }, summary)
      screen.print((colours, width) => [
        ...answerLines(answer, { colours, width }),
        ...comparisonTable(summary, { colours, width }),
        `report: ${path.join(path.resolve(args.out), 'report.html')}`
      ])
    }
    return code
  } finally {
    progress.stop()
    stop.dispose()
    screen.end()
  }
}
