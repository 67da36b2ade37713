import { InputError } from '../../errors.js'
import { validateRunArgs } from '../run-args.js'
import { parseCapacityFlags } from './capacity-command.js'
import { CAPACITY_DEFAULTS } from '../../capacity/defaults.js'
import { parseObjectives } from '../../capacity/objective.js'
import { StopSignal } from '../../helpers/stop-signal.js'
import { runSpecWith } from '../../lab/run-spec.js'

// The work of `pgloadgen capacity`: every flag checked first (one line,
// exit 2, nothing touched), then the target, the search and its report.

/**
 * @param {Record<string, any>} args
 * @param {{ log: import('../../log.js').Logger, stdout: { write: (s: string) => unknown },
 *     argv?: readonly string[] }} io
 * @returns {Promise<number>}
 */
export async function capacityRun(args, { log, stdout, argv = [] }) {
  // the search's own flags first: those that run would take but the search refuses
  const flags = parseCapacityFlags(args)
  const run = await validateRunArgs(/** @type {import('../run-args.js').RunArgs} */ (args), argv)
  const objectives = parseObjectives(flags.objectivesText, run.spec.workload.types)
  refuseUnsearchable(run.spec, flags)
  const capacity = capacitySettings(flags, objectives)
  const { recordDir } = run.spec
  const [{ openTarget }, { runCapacity }, { stepLine }] = await Promise.all([
    import('../target.js'),
    import('../../capacity/capacity-run.js'),
    import('../../capacity/capacity-table.js')
  ])
  const stop = new StopSignal(log)
  /** @type {import('../target.js').Target | null} */
  let target = null
  try {
    target = await openTarget({ url: run.url, server: run.server, pgPort: run.pgPort, log })
    if (stop.requested) return 0
    const outcome = await runCapacity({
      target: {
        connectionString: target.connectionString,
        display: target.display,
        embedded: target.embedded !== null
      },
      run: searchedLoad(args, run.spec),
      capacity,
      describe: { args: keptArgs(args), objective: objectives.map(o => o.text) },
      stop,
      onStep: step => log.info(stepLine(step)),
      log
    })
    await printOutcome(outcome, capacity, Boolean(args.json), stdout)
    if (recordDir) log.info(`recorded in ${recordDir} (capacity.json, samples, summary.json)`)
    return 0
  } finally {
    stop.dispose()
    if (target?.embedded) {
      await target.embedded
        .stop()
        .catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    }
  }
}

/**
 * Refuses a load the search cannot step: a workload that paces its own
 * clients, a start above the highest rate.
 * @param {Readonly<import('../../lab/run-spec.js').RunSpec>} spec
 * @param {ReturnType<typeof parseCapacityFlags>} flags
 */
function refuseUnsearchable(spec, flags) {
  if (spec.workload.pacing !== null) {
    throw new InputError(
      `capacity: the ${spec.workload.name} workload paces its clients itself; the search needs an open loop (its capacity: pgloadgen experiment notes/experiments/fleet-capacity.yaml)`,
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  if (flags.startRate > flags.maxRate) {
    throw new InputError(`--start-rate ${flags.startRate} is above --max-rate ${flags.maxRate}`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
}

/**
 * The search's settings from its flags.
 * @param {ReturnType<typeof parseCapacityFlags>} flags
 * @param {import('../../capacity/objective.js').Objective[]} objectives
 * @returns {import('../../capacity/capacity-run.js').CapacitySettings}
 */
function capacitySettings(flags, objectives) {
  return {
    objectives,
    search: {
      startRate: flags.startRate,
      factor: flags.factor,
      maxRate: flags.maxRate,
      minRate: Math.min(CAPACITY_DEFAULTS.minRate, flags.startRate),
      resolution: flags.resolution,
      repeats: flags.repeats
    },
    stepS: flags.stepS,
    settleS: flags.settleS,
    maxTimeS: flags.maxTimeS
  }
}

/**
 * The load the search steps the rate of, from run's flags: an open loop
 * has more clients than run's default, so that they are not the limit.
 * @param {Record<string, any>} args
 * @param {Readonly<import('../../lab/run-spec.js').RunSpec>} spec
 */
function searchedLoad(args, spec) {
  if (args.concurrency !== undefined || spec.workload.clients !== null) return spec
  return runSpecWith(spec, { concurrency: CAPACITY_DEFAULTS.concurrency })
}

/**
 * The steps' table and the result's line on stdout, or with --json the
 * outcome on stdout and the table on stderr.
 * @param {import('../../capacity/capacity-run.js').CapacityOutcome} outcome
 * @param {import('../../capacity/capacity-run.js').CapacitySettings} capacity
 * @param {boolean} json
 * @param {{ write: (s: string) => unknown }} stdout
 */
async function printOutcome(outcome, capacity, json, stdout) {
  const [{ capacityJson }, { stepsTable, resultLine }] = await Promise.all([
    import('../../capacity/capacity-run.js'),
    import('../../capacity/capacity-table.js')
  ])
  const table = stepsTable(outcome.steps).join('\n')
  const line = resultLine(outcome.result, outcome.objective, outcome.generatorLimit)
  if (json) {
    stdout.write(JSON.stringify(capacityJson(outcome, capacity)) + '\n')
    process.stderr.write(`${table}\n${line}\n`)
  } else {
    stdout.write(`${table}\n${line}\n`)
  }
}

/**
 * The flags as run.json keeps them: no secrets, no aliases.
 * @param {Record<string, unknown>} args
 */
function keptArgs(args) {
  /** @type {Record<string, unknown>} */
  const kept = {}
  for (const [key, value] of Object.entries(args)) {
    if (key.includes('-') || key.length === 1 || key === '$0' || key === 'controlToken' || key === 'pgUrl') continue
    kept[key] = value
  }
  return kept
}
