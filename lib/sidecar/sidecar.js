import { cancelBackends, runAction } from './actions.js'
import { currentValue, holds } from './conditions.js'

/**
 * @typedef {object} SidecarOptions
 * @property {import('./schedule.js').Rule[]} rules
 * @property {import('./actions.js').ActionContext} context
 * @property {() => import('./conditions.js').StatsView | null} stats  the collector's latest snapshot
 * @property {string} diskPath          for disk_free
 * @property {number} checkIntervalMs   how often conditions are evaluated
 */

// Runs a schedule: actions at offsets, at wall-clock times, every N, or when
// a condition on the stats holds. A rule never runs twice at once.
export class Sidecar {
  /** @param {SidecarOptions} options */
  constructor(options) {
    this.options = options
    /** @type {NodeJS.Timeout[]} */
    this.timers = []
    /** @type {Set<import('./schedule.js').Rule>} */
    this.running = new Set()
    /** @type {Set<import('./schedule.js').Rule>} */
    this.spent = new Set()
    /** @type {Map<import('./schedule.js').Rule, number>} */
    this.quietUntil = new Map()
    /** @type {Set<Promise<unknown>>} */
    this.inFlight = new Set()
    /** @type {Map<import('./schedule.js').Rule, number>} backend pid of each running action */
    this.backends = new Map()
    this.checking = false
  }

  start() {
    const { rules, checkIntervalMs } = this.options
    for (const rule of rules) {
      if (rule.trigger === 'after') this.timers.push(setTimeout(() => this.fire(rule), (rule.afterS ?? 0) * 1000))
      if (rule.trigger === 'at') {
        this.timers.push(setTimeout(() => this.fire(rule), Math.max(0, (rule.at?.getTime() ?? 0) - Date.now())))
      }
      if (rule.trigger === 'every') this.timers.push(setInterval(() => this.fire(rule), (rule.everyS ?? 1) * 1000))
    }
    if (rules.some(r => r.trigger === 'when')) this.timers.push(setInterval(() => this.check(), checkIntervalMs))
  }

  async check() {
    if (this.checking) return
    this.checking = true
    try {
      for (const rule of this.options.rules) {
        if (rule.trigger !== 'when' || !rule.condition || this.spent.has(rule) || this.running.has(rule)) continue
        if ((this.quietUntil.get(rule) ?? 0) > Date.now()) continue
        const value = await currentValue(rule.condition, this.options.stats(), this.options.diskPath)
        if (value !== null && holds(rule.condition, value)) {
          this.options.context.log.info(`${rule.label}: "${rule.condition.text}" holds (${fourFigures(value)})`)
          this.fire(rule)
        }
      }
    } catch (err) {
      this.options.context.log.warn(
        `checking schedule conditions: ${/** @type {Error} */ (err).message}`,
        'PGLG_W_CONDITION'
      )
    } finally {
      this.checking = false
    }
  }

  /** @param {import('./schedule.js').Rule} rule */
  fire(rule) {
    if (this.running.has(rule) || this.spent.has(rule)) return
    if (rule.once) this.spent.add(rule)
    this.running.add(rule)
    const done = runAction(rule.spec, this.options.context, pid => this.backends.set(rule, pid)).finally(() => {
      this.running.delete(rule)
      this.backends.delete(rule)
      this.inFlight.delete(done)
      this.quietUntil.set(rule, Date.now() + rule.cooldownS * 1000)
    })
    this.inFlight.add(done)
  }

  /**
   * Stops scheduling, waits up to graceMs for actions in flight, then
   * cancels what still runs (a freeze vacuum may take hours).
   * @param {number} graceMs
   */
  async stop(graceMs) {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers = []
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    const all = Promise.allSettled([...this.inFlight])
    await Promise.race([
      all,
      new Promise(resolve => {
        timer = setTimeout(resolve, graceMs)
      })
    ])
    clearTimeout(timer)
    if (this.inFlight.size === 0) return
    const { context } = this.options
    context.log.warn(`cancelling ${this.inFlight.size} action(s) still running`, 'PGLG_W_ABANDONED')
    await cancelBackends(context.connectionString, [...this.backends.values()]).catch(err =>
      context.log.warn(`cancelling actions: ${err.message}`, 'PGLG_W_ABANDONED')
    )
    await Promise.race([
      all,
      new Promise(resolve => {
        timer = setTimeout(resolve, 5000)
      })
    ])
    clearTimeout(timer)
  }
}

/** @param {number} n */
function fourFigures(n) {
  return Number.isInteger(n) ? n : Number(n.toPrecision(4))
}
