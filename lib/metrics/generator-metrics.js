import { createRequire } from 'node:module'
import client from 'prom-client'
import { LATENCY_BUCKETS_US } from './latency-buckets.js'
import { CANCELS_GAVE_UP, CANCELS_SENT, CANCELS_SUCCEEDED, LATENCY_BUCKET_COUNT } from './request-stats.js'
import { HistogramView } from './histogram-view.js'

/**
 * @typedef {object} GeneratorMetricSources
 * @property {import('./request-stats.js').RequestStats} stats
 * @property {() => number} connections   open connections right now
 * @property {string} target              connection target without secrets
 */

const RESULTS = /** @type {const} */ (['ok', 'error'])

/**
 * Registers the generator's metrics. Names, types and labels are those of the
 * original tool so that existing dashboards keep working; values are read from
 * the hot-path record at scrape time.
 * @param {client.Registry} registry
 * @param {GeneratorMetricSources} sources
 */
export function registerGeneratorMetrics(registry, { stats, connections, target }) {
  new client.Gauge({
    name: 'pgloadgen_nconns',
    help: 'Open connections to PostgreSQL',
    labelNames: ['pgUrl'],
    registers: [registry],
    collect() {
      this.set({ pgUrl: target }, connections())
    }
  })
  registerRequestCounts(registry, stats)
  registerRequestOutcomes(registry, stats)
  registerGeneratorCpu(registry)
}

/**
 * A counter by request type, read from one of RequestStats' arrays.
 * @param {client.Registry} registry
 * @param {readonly string[]} types
 * @param {string} name
 * @param {string} help
 * @param {Float64Array} values
 */
function perTypeCounter(registry, types, name, help, values) {
  return new client.Counter({
    name,
    help,
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset()
      for (let i = 0; i < types.length; i++) this.inc({ type: types[i] }, values[i])
    }
  })
}

/**
 * A counter without labels, read at scrape time.
 * @param {client.Registry} registry
 * @param {string} name
 * @param {string} help
 * @param {() => number} value
 */
function counter(registry, name, help, value) {
  return new client.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset()
      this.inc(value())
    }
  })
}

/**
 * The requests started, done, failed and timed out, their cancels, the
 * connections refused, and the rows and points written.
 * @param {client.Registry} registry
 * @param {import('./request-stats.js').RequestStats} stats
 */
function registerRequestCounts(registry, stats) {
  const types = stats.types
  perTypeCounter(registry, types, 'pgloadgen_nqueries_started', 'Requests started, by type', stats.started)
  perTypeCounter(
    registry,
    types,
    'pgloadgen_nqueries_done',
    'Requests completed (successfully or not), by type',
    stats.done
  )
  perTypeCounter(registry, types, 'pgloadgen_nqueries_failed', 'Requests that failed, by type', stats.failed)
  perTypeCounter(
    registry,
    types,
    'pgloadgen_request_timeouts_total',
    'Requests that got no answer within --request-timeout (cancelled on the server), by type',
    stats.timeouts
  )
  counter(
    registry,
    'pgloadgen_request_cancels_sent_total',
    'Cancel requests sent for requests past --request-timeout or still running at the shutdown timeout',
    () => stats.cancels[CANCELS_SENT]
  )
  counter(
    registry,
    'pgloadgen_request_cancels_succeeded_total',
    'Cancelled requests that ended within the grace: their connections were kept',
    () => stats.cancels[CANCELS_SUCCEEDED]
  )
  counter(
    registry,
    'pgloadgen_request_cancels_gave_up_total',
    'Cancelled requests still running after the grace: their connections were closed and replaced',
    () => stats.cancels[CANCELS_GAVE_UP]
  )
  counter(
    registry,
    'pgloadgen_connections_refused_total',
    'Connection attempts the server refused for want of a slot (SQLSTATE 53300)',
    () => stats.refusals[0]
  )
  perTypeCounter(
    registry,
    types,
    'pgloadgen_rows_written_total',
    'Rows the requests wrote and the server acknowledged, by type',
    stats.rows
  )
  perTypeCounter(
    registry,
    types,
    'pgloadgen_points_written_total',
    'Points (metric values) the requests wrote and the server acknowledged, by type',
    stats.points
  )
}

/**
 * What the requests ended with: the highest latency, the errors by message
 * and the latency histogram by type and result.
 * @param {client.Registry} registry
 * @param {import('./request-stats.js').RequestStats} stats
 */
function registerRequestOutcomes(registry, stats) {
  const types = stats.types
  new client.Gauge({
    name: 'pgloadgen_query_latency_max_us',
    help: 'Highest request latency observed since start, in microseconds, by type',
    labelNames: ['type'],
    registers: [registry],
    collect() {
      for (let i = 0; i < types.length; i++) this.set({ type: types[i] }, stats.maxUs[i])
    }
  })

  new client.Counter({
    name: 'pgloadgen_error_messages',
    help: 'Failed requests by normalised error message',
    labelNames: ['errorMessage'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [message, count] of stats.errors.counts) this.inc({ errorMessage: message }, count)
    }
  })

  registry.registerMetric(
    /** @type {any} */ (
      new HistogramView({
        name: 'pgloadgen_query_latency_us',
        help: 'Request latency in microseconds, by type and result',
        bounds: LATENCY_BUCKETS_US,
        series: () => {
          const series = []
          for (let r = 0; r < RESULTS.length; r++) {
            for (let t = 0; t < types.length; t++) {
              series.push({
                labels: { type: types[t], result: RESULTS[r] },
                buckets: stats.buckets[r].subarray(t * LATENCY_BUCKET_COUNT, (t + 1) * LATENCY_BUCKET_COUNT),
                sum: stats.sums[r][t],
                count: stats.counts[r][t]
              })
            }
          }
          return series
        }
      })
    )
  )
}

/**
 * The generator process's user and system CPU time.
 * @param {client.Registry} registry
 */
function registerGeneratorCpu(registry) {
  new client.Counter({
    name: 'pgloadgen_cpu_user_us',
    help: 'User CPU time of the generator process, in microseconds',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(process.cpuUsage().user)
    }
  })
  new client.Counter({
    name: 'pgloadgen_cpu_system_us',
    help: 'System CPU time of the generator process, in microseconds',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(process.cpuUsage().system)
    }
  })
}

const require = createRequire(import.meta.url)

// prom-client's default metrics but one: nodejs_gc_duration_seconds. It
// observes every collection through a PerformanceObserver, and Node 20
// builds a performance entry for each, with deprecation wrappers of its
// own; at a run's rates (80 scavenges a second at 16 thousand requests)
// those entries lived long enough to be moved to the old generation: most
// of the 0.4 MiB a second the heap grew by until a full collection, and
// about 1.4 % of the CPU. Each of the others is a module of its own in
// prom-client, registered here as collectDefaultMetrics would.
const DEFAULT_METRICS_LEFT_OUT = new Set(['gc'])

/** @returns {client.Registry} a registry with Node's default process metrics (all but GC durations) */
export function createRegistry() {
  const registry = new client.Registry()
  const config = { eventLoopMonitoringPrecision: 10 }
  for (const name of client.collectDefaultMetrics.metricsList) {
    if (DEFAULT_METRICS_LEFT_OUT.has(name)) continue
    /** @type {(registry: client.Registry, config: object) => void} */
    const register = require(`prom-client/lib/metrics/${name}`)
    register(registry, config)
  }
  return registry
}
