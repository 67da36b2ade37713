// haggar's fleet of metric agents (github.com/gorsuch/haggar), pointed at
// PostgreSQL: `--agents` agents, each with `--metrics-per-agent` metrics,
// started all at once or one every `--spawn-interval` ± `--jitter`; every
// `--flush-interval` each agent sends all its metrics, one time stamp and a
// random value each, as one COPY into a narrow table of points. The
// offered load is agents × metrics ÷ flush interval points per second.
//
// Each flush is one request on the agent's schedule, at its own phase in
// the interval: the lab records how late each flush started
// (schedule_lag_us) and, as its latency, how late it ended (from the time
// it was due). A server that keeps up ends every flush before the next is
// due; one that does not lets the lag grow without bound.
//
//   pgloadgen run -w fleet --agents 300 --metrics-per-agent 2000          (haggar's Graphite test: 60K points/s)
//   pgloadgen run -w fleet --agents 50 --spawn-interval 10s --jitter 5s --partition-interval 1h
import { agentPhase, configureFleet, FLEET_OPTIONS, MAINTAIN_EVERY_S } from './config.js'
import {
  COPY_SQL,
  createPointsTable,
  DROP_SQL,
  keepPartitionsAhead,
  POINTS,
  registerFleet,
  SCHEMA_SQL
} from './schema.js'
import { flushProbe, flushRows, startAgent } from './agent.js'
import { fleetStatistics } from './statistics.js'

/** @typedef {import('./config.js').FleetConfig} FleetConfig */

/** @type {import('../contract.js').WorkloadModule} */
export default {
  name: 'fleet',
  description:
    "haggar's fleet of metric agents: each flushes all its metrics every interval as one COPY into fleet_points",
  table: POINTS,
  audit: { table: POINTS },
  schema: SCHEMA_SQL,
  drop: DROP_SQL,
  types: [{ name: 'flush', weight: 1 }],
  options: FLEET_OPTIONS,
  configure: configureFleet,
  clients: (/** @type {FleetConfig} */ config) => config.agents,
  pacing: (/** @type {FleetConfig} */ config) => ({ intervalS: config.flushIntervalS, offsetS: agentPhase(config) }),
  ramp: (/** @type {FleetConfig} */ config) =>
    config.spawnIntervalS > 0 ? { everyS: config.spawnIntervalS, jitterS: config.jitterS } : null,
  statistics: fleetStatistics,
  maintainEvery: MAINTAIN_EVERY_S,

  async setup({ sql, config, concurrency, log }) {
    const fleet = /** @type {FleetConfig} */ (config)
    await createPointsTable(sql, fleet)
    if (fleet.seriesRegistry === 'setup') {
      await registerFleet(sql, concurrency, fleet.metricsPerAgent)
      log.info(`fleet: the series of ${concurrency} agents × ${fleet.metricsPerAgent} metrics are registered`)
    }
  },

  // Partitions made ahead of the time stamps the flushes will carry.
  async maintain({ sql, config, log }) {
    const fleet = /** @type {FleetConfig} */ (config)
    if (fleet.partitionIntervalS === null) return
    const { created } = await keepPartitionsAhead(sql, fleet)
    if (created.length > 0) log.debug(`fleet: made partitions ${created.join(', ')}`)
  },

  requests: {
    async flush(db, ctx) {
      const config = /** @type {FleetConfig} */ (ctx.config)
      // An agent registers its series when it starts: before its first flush.
      const series = ctx.state.series ?? (ctx.state.series = await startAgent(db, ctx.clientId, config))
      const atMs = Date.now()
      const lost = (/** @type {unknown} */ err) =>
        ctx.writeFailed(err, series.ids.length, () => flushProbe(series, atMs))
      if (!config.reconnectPerFlush) {
        try {
          const copied = await db.copyFrom(COPY_SQL, flushRows(series, atMs, ctx.random))
          ctx.written(copied.rowCount, copied.rowCount)
        } catch (err) {
          lost(err)
          throw err
        }
        return
      }
      // haggar without connection caching dials for every flush; the
      // connect time is part of the flush
      let own
      try {
        own = await ctx.connect()
      } catch (err) {
        // a failed request, counted by the generator as such: not the program's error
        throw new Error(`connecting for a flush: ${/** @type {Error} */ (err).message}`, { cause: err })
      }
      try {
        const copied = await own.copyFrom(COPY_SQL, flushRows(series, atMs, ctx.random))
        ctx.written(copied.rowCount, copied.rowCount)
      } catch (err) {
        lost(err)
        // The client's own connection is fine: a lost flush connection
        // must not read as its loss.
        if (own.connection.broken) {
          throw new Error(`flush connection: ${/** @type {Error} */ (err).message}`, { cause: err })
        }
        throw err
      } finally {
        await own.close()
      }
    }
  }
}
