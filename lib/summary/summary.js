import { LogHistogram } from '../metrics/log-histogram.js'

/**
 * @typedef {object} SummaryInput
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {number} elapsedS
 * @property {string} workload
 * @property {string} [protocol]       -M
 * @property {number} concurrency
 * @property {number} [finalConcurrency]  when changed while running
 * @property {string} target            without secrets
 * @property {string} mix
 * @property {number} reconnects
 * @property {number} acknowledgedInserts
 * @property {number | null} acknowledgedMissing  null when not checked
 * @property {number} [acknowledgedVanished]  lost underneath the run (a rollback), counted when seen
 * @property {string | null} serverVersion
 * @property {boolean} embedded
 * @property {boolean} abandonedInFlight   some requests were cut at shutdown
 * @property {{ user: number, system: number }} cpuUsage  of this process during the load, µs
 * @property {{ rate: number, arrival: string, maxLagMs: number | null, skipped: number } | null} openLoop
 */

/**
 * The summary printed by --json: one object, stable field names.
 * @param {SummaryInput} input
 */
export function buildSummary (input) {
  const { stats, elapsedS } = input
  /** @type {Record<string, object>} */
  const requests = {}
  let done = 0
  const all = new LogHistogram()
  for (let i = 0; i < stats.types.length; i++) {
    done += stats.done[i]
    all.add(stats.latency[i])
    requests[stats.types[i]] = {
      started: stats.started[i],
      done: stats.done[i],
      failed: stats.failed[i],
      not_found: stats.notFound[i],
      rate: round(stats.done[i] / elapsedS, 1),
      latency_us: latencySummary(stats.latency[i])
    }
  }
  const cpuUs = input.cpuUsage.user + input.cpuUsage.system
  return {
    elapsed_s: round(elapsedS, 3),
    workload: input.workload,
    protocol: input.protocol ?? 'prepared',
    concurrency: input.concurrency,
    final_concurrency: input.finalConcurrency ?? input.concurrency,
    mix: input.mix,
    target: input.target,
    embedded: input.embedded,
    server_version: input.serverVersion,
    mode: input.openLoop ? 'open' : 'closed',
    // Closed loop: each latency is the service time of one request, from
    // send to reply. Open loop: from the request's intended start on the
    // schedule to its reply, so time spent waiting behind a stall counts.
    latency_kind: input.openLoop ? 'from_intended_start' : 'service_time',
    ...(input.openLoop && {
      rate: input.openLoop.rate,
      arrival: input.openLoop.arrival,
      max_lag_ms: input.openLoop.maxLagMs,
      skipped: input.openLoop.skipped,
      schedule_lag_us: latencySummary(stats.lag)
    }),
    throughput: round(done / elapsedS, 1),
    latency_us: latencySummary(all),
    requests,
    errors: stats.errors.toJSON(),
    unexpected_failures: stats.unexpectedFailures,
    reconnects: input.reconnects,
    acknowledged_inserts: input.acknowledgedInserts,
    acknowledged_missing: input.acknowledgedMissing,
    acknowledged_vanished: input.acknowledgedVanished ?? 0,
    abandoned_in_flight: input.abandonedInFlight,
    process: {
      cpu_user_s: round(input.cpuUsage.user / 1e6, 3),
      cpu_system_s: round(input.cpuUsage.system / 1e6, 3),
      // The generator's own cost per request: CPU the server cannot use.
      cpu_us_per_request: round(done ? cpuUs / done : null, 1),
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024
    }
  }
}

/** @param {LogHistogram} h */
function latencySummary (h) {
  return {
    p50: round(h.quantile(0.5)),
    p95: round(h.quantile(0.95)),
    p99: round(h.quantile(0.99)),
    max: round(h.count ? h.max : null),
    mean: round(h.count ? h.sum / h.count : null)
  }
}

/**
 * @param {number | null} value
 * @param {number} [digits]
 */
function round (value, digits = 0) {
  if (value === null || !Number.isFinite(value)) return null
  const f = 10 ** digits
  return Math.round(value * f) / f
}
