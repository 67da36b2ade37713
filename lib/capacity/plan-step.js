import path from 'node:path'
import { writeFile } from 'node:fs/promises'
import { runSpecWith } from '../lab/run-spec.js'
import { InputError, InvalidPlanError } from '../errors.js'
import { parseDuration } from '../config/number-flags.js'
import { checkSetting } from '../config/run-setting-checks.js'
import { parseObjectives } from './objective.js'
import { CAPACITY_DEFAULTS } from './defaults.js'

// A plan's capacity step: `- capacity: p99<10ms`, with the search's
// settings as fields of the step (start_rate, max_rate, step_factor,
// resolution, repeats, step, settle, concurrency; the command's defaults).
// The variant's own load is paused while the search runs its open loop in
// a session of its own on the same server, then resumes; the result is an
// event of the variant and capacity-<n>.json in its directory.

export const CAPACITY_STEP_FIELDS = [
  'capacity',
  'start_rate',
  'max_rate',
  'step_factor',
  'resolution',
  'repeats',
  'step',
  'settle',
  'concurrency'
]

/**
 * @typedef {object} CapacityStepSpec
 * @property {string[]} objectiveTexts   checked against the workload's types once it is known (checkObjectiveTypes)
 * @property {import('./capacity-run.js').CapacitySettings} settings
 * @property {number} concurrency
 */

/**
 * The step's fields, checked (exit 2 on a bad one) with the plan.
 * @param {Record<string, unknown>} step
 * @param {string} label
 * @returns {CapacityStepSpec}
 */
export function parseCapacityStep(step, label) {
  /**
   * @param {string} field
   * @param {number} fallback
   * @param {{ above: number, max?: number, integer?: boolean }} limits
   */
  const number = (field, fallback, { above, max = Number.MAX_SAFE_INTEGER, integer = false }) => {
    const value = step[field]
    if (value === undefined) return fallback
    const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(String(value).trim()) ? Number(value) : NaN
    if (!(n > above) || n > max || (integer && !Number.isInteger(n))) {
      throw new InputError(
        `${label}.${field} must be ${integer ? 'a whole number' : 'a number'} above ${above}${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ''}, got ${JSON.stringify(value)}`,
        { code: 'PGLG_INVALID_NUMBER' }
      )
    }
    return n
  }
  const texts = Array.isArray(step.capacity) ? step.capacity.map(String) : [String(step.capacity)]
  // the grammar now; the request types once the variant's workload is known
  const objectives = relabel(label, () => parseObjectives(texts, undefined))
  const startRate = number('start_rate', CAPACITY_DEFAULTS.startRate, { above: 0 })
  const maxRate = number('max_rate', CAPACITY_DEFAULTS.maxRate, { above: 0 })
  if (startRate > maxRate) {
    throw new InputError(`${label}: start_rate ${startRate} is above max_rate ${maxRate}`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  return {
    objectiveTexts: texts,
    settings: {
      objectives,
      search: {
        startRate,
        factor: number('step_factor', CAPACITY_DEFAULTS.factor, { above: 1, max: 100 }),
        maxRate,
        minRate: Math.min(CAPACITY_DEFAULTS.minRate, startRate),
        resolution: number('resolution', CAPACITY_DEFAULTS.resolution, { above: 0, max: 10 }),
        repeats: number('repeats', CAPACITY_DEFAULTS.repeats, { above: 0, max: 100, integer: true })
      },
      stepS:
        step.step === undefined ? CAPACITY_DEFAULTS.stepS : parseDuration(step.step, `${label}.step`, { max: 3600 }),
      settleS:
        step.settle === undefined || String(step.settle).trim() === '0'
          ? step.settle === undefined
            ? CAPACITY_DEFAULTS.settleS
            : 0
          : parseDuration(step.settle, `${label}.settle`, { max: 3600 })
    },
    concurrency:
      step.concurrency === undefined
        ? CAPACITY_DEFAULTS.concurrency
        : /** @type {number} */ (checkSetting('concurrency', step.concurrency, `${label}.concurrency`))
  }
}

/**
 * The objectives against the workload the step runs: a type it lacks, or a
 * workload that paces its own clients, is refused with the plan.
 * @param {CapacityStepSpec} spec
 * @param {import('../workloads/contract.js').Workload} workload
 * @param {string} label
 */
export function checkCapacityWorkload(spec, workload, label) {
  if (workload.pacing !== null) {
    throw new InputError(
      `${label}: the ${workload.name} workload paces its clients itself; a capacity step needs an open loop`,
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  spec.settings.objectives = relabel(label, () => parseObjectives(spec.objectiveTexts, workload.types))
}

/**
 * --objective's refusals, worded as the plan's field.
 * @template T
 * @param {string} label
 * @param {() => T} parse
 * @returns {T}
 */
function relabel(label, parse) {
  try {
    return parse()
  } catch (err) {
    if (err instanceof InputError) {
      throw new InvalidPlanError(err.message.replace(/^--objective/, `${label}.capacity`), { cause: err })
    }
    throw err
  }
}

/**
 * Runs the step: the variant's load paused, the search on a session of its
 * own, the variant's load resumed.
 * @param {object} options
 * @param {{ connectionString: string, display: string, embedded: boolean }} options.target
 * @param {import('../lab/load-session.js').LoadSession} options.session   the variant's
 * @param {CapacityStepSpec} options.spec
 * @param {string} options.label
 * @param {string} options.dir          the variant's directory
 * @param {import('../recorder/event-log.js').EventLog} options.events
 * @param {import('./capacity-run.js').Stop} options.stop
 * @param {import('../log.js').Logger} options.log
 */
export async function runCapacityStep({ target, session, spec, label, dir, events, stop, log }) {
  const [{ runCapacity, capacityJson }, { resultLine, stepLine }] = await Promise.all([
    import('./capacity-run.js'),
    import('./capacity-table.js')
  ])
  session.generator.pause()
  try {
    const outcome = await runCapacity({
      target,
      // the variant's load with the step's clients, on the variant's tables as they are, not recorded apart
      run: runSpecWith(session.spec, {
        concurrency: spec.concurrency,
        requestsPerClient: null,
        warmupS: null,
        stages: null,
        reset: false,
        recordDir: null
      }),
      capacity: spec.settings,
      describe: {},
      stop,
      onStep: step => log.info(`${label}: ${stepLine(step)}`),
      log
    })
    const line = resultLine(outcome.result, outcome.objective, outcome.generatorLimit)
    log.info(`${label}: ${line}`)
    const n = /\[(\d+)\]$/.exec(label)?.[1] ?? '0'
    await writeFile(
      path.join(dir, `capacity-${n}.json`),
      JSON.stringify(capacityJson(outcome, spec.settings), null, 2) + '\n'
    )
    const { result } = outcome
    await events.record({
      kind: 'point',
      action: 'capacity',
      detail: {
        objective: outcome.objective,
        verdict: outcome.generatorLimit ? 'generator_limited' : result.verdict,
        capacity: outcome.generatorLimit ? null : result.capacity,
        low: result.low,
        high: result.high,
        confidence: result.confidence
      }
    })
    return outcome
  } finally {
    session.generator.resume()
  }
}
