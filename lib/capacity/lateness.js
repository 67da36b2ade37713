import { monitorEventLoopDelay } from 'node:perf_hooks'

// The generator's own lateness during a step: how late its timers fire
// (the event loop's delay, sampled every RESOLUTION_MS by Node's
// monitorEventLoopDelay). A request's latency counts from its intended
// start, so a generator whose timers fire late, or that reads a response
// late, adds that lateness to the latencies it measures: on a machine short
// of CPU the latency percentiles are partly the generator's. The schedule
// lag cannot tell this apart, since it also holds the wait for a free
// client, which is the queue the objective is about.

const RESOLUTION_MS = 5

export class LatenessProbe {
  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
    this.histogram.enable()
  }

  /** From now on: a step's measured part begins. */
  mark() {
    this.histogram.reset()
  }

  /**
   * The p99 of the lateness since mark(), µs (the sampling interval taken out); null without a sample.
   * @returns {number | null}
   */
  p99Us() {
    if (this.histogram.count === 0) return null
    return Math.max(0, this.histogram.percentile(99) / 1000 - RESOLUTION_MS * 1000)
  }

  close() {
    this.histogram.disable()
  }
}
