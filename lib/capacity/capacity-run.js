import path from 'node:path'
import { writeFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { createRegistry } from '../metrics/generator-metrics.js'
import { LoadSession } from '../lab/load-session.js'
import { runSpecWith } from '../lab/run-spec.js'
import { CapacitySearch } from './search.js'
import { markStep, measureStep } from './step-measure.js'
import { LatenessProbe } from './lateness.js'
import { generatorLimit } from './generator-limit.js'
import { describeObjectives } from './objective.js'
import { CAPACITY_DEFAULTS } from './defaults.js'
import { measuredSeconds, tailShare, withNoisyResolution } from './step-length.js'
import { round } from '../helpers/numbers.js'

// One capacity search on a server: one load session, open loop, whose rate
// the search changes between steps (the pacer starts its schedule over at
// each), so that the schema, the connections and the workload's setup are
// made once for every step. `pgloadgen capacity` drives it
// (lib/cli/commands/capacity-command.js).

// How long the search waits for its clients' connections before the first step.
const CONNECT_WAIT_MS = 15000

/**
 * What stops a search: a signal to the command, or the plan's stop (the
 * CLI's StopSignal has this shape; the capacity layer does not import it).
 * @typedef {object} Stop
 * @property {boolean} requested
 * @property {Promise<unknown>} promise
 * @property {(seconds: number) => Promise<unknown>} wait
 */

/**
 * @typedef {object} CapacitySettings
 * @property {import('./objective.js').Objective[]} objectives
 * @property {import('./search.js').SearchOptions} search
 * @property {number} stepS      measured seconds of a step, at least (step-length.js measuredSeconds)
 * @property {number} settleS    seconds at a step's rate before it is measured
 * @property {number} [maxTimeS] the search ends (unsettled) rather than start a step that would end more than this
 *   many seconds after the session began to open; default CAPACITY_DEFAULTS.maxTimeS
 */

/** @typedef {import('./step-measure.js').CapacityStep} CapacityStep */
/** @typedef {import('../lab/run-spec.js').RunSpec} RunSpec */

/**
 * @typedef {object} CapacityOutcome
 * @property {string} objective            as one phrase
 * @property {CapacityStep[]} steps
 * @property {import('./search.js').SearchResult} result
 * @property {import('./generator-limit.js').GeneratorLimit | null} generatorLimit  the generator, not the server,
 *   decided the result: no capacity is stated
 * @property {Awaited<ReturnType<LoadSession['finish']>> | null} summary   the whole session's (every step together)
 */

/**
 * @param {object} options
 * @param {{ connectionString: string, display: string, embedded: boolean }} options.target
 * @param {Readonly<RunSpec>} options.run   the load whose rate the search steps: what `pgloadgen capacity` took
 *   from run's flags, or a plan's variant's load
 * @param {CapacitySettings} options.capacity
 * @param {Record<string, unknown>} options.describe   for run.json
 * @param {Stop} options.stop
 * @param {(step: CapacityStep) => void} options.onStep
 * @param {import('../log.js').Logger} options.log
 * @returns {Promise<CapacityOutcome>}
 */
export async function runCapacity({ target, run, capacity, describe, stop, onStep, log }) {
  const { recordDir } = run
  // the time limit counts from here: opening the session and its connections are part of the answer's wait
  const started = performance.now()
  const tail = tailShare(capacity.objectives)
  const search = new CapacitySearch(withNoisyResolution(capacity.search, tail, capacity.stepS))
  const firstRate = /** @type {number} */ (search.next())
  const session = await openSession({ target, run, firstRate, describe, log })
  /** @type {CapacityStep[]} */
  let steps = []
  /** @type {CapacityOutcome['summary']} */
  let summary = null
  const lateness = new LatenessProbe()
  try {
    if (!(await session.start({ interrupted: stop.promise }))) {
      search.stop()
      const result = search.result()
      return { objective: describeObjectives(capacity.objectives), steps, result, generatorLimit: null, summary }
    }
    // one thread (the command refuses --threads): the generator is the one that owns the pacer
    const generator = /** @type {import('../generator/generator.js').Generator} */ (
      /** @type {unknown} */ (session.generator)
    )
    log.info(
      `capacity: ${describeObjectives(capacity.objectives)}; steps of ${capacity.settleS} s settling and ${capacity.stepS} s measured or more, from ${firstRate} requests/s`
    )
    await awaitConnections(generator, stop)
    steps = await runSteps({ search, generator, session, lateness, capacity, tail, started, stop, onStep })
    search.stop()
    summary = await session.finish()
    const result = search.result()
    const outcome = {
      objective: describeObjectives(capacity.objectives),
      steps,
      result,
      generatorLimit: generatorLimit(steps, result, capacity.objectives),
      summary
    }
    if (recordDir) {
      await writeFile(
        path.join(recordDir, 'capacity.json'),
        JSON.stringify(capacityJson(outcome, capacity), null, 2) + '\n'
      )
    }
    return outcome
  } finally {
    lateness.close()
    await session.close()
  }
}

/**
 * The search's one load session, open loop from the first step's rate, on
 * one thread; the server's statistics polled when the search is recorded.
 * @param {object} options
 * @param {{ connectionString: string, display: string, embedded: boolean }} options.target
 * @param {Readonly<RunSpec>} options.run
 * @param {number} options.firstRate
 * @param {Record<string, unknown>} options.describe
 * @param {import('../log.js').Logger} options.log
 */
function openSession({ target, run, firstRate, describe, log }) {
  const spec = runSpecWith(run, {
    rate: firstRate,
    maxLagMs: null,
    threads: 1,
    pgStats: run.recordDir !== null,
    pgstattuple: false
  })
  return LoadSession.open(spec, {
    target,
    describe: { command: 'capacity', ...describe },
    registry: createRegistry(),
    log
  })
}

/**
 * Waits for the clients' connections, CONNECT_WAIT_MS at most: the first
 * step must not pay for opening them.
 * @param {import('../generator/generator.js').Generator} generator
 * @param {Stop} stop
 */
async function awaitConnections(generator, stop) {
  const opened = performance.now()
  while (
    !stop.requested &&
    generator.connections < generator.concurrency &&
    performance.now() - opened < CONNECT_WAIT_MS
  )
    await stop.wait(0.05)
}

/**
 * The search's steps, one rate each, until it settles, is stopped or its
 * time is up.
 * @param {object} options
 * @param {CapacitySearch} options.search
 * @param {import('../generator/generator.js').Generator} options.generator
 * @param {LoadSession} options.session
 * @param {LatenessProbe} options.lateness
 * @param {CapacitySettings} options.capacity
 * @param {ReturnType<typeof tailShare>} options.tail
 * @param {number} options.started   performance.now() when the search began
 * @param {Stop} options.stop
 * @param {(step: CapacityStep) => void} options.onStep
 * @returns {Promise<CapacityStep[]>}
 */
async function runSteps({ search, generator, session, lateness, capacity, tail, started, stop, onStep }) {
  /** @type {CapacityStep[]} */
  const steps = []
  const budgetS = capacity.maxTimeS ?? CAPACITY_DEFAULTS.maxTimeS
  const { settleS } = capacity
  for (let rate = search.next(); rate !== null && !stop.requested; rate = search.next()) {
    const elapsedS = (performance.now() - started) / 1000
    const stepsLeft = search.stepsLeft()
    const stepS = measuredSeconds({
      rate,
      tail,
      stepS: capacity.stepS,
      settleS,
      remainingS: budgetS - elapsedS,
      stepsLeft
    })
    if (elapsedS + settleS + stepS > budgetS) {
      search.timeUp()
      break
    }
    generator.setRate(rate)
    // requests in flight from the step before end, and the server settles at the new rate
    await stop.wait(settleS)
    const mark = markStep(session.stats, performance.now())
    lateness.mark()
    await stop.wait(stepS)
    if (stop.requested) break
    const phase = /** @type {CapacityStep['phase']} */ (search.phase)
    const step = {
      step: steps.length + 1,
      phase,
      ...measureStep(session.stats, mark, performance.now(), rate, capacity.objectives, lateness.p99Us())
    }
    steps.push(step)
    search.record(step.held)
    onStep(step)
  }
  return steps
}

/**
 * What --json prints and capacity.json keeps: the method's settings, every
 * step and the result; the session's acknowledged-write check.
 * @param {CapacityOutcome} outcome
 * @param {CapacitySettings} capacity
 */
export function capacityJson({ objective, steps, result, generatorLimit, summary }, capacity) {
  const s = /** @type {Record<string, any> | null} */ (summary)
  return {
    objective,
    unit: 'requests/s',
    // the generator decided the figures: no capacity of the server is stated
    capacity: generatorLimit ? null : result.capacity,
    interval:
      result.low === null
        ? null
        : {
            low: result.low,
            high: result.high,
            confidence: result.confidence === null ? null : round(result.confidence, 3)
          },
    verdict: generatorLimit ? 'generator_limited' : result.verdict,
    search_verdict: result.verdict,
    generator_limit: generatorLimit && {
      reason: generatorLimit.reason,
      lateness_p99_us: generatorLimit.latenessP99Us === null ? null : Math.round(generatorLimit.latenessP99Us),
      limit_us: generatorLimit.limitUs,
      steps: generatorLimit.steps
    },
    boundary_steps: { low: result.lowSteps, high: result.highSteps },
    highest_held: result.highestHeld,
    lowest_broken: result.lowestBroken,
    method: {
      start_rate: capacity.search.startRate,
      step_factor: capacity.search.factor,
      max_rate: capacity.search.maxRate,
      min_rate: capacity.search.minRate,
      resolution: capacity.search.resolution,
      repeats: capacity.search.repeats,
      step_s: capacity.stepS,
      tail_requests: CAPACITY_DEFAULTS.tailRequests,
      max_step_s: CAPACITY_DEFAULTS.maxStepFactor * capacity.stepS,
      settle_s: capacity.settleS,
      max_time_s: capacity.maxTimeS ?? CAPACITY_DEFAULTS.maxTimeS,
      interval:
        'the rate at which a step holds the objective half the time lies in [low, high] with the confidence given (a sign test on the steps at each end, once per rate tried there: docs/capacity.md); capacity is its geometric middle',
      arrival: s?.arrival ?? null
    },
    steps: steps.map(step => ({
      step: step.step,
      phase: step.phase,
      rate: step.rate,
      achieved: round(step.achieved, 1),
      rows_per_s: round(step.rowsPerS, 1),
      seconds: round(step.seconds, 2),
      requests: step.done,
      unexpected_failures: step.unexpected,
      p50_us: step.p50Us,
      p99_us: step.p99Us,
      lag_p99_us: step.lagP99Us,
      generator_lateness_p99_us: step.latenessP99Us === null ? null : Math.round(step.latenessP99Us),
      objectives: step.objectives.map(o => ({ objective: o.objective, value_us: o.valueUs, kept: o.kept })),
      kept_pace: step.keptPace,
      held: step.held
    })),
    session: s && {
      workload: s.workload,
      target: s.target,
      concurrency: s.concurrency,
      server_version: s.server_version,
      elapsed_s: s.elapsed_s,
      unexpected_failures: s.unexpected_failures ?? null,
      acknowledged_inserts: s.acknowledged_inserts ?? null,
      acknowledged_missing: s.acknowledged_missing ?? null,
      rows_missing: s.rows_missing ?? null
    }
  }
}
