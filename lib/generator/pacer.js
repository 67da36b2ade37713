import { performance } from 'node:perf_hooks'
import { PgPrng } from '../pgbench/expression/prng.js'
import { WHOLE, rateShare } from '../scale/share.js'

// The schedule of an open-loop run: intended start times at a fixed rate,
// evenly spaced or as a Poisson process. Workers take the next time when
// they are free, so a backlog is just times in the past, never a queue of
// objects; a request's latency counts from its intended start, so a stall of
// the server is charged to every request that should have gone out during it.
//
// A part of a split load (lib/scale/share.js) keeps arrivals k ≡ index (mod
// parts) of the one schedule: fixed arrivals are computed as origin + k ×
// interval, and Poisson ones are drawn by every part from the same seeded
// sequence, so the parts' arrivals together are exactly the single schedule.
export class Pacer {
  /**
   * @param {object} options
   * @param {number} options.rate      requests per second of the whole schedule
   * @param {'poisson' | 'fixed'} options.arrival
   * @param {number | null} options.maxLagMs
   * @param {import('../scale/share.js').Share} [options.share]  the part of the schedule this pacer keeps
   * @param {number | null} [options.seed]  seeds the Poisson gaps (needed for parts to agree); null: Math.random
   */
  constructor ({ rate, arrival, maxLagMs, share = WHOLE, seed = null }) {
    this.intervalMs = 1000 / rate
    // what this part starts a second, on average
    this.rate = rateShare(rate, share)
    this.poisson = arrival === 'poisson'
    this.maxLagMs = maxLagMs
    this.share = share
    this.seed = seed
    /** @type {PgPrng | null} */
    this.prng = null
    this.skipped = 0
    this.originMs = 0
    this.nextIndex = 0
    this.drawnIndex = 0
    this.drawnMs = 0
    this.restart()
  }

  /**
   * Starts the schedule over from originMs (default now; performance.now()
   * clock): parts that restart at the same origin stay one schedule.
   * @param {number} [originMs]
   */
  restart (originMs = performance.now()) {
    this.originMs = originMs
    // the next arrival of the whole schedule this part takes
    this.nextIndex = this.share.index
    // Poisson: arrival drawnIndex of the whole schedule is at drawnMs
    this.drawnIndex = 0
    this.drawnMs = originMs
    if (this.seed !== null) this.prng = new PgPrng(this.seed)
  }

  /**
   * A new rate of the whole schedule, from originMs on (default now): the
   * schedule starts over, so that what the old rate left undone is not owed
   * at the new one (a capacity search's steps: lib/capacity/).
   * @param {number} rate  requests per second, above 0
   * @param {number} [originMs]
   */
  setRate (rate, originMs = performance.now()) {
    this.intervalMs = 1000 / rate
    this.rate = rateShare(rate, this.share)
    this.restart(originMs)
  }

  /** The next intended start time (performance.now() clock, ms). */
  take () {
    const k = this.nextIndex
    this.nextIndex += this.share.parts
    if (!this.poisson) return this.originMs + k * this.intervalMs
    // every arrival before k is drawn too, though another part keeps it
    while (this.drawnIndex < k) {
      const u = this.prng === null ? Math.random() : this.prng.double()
      this.drawnMs += -Math.log(1 - u) * this.intervalMs
      this.drawnIndex++
    }
    return this.drawnMs
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
