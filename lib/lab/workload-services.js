import client from 'prom-client'
import { connectWithin } from '../pg/connection.js'
import { errorMessage } from '../helpers/error-message.js'
import { WHOLE, shareOfTotal } from '../scale/share.js'

// What a workload asks of the lab besides its requests: maintenance run
// every so often on a connection of its own (partitions made ahead), the
// figures it wants polled and exported (its statistics), and clients that
// start one by one (a ramp). Started with the load, stopped with it.

const STATEMENT_TIMEOUT_MS = 30000

/**
 * @typedef {object} ServicesOptions
 * @property {string} connectionString
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {unknown} shared
 * @property {number} statsIntervalS
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 */

export class WorkloadServices {
  /** @param {ServicesOptions} options */
  constructor(options) {
    this.options = options
    /** @type {import('pg').Client | null} */
    this.client = null
    /** @type {NodeJS.Timeout[]} */
    this.timers = []
    /** @type {Record<string, number | null>} the statistics' last values */
    this.values = {}
    /** @type {Set<string>} maintenance failures already logged */
    this.warned = new Set()
    this.stopped = false
    /** @type {Promise<unknown>} what runs on the connection, one thing at a time */
    this.busy = Promise.resolve()
    this.registerStatistics()
  }

  /** Opens the connection and does a first maintenance pass before any request. */
  async open() {
    const { workload } = this.options
    if (workload.maintain === null && workload.statistics.length === 0) return
    this.client = await connectWithin(
      {
        connectionString: this.options.connectionString,
        applicationName: 'pgloadgen-maintenance',
        statementTimeoutMs: STATEMENT_TIMEOUT_MS
      },
      15000
    )
    await this.maintain(true)
  }

  /**
   * Starts the periodic work and the ramp.
   * @param {import('../generator/generator.js').LoadGenerator} generator
   * @param {number} concurrency   the clients to reach (this part's share of them)
   * @param {import('../scale/share.js').Share} [share]  the part of a split load this process runs
   */
  start(generator, concurrency, share = WHOLE) {
    const { workload, statsIntervalS } = this.options
    if (workload.maintain !== null) this.every(workload.maintainEveryS, () => this.maintain(false))
    if (workload.statistics.length > 0) {
      this.every(statsIntervalS, () => this.poll())
      this.poll()
    }
    const ramp = workload.ramp
    if (ramp === null || (concurrency <= 1 && share.parts === 1)) {
      generator.setConcurrency(concurrency)
      return
    }
    // One client now, then client k at k × everyS, give or take jitterS:
    // the jitter of one start does not shift the ones after it. A part of a
    // split load starts the clients of the one ramp that are its own
    // (client k belongs to part k mod parts), so the parts ramp together.
    const total = concurrency * share.parts // past this part's last client of the whole ramp
    const own = (/** @type {number} */ k) => Math.min(concurrency, shareOfTotal(k, share))
    if (own(1) > 0) generator.setConcurrency(own(1))
    const started = Date.now()
    const next = (/** @type {number} */ k) => {
      if (this.stopped || k >= total || generator.concurrency >= concurrency) return
      const jitter = (ramp.jitterS ?? 0) * (2 * Math.random() - 1)
      const due = started + (k * ramp.everyS + jitter) * 1000
      this.timers.push(
        setTimeout(
          () => {
            if (this.stopped) return
            if (own(k + 1) > generator.concurrency) generator.setConcurrency(own(k + 1))
            next(k + 1)
          },
          Math.max(0, due - Date.now())
        )
      )
    }
    next(1)
  }

  /**
   * Runs fn every so often on the connection, after whatever runs there;
   * a tick that finds the previous run of fn still waiting or running is
   * skipped, so that a slow pass never piles up work behind it.
   * @param {number} seconds
   * @param {() => Promise<unknown>} fn
   */
  every(seconds, fn) {
    let pending = false
    const timer = setInterval(() => {
      if (pending) return
      pending = true
      this.busy = this.busy
        .then(fn)
        .catch(() => {})
        .finally(() => {
          pending = false
        })
    }, seconds * 1000)
    timer.unref()
    this.timers.push(timer)
  }

  /** @param {boolean} first  the pass before the load: its failure ends the run */
  async maintain(first) {
    const { workload, shared, log } = this.options
    if (workload.maintain === null || this.client === null || this.stopped) return
    try {
      await workload.maintain({ sql: this.sql, config: workload.config, shared, log })
    } catch (err) {
      if (first) throw err
      const message = errorMessage(err)
      if (!this.warned.has(message)) {
        log.warn(`${workload.name} maintenance failed: ${message}`, 'PGLG_W_MAINTENANCE_FAILED')
      }
      this.warned.add(message)
    }
  }

  async poll() {
    const { workload, log } = this.options
    if (this.client === null || this.stopped) return
    for (const statistic of workload.statistics) {
      try {
        // no row, or NULL: the figure is not known (yet); absent, not 0
        const raw = (await this.sql(statistic.sql))[0]?.value
        const value = raw === null || raw === undefined ? NaN : Number(raw)
        this.values[statistic.name] = Number.isFinite(value) ? value : null
      } catch (err) {
        this.values[statistic.name] = null
        const message = `${statistic.name}: ${errorMessage(err)}`
        if (!this.warned.has(message)) log.warn(`${workload.name} statistic ${message}`, 'PGLG_W_MAINTENANCE_FAILED')
        this.warned.add(message)
      }
    }
  }

  /**
   * @param {string} text
   * @param {unknown[]} [params]
   * @returns {Promise<Array<Record<string, unknown>>>}
   */
  sql = async (text, params) => {
    if (this.client === null) throw new Error('the maintenance connection is closed')
    return (await this.client.query(text, params)).rows
  }

  registerStatistics() {
    const { workload, registry } = this.options
    for (const statistic of workload.statistics) {
      const values = this.values
      new client.Gauge({
        name: statistic.name,
        help: statistic.help,
        registers: [registry],
        collect() {
          const value = values[statistic.name]
          if (value === null || value === undefined) this.reset()
          else this.set(value)
        }
      })
    }
  }

  /** The statistics' last values, for the recorder. */
  latest() {
    return { ...this.values }
  }

  async stop() {
    this.stopped = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers = []
    await this.busy.catch(() => {})
    await this.client?.end().catch(() => {})
    this.client = null
  }
}
