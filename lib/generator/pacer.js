import { performance } from 'node:perf_hooks'
import { PgPrng } from '../pgbench/expression/prng.js'
import { WHOLE, rateShare } from '../scale/share.js'
import { areaUntil, timeOfArea } from '../config/stages.js'

// An arrival that never comes (a profile that ends at 0): as far off as a timer can wait.
const NEVER_MS = 2 ** 31 - 2

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
//
// With a profile (--stages with --rate: lib/config/stages.js) the rate
// changes over time: arrival k is where the profile's integral, the arrivals
// due so far, reaches k (fixed), or the sum of k unit exponential gaps
// (Poisson, an inhomogeneous process by time rescaling). A stall is still
// owed at the rate the profile had then.
export class Pacer {
  /**
   * @param {object} options
   * @param {number} options.rate      requests per second of the whole schedule
   * @param {'poisson' | 'fixed'} options.arrival
   * @param {number | null} options.maxLagMs
   * @param {import('../scale/share.js').Share} [options.share]  the part of the schedule this pacer keeps
   * @param {number | null} [options.seed]  seeds the Poisson gaps (needed for parts to agree); null: Math.random
   * @param {import('../config/stages.js').Profile | null} [options.profile]  the whole schedule's rate over the seconds
   *   since begin() (rate: where it starts)
   */
  constructor({ rate, arrival, maxLagMs, share = WHOLE, seed = null, profile = null }) {
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
    // Poisson: arrival drawnIndex is this many mean gaps after the origin
    this.drawn = 0
    this.profile = profile
    // the profile's second 0: the load's start, kept through a pause
    this.profileOriginMs = performance.now()
    // the profile's arrivals due before the origin, which the schedule does not owe
    this.areaBase = 0
    this.restart()
  }

  /**
   * Starts the schedule, and a profile's time, at originMs (performance.now() clock).
   * @param {number} originMs
   */
  begin(originMs) {
    this.profileOriginMs = originMs
    this.restart(originMs)
  }

  /**
   * Starts the schedule over from originMs (default now; performance.now()
   * clock): parts that restart at the same origin stay one schedule.
   * @param {number} [originMs]
   */
  restart(originMs = performance.now()) {
    this.originMs = originMs
    // the next arrival of the whole schedule this part takes
    this.nextIndex = this.share.index
    this.drawnIndex = 0
    this.drawn = 0
    if (this.profile) this.areaBase = areaUntil(this.profile, (originMs - this.profileOriginMs) / 1000)
    if (this.seed !== null) this.prng = new PgPrng(this.seed)
  }

  /**
   * A new rate of the whole schedule, from originMs on (default now): the
   * schedule starts over, so that what the old rate left undone is not owed
   * at the new one (a capacity search's steps: lib/capacity/).
   * @param {number} rate  requests per second, above 0
   * @param {number} [originMs]
   */
  setRate(rate, originMs = performance.now()) {
    this.intervalMs = 1000 / rate
    this.rate = rateShare(rate, this.share)
    this.profile = null
    this.restart(originMs)
  }

  /** The next intended start time (performance.now() clock, ms). */
  take() {
    const k = this.nextIndex
    this.nextIndex += this.share.parts
    if (!this.poisson) return this.timeOf(k)
    // every arrival before k is drawn too, though another part keeps it
    while (this.drawnIndex < k) {
      const u = this.prng === null ? Math.random() : this.prng.double()
      this.drawn += -Math.log(1 - u)
      this.drawnIndex++
    }
    return this.timeOf(this.drawn)
  }

  /**
   * When the arrival `position` mean gaps after the origin is due.
   * @param {number} position
   */
  timeOf(position) {
    if (this.profile === null) return this.originMs + position * this.intervalMs
    const seconds = timeOfArea(this.profile, this.areaBase + position)
    return Number.isFinite(seconds) ? this.profileOriginMs + seconds * 1000 : performance.now() + NEVER_MS
  }

  /**
   * The next intended time that is not hopelessly late: times more than
   * maxLagMs in the past are skipped and counted, like pgbench --latency-limit.
   */
  takeOnTime() {
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
