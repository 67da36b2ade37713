import { loadPlan } from '../../experiment/plan.js'
import { runExperiment } from '../../experiment/runner.js'
import { StopSignal } from '../stop-signal.js'

/**
 * pgloadgen experiment PLAN --out DIR: the plan is validated whole before
 * anything starts; SIGINT stops after the step in progress and still writes
 * the report of what ran (exit 1).
 * @type {import('./action-commands.js').CommandRun}
 */
export async function experimentCommand (args, { log }) {
  const plan = await loadPlan(args.plan)
  const stop = new StopSignal(log)
  try {
    return await runExperiment(plan, { out: args.out, stop, log })
  } finally {
    stop.dispose()
  }
}
