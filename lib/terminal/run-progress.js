import { performance } from 'node:perf_hooks'
import { PeriodStats } from '../metrics/period-stats.js'
import { progressLine } from './progress-line.js'

// The progress of a run, every everyS seconds (-P): the period's figures,
// taken from the stats once, then drawn on the screen.

/**
 * @typedef {object} RunningLoad
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../generator/generator.js').LoadGenerator} generator
 * @property {number} started   performance.now() at the start of the load
 */

/**
 * When autovacuum is forecast to start on the workload's table, and why (null: none forecast).
 * @typedef {() => { reason: string, nextS: number } | null} NextAutovacuum
 */

/**
 * Starts the progress lines; returns what stops them. everyS 0: none.
 * @param {import('./screen.js').Screen} screen
 * @param {RunningLoad} load
 * @param {{ everyS: number, scheduled: boolean, openLoop: boolean, autovacuum?: NextAutovacuum }} options
 * @returns {() => void}
 */
export function startRunProgress(screen, load, { everyS, scheduled, openLoop, autovacuum }) {
  if (everyS <= 0) return () => {}
  const periods = new PeriodStats(load.stats, load.started)
  const ticker = setInterval(() => {
    const period = periods.next(performance.now(), load.generator.skipped)
    const shape = {
      connections: load.generator.connections,
      concurrency: load.generator.concurrency,
      scheduled,
      openLoop,
      autovacuum: autovacuum?.() ?? null
    }
    screen.progress(colours => progressLine(period, shape, colours))
  }, everyS * 1000)
  ticker.unref()
  return () => clearInterval(ticker)
}
