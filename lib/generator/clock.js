import { performance } from 'node:perf_hooks'

/**
 * Milliseconds since the epoch, read from the monotonic clock: comparable
 * across threads (each thread's performance.now() counts from its own
 * origin) and never stepped back by a change of the wall clock.
 */
export function monotonicEpochMs() {
  return performance.timeOrigin + performance.now()
}

/**
 * The latest of some moments, null when none is known.
 * @param {Array<number | null>} moments
 */
export function latest(moments) {
  const known = /** @type {number[]} */ (moments.filter(moment => moment !== null))
  return known.length > 0 ? Math.max(...known) : null
}
