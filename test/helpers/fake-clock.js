// A fake clock for the duration of a test: performance.now(), setTimeout and
// clearTimeout answer to it, and time moves only when the test advances it,
// so that no test depends on how fast a loaded machine is. setImmediate and
// promises stay real: advance() lets what a timer started run on.
import { performance } from 'node:perf_hooks'

/**
 * @typedef {object} FakeTimer
 * @property {number} at
 * @property {number} order
 * @property {() => void} fire
 * @property {() => FakeTimer} unref
 * @property {() => FakeTimer} ref
 */

export class FakeClock {
  /** @param {number} [startMs]  what performance.now() reads at first */
  constructor(startMs = 1000) {
    this.nowMs = startMs
    /** @type {Set<FakeTimer>} */
    this.timers = new Set()
    this.order = 0
  }

  /**
   * Puts the clock in place until the test ends.
   * @param {{ teardown: (fn: () => void) => void }} t
   */
  install(t) {
    const saved = { now: performance.now, setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout }
    performance.now = () => this.nowMs
    globalThis.setTimeout = /** @type {any} */ (
      (/** @type {(...args: unknown[]) => void} */ fire, /** @type {number} */ ms, /** @type {unknown[]} */ ...args) =>
        this.schedule(() => fire(...args), ms)
    )
    globalThis.clearTimeout = /** @type {any} */ ((/** @type {FakeTimer} */ timer) => this.timers.delete(timer))
    t.teardown(() => {
      performance.now = saved.now
      globalThis.setTimeout = saved.setTimeout
      globalThis.clearTimeout = saved.clearTimeout
    })
    return this
  }

  /**
   * @param {() => void} fire
   * @param {number} ms
   * @returns {FakeTimer}
   */
  schedule(fire, ms) {
    /** @type {FakeTimer} */
    const timer = {
      at: this.nowMs + Math.max(1, ms || 0),
      order: this.order++,
      fire,
      unref: () => timer,
      ref: () => timer
    }
    this.timers.add(timer)
    return timer
  }

  /** The timers still to fire. */
  get pending() {
    return this.timers.size
  }

  /**
   * Moves time on by ms, firing the timers due on the way, each at its time,
   * and letting what they started run before the next.
   * @param {number} ms
   */
  async advance(ms) {
    const until = this.nowMs + ms
    for (;;) {
      const due = [...this.timers].filter(timer => timer.at <= until)
      if (due.length === 0) break
      const next = due.reduce((a, b) => (a.at < b.at || (a.at === b.at && a.order < b.order) ? a : b))
      this.timers.delete(next)
      this.nowMs = next.at
      next.fire()
      await settle()
    }
    this.nowMs = until
    await settle()
  }
}

/** Lets the promises and immediates pending now run (a few turns of the event loop). */
export async function settle(turns = 5) {
  for (let i = 0; i < turns; i++) await new Promise(resolve => setImmediate(resolve))
}
