// SIGINT and SIGTERM ask a command to stop: it finishes what it is doing,
// cleans up (an embedded server it started is stopped) and reports. A second
// signal exits at once. Installed when the command starts, so a signal during
// start-up or shutdown is handled too.
const MAX_TIMER_MS = 2 ** 31 - 1

export class StopSignal {
  /** @param {import('../log.js').Logger} log */
  constructor(log) {
    this.requested = false
    /** @type {() => void} */
    let resolve = () => {}
    /** @type {Promise<void>} */
    this.promise = new Promise(r => {
      resolve = () => r(undefined)
    })
    /** @param {NodeJS.Signals} signal */
    this.onSignal = signal => {
      if (this.requested) {
        log.warn(`${signal} again: exiting now`)
        process.exit(signal === 'SIGINT' ? 130 : 143)
      }
      log.info(`${signal} received: stopping`)
      this.requested = true
      resolve()
    }
    process.on('SIGINT', this.onSignal)
    process.on('SIGTERM', this.onSignal)
  }

  /**
   * Resolves after seconds, at a stop request, or when `until` settles,
   * whichever comes first; the timer never outlives the wait.
   * @param {number | null} seconds  null: no time limit
   * @param {Promise<unknown>} [until]
   */
  wait(seconds, until) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    /** @type {Promise<unknown>[]} */
    const racers = [this.promise]
    if (until) racers.push(until.catch(() => {}))
    if (seconds !== null) {
      // One timer waits at most 2^31 - 1 ms (about 24.8 days; longer fires
      // at once): a longer run waits in pieces.
      const end = Date.now() + seconds * 1000
      racers.push(
        new Promise(resolve => {
          const next = () => {
            const left = end - Date.now()
            if (left <= 0) resolve(undefined)
            else timer = setTimeout(next, Math.min(left, MAX_TIMER_MS))
          }
          next()
        })
      )
    }
    return Promise.race(racers).finally(() => clearTimeout(timer))
  }

  dispose() {
    process.removeListener('SIGINT', this.onSignal)
    process.removeListener('SIGTERM', this.onSignal)
  }
}
