// Waiting for the start moment of --start-at on the wall clock: the
// instances' clocks are the only thing they share. Timers wait at most
// 2^31 - 1 ms and may fire a little early, so the wait is made of pieces
// until the clock says the moment has come.

const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Resolves true at epochMs (at once when it has passed), or false when
 * `interrupted` settles first.
 * @param {number} epochMs
 * @param {Promise<unknown>} [interrupted]
 * @returns {Promise<boolean>}
 */
export function untilMoment(epochMs, interrupted) {
  return new Promise(resolve => {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    let settled = false
    /** @param {boolean} reached */
    const finish = reached => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(reached)
    }
    const next = () => {
      const left = epochMs - Date.now()
      if (left <= 0) finish(true)
      else timer = setTimeout(next, Math.min(left, MAX_TIMER_MS))
    }
    interrupted?.then(
      () => finish(false),
      () => finish(false)
    )
    next()
  })
}
