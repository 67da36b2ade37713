import { ConcurrencyRamp } from '../config/stages.js'
import { markWarmup } from '../summary/warmup.js'

// --stages and --warmup over one load: the closed loop's clients following
// the stages (an open loop's schedule follows them itself: pacer.js), and
// the mark of the warm-up's end, taken when it ends, which the summary's
// figures count from (summary/warmup.js).

/**
 * How far the load has gone: its seconds and the process's CPU time since it started.
 * @typedef {() => { seconds: number, cpu: { user: number, system: number } }} LoadClock
 */

export class LoadOverTime {
  /**
   * @param {object} options
   * @param {import('./run-spec.js').RunSpec['stages']} options.stages
   * @param {number | null} options.warmupS
   * @param {boolean} options.openLoop   the stages are the schedule's, not the clients'
   * @param {import('../metrics/request-stats.js').RequestStats} options.stats
   * @param {import('../generator/generator.js').LoadGenerator} options.generator
   * @param {import('../log.js').Logger} options.log
   */
  constructor(options) {
    this.options = options
    /** @type {ConcurrencyRamp | null} */
    this.ramp = null
    /** @type {import('../summary/warmup.js').WarmupMark | null} what the stats held when the warm-up ended */
    this.mark = null
    /** @type {NodeJS.Timeout | undefined} */
    this.timer = undefined
  }

  /**
   * @param {number} startedAtMs   the load's start (Date.now() clock)
   * @param {LoadClock} clock
   */
  start(startedAtMs, clock) {
    const { stages, warmupS, openLoop, stats, generator, log } = this.options
    if (stages && !openLoop) {
      this.ramp = new ConcurrencyRamp({
        profile: stages.profile,
        apply: n => generator.setConcurrency(n),
        current: () => generator.concurrency,
        originMs: startedAtMs
      }).start()
    }
    if (warmupS) {
      this.timer = setTimeout(() => {
        const { seconds, cpu } = clock()
        this.mark = markWarmup(stats, generator, seconds, cpu)
        log.info(`warm-up over after ${warmupS} s: the summary counts from now`)
      }, warmupS * 1000)
    }
  }

  stop() {
    this.ramp?.stop()
    clearTimeout(this.timer)
  }

  /**
   * The mark of the warm-up's end, once the load has stopped; a load that
   * ended during its warm-up has all of it there, and nothing left for the
   * summary's figures.
   * @param {LoadClock} clock   read now: the load's end
   */
  markAtEnd(clock) {
    const { warmupS, stats, generator, log } = this.options
    if (!warmupS || this.mark) return this.mark
    log.warn(
      `the load ended during its ${warmupS} s warm-up: the summary has no figures after it`,
      'PGLG_W_WARMUP_UNFINISHED'
    )
    const { seconds, cpu } = clock()
    return markWarmup(stats, generator, seconds, cpu)
  }
}
