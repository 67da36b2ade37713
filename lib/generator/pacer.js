import { performance } from 'node:perf_hooks'

// The schedule of an open-loop run: intended start times at a fixed rate,
// evenly spaced or as a Poisson process. Workers take the next time when
// they are free, so a backlog is just times in the past, never a queue of
// objects; a request's latency counts from its intended start, so a stall of
// the server is charged to every request that should have gone out during it.
export class Pacer {
  /**
   * @param {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null }} options
   */
  constructor ({ rate, arrival, maxLagMs }) {
    this.intervalMs = 1000 / rate
    this.poisson = arrival === 'poisson'
    this.maxLagMs = maxLagMs
    this.nextMs = performance.now()
    this.skipped = 0
  }

  /** Starts the schedule over from now. */
  restart () {
    this.nextMs = performance.now()
  }

  /** The next intended start time (performance.now() clock, ms). */
  take () {
    const at = this.nextMs
    this.nextMs += this.poisson ? -Math.log(1 - Math.random()) * this.intervalMs : this.intervalMs
    return at
  }

  /**
   * The next intended time that is not hopelessly late: times more than
   * maxLagMs in the past are skipped and counted, like pgbench --latency-limit.
   */
  takeOnTime () {
    let at = this.take()
    if (this.maxLagMs !== null) {
      const oldest = performance.now() - this.maxLagMs
      while (at < oldest) {
        this.skipped++
        at = this.take()
      }
    }
    return at
  }
}
