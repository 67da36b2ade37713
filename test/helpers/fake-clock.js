// A fake clock for the duration of a test: performance.now() and the timers
// (setTimeout, setInterval and their clears) answer to it, and time moves
// only when the test advances it, so that no test depends on how fast a
// loaded machine is. setImmediate and promises stay real: advance() lets
// what a timer started run on.
import { performance } from 'node:perf_hooks'

/**
 * @typedef {object} FakeTimer
 * @property {number} at
 * @property {number} order
 * @property {number} every  0: once
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
    const g = globalThis
    const saved = {
      now: performance.now,
      setTimeout: g.setTimeout,
      clearTimeout: g.clearTimeout,
      setInterval: g.setInterval,
      clearInterval: g.clearInterval
    }
    performance.now = () => this.nowMs
    globalThis.setTimeout = /** @type {any} */ (
      (/** @type {(...args: unknown[]) => void} */ fire, /** @type {number} */ ms, /** @type {unknown[]} */ ...args) =>
        this.schedule(() => fire(...args), ms)
    )
    globalThis.clearTimeout = /** @type {any} */ ((/** @type {FakeTimer} */ timer) => this.timers.delete(timer))
    globalThis.setInterval = /** @type {any} */ (
      (/** @type {() => void} */ fire, /** @type {number} */ ms) => this.schedule(fire, ms, Math.max(1, ms))
    )
    globalThis.clearInterval = globalThis.clearTimeout
    t.teardown(() => {
      performance.now = saved.now
      globalThis.setTimeout = saved.setTimeout
      globalThis.clearTimeout = saved.clearTimeout
      globalThis.setInterval = saved.setInterval
      globalThis.clearInterval = saved.clearInterval
    })
    return this
  }

  /**
   * @param {() => void} fire
   * @param {number} ms
   * @param {number} [every]  an interval's period: the timer fires again every so many ms
   * @returns {FakeTimer}
   */
  schedule(fire, ms, every = 0) {
    /** @type {FakeTimer} */
    const timer = {
      at: this.nowMs + Math.max(1, ms || 0),
      order: this.order++,
      every,
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
      if (next.every > 0) {
        next.at += next.every
        next.order = this.order++
        this.timers.add(next)
      }
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
