import { performance } from 'node:perf_hooks'
import { PeriodStats } from '../metrics/period-stats.js'
import { duration, ms, rate } from './figure-format.js'

// The progress of an experiment, every everyS seconds: which phase, which
// variant and repetition, the load's last period, and the time left. The
// time left counts the plan's load steps only (a wait for an action or a
// condition has no known length, nor has a rollback), so with waits it is
// a lower bound and says so.

/**
 * @typedef {object} ExperimentPhase   what the runner is doing (lib/experiment/runner.js)
 * @property {'prepare' | 'variant'} phase
 * @property {string} [variant]
 * @property {number} [repetition]   1, 2, …
 * @property {{ stats: import('../metrics/request-stats.js').RequestStats,
 *     generator: import('../generator/generator.js').LoadGenerator, started: number, closed: boolean }} session
 *   closed once its load ended: the runner is between phases (a rollback, the report)
 */

/**
 * @typedef {object} PlanShape   what the time left is computed from
 * @property {string} name
 * @property {number} repetitions
 * @property {Array<{ name: string, steps: Array<{ kind: string, seconds?: number }> }>} variants
 */

export class ExperimentProgress {
  /**
   * @param {import('./screen.js').Screen} screen
   * @param {PlanShape} plan
   * @param {number} everyS   0: no progress lines
   */
  constructor(screen, plan, everyS) {
    this.screen = screen
    this.plan = plan
    this.everyS = everyS
    /** @type {ExperimentPhase | null} */
    this.phase = null
    /** @type {PeriodStats | null} */
    this.periods = null
    /** @type {ReturnType<typeof setInterval> | null} */
    this.ticker = null
    /** @type {string | null} the last line between runs */
    this.said = null
  }

  /**
   * The runner's news: a phase's load has started.
   * @param {ExperimentPhase} phase
   */
  enter(phase) {
    this.phase = phase
    this.periods = new PeriodStats(phase.session.stats, phase.session.started)
    if (this.ticker === null && this.everyS > 0) {
      this.ticker = setInterval(() => this.tick(), this.everyS * 1000)
      this.ticker.unref()
    }
  }

  stop() {
    if (this.ticker !== null) clearInterval(this.ticker)
    this.ticker = null
  }

  /** @private */
  tick() {
    const phase = this.phase
    if (!phase || !this.periods) return
    const where =
      phase.phase === 'prepare'
        ? 'prepare'
        : `variant ${phase.variant}, repetition ${phase.repetition}/${this.plan.repetitions} (run ${this.runIndex(phase) + 1} of ${this.runs()})`
    if (phase.session.closed) {
      const left =
        phase.phase === 'prepare'
          ? this.timeLeft({ ...phase, phase: 'variant', variant: this.plan.variants[0]?.name, repetition: 1 }, 0)
          : this.timeLeft(phase, Infinity)
      const text = `after ${where}: between runs; ${left}`
      // said once: a log file needs no line a second that nothing changes
      if (text !== this.said) this.screen.progress(() => text)
      this.said = text
      return
    }
    this.said = null
    const period = this.periods.next(performance.now(), phase.session.generator.skipped)
    const load = `${rate(period.done / period.seconds)} requests/s, p99 ${ms(period.p99Us)} ms, ${period.failed} failed`
    const left = phase.phase === 'prepare' ? '' : `; ${this.timeLeft(phase, period.elapsedS)}`
    this.screen.progress(colours => `${where}, ${duration(period.elapsedS)} in: ${load}${colours.bold(left)}`)
  }

  /** Runs in the plan: its variants, interleaved, times its repetitions. */
  runs() {
    return this.plan.variants.length * this.plan.repetitions
  }

  /**
   * 0-based: the order the runner takes them in (A1 B1 A2 B2).
   * @param {ExperimentPhase} phase
   */
  runIndex(phase) {
    const variant = Math.max(
      0,
      this.plan.variants.findIndex(v => v.name === phase.variant)
    )
    return ((phase.repetition ?? 1) - 1) * this.plan.variants.length + variant
  }

  /**
   * "1 min 05 s left", or "at least …" when the plan waits on something.
   * @param {ExperimentPhase} phase
   * @param {number} elapsedS  in the current run
   */
  timeLeft(phase, elapsedS) {
    const order = Array.from({ length: this.plan.repetitions }, () => this.plan.variants).flat()
    const now = this.runIndex(phase)
    let seconds = Math.max(0, loadSeconds(order[now]) - elapsedS)
    for (const variant of order.slice(now + 1)) seconds += loadSeconds(variant)
    const waits = order.slice(now).some(v => v.steps.some(step => step.kind === 'wait'))
    return `${waits ? 'at least ' : ''}${duration(seconds)} left`
  }
}

/**
 * The seconds of a variant's load steps.
 * @param {PlanShape['variants'][number] | undefined} variant
 */
function loadSeconds(variant) {
  return (variant?.steps ?? []).reduce((sum, step) => sum + (step.kind === 'load' ? (step.seconds ?? 0) : 0), 0)
}
