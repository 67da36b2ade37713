import { LogHistogram } from '../metrics/log-histogram.js'
import { CANCELS_GAVE_UP, CANCELS_SENT, CANCELS_SUCCEEDED } from '../metrics/request-stats.js'
import { histogramsField } from './histogram-field.js'
import { formatShare } from '../scale/share.js'
import { roundOrNull } from '../helpers/numbers.js'

/**
 * The disk_full part of the summary (lib/lab/disk-space.js fills it).
 * @typedef {object} DiskFullFigures
 * @property {number} failures        requests that found no space
 * @property {Record<string, number>} by_type
 * @property {number} episodes
 * @property {boolean} full_now
 * @property {number} full_s
 * @property {string | null} data_directory
 * @property {Record<string, number> | null} free_bytes
 * @property {Record<string, number> | null} size_bytes
 * @property {Record<string, number> | null} min_free_bytes
 */

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
 * @property {{ writes: number, stored: number | null } | null} [insertsInDoubt]  inserts into the dense-id table whose
 *   connection was cut before the acknowledgement, and how many of them committed
 * @property {number} [acknowledgedVanished]  lost when the data went back in time underneath the run (see
 *   verify-inserts.js)
 * @property {string | null} serverVersion
 * @property {boolean} embedded
 * @property {boolean} abandonedInFlight   some requests were cut at shutdown
 * @property {DiskFullFigures | null} [diskFull]  requests that found no disk space, the episodes, the free space
 * @property {number | null} [serverRestarts]  the embedded server the run owns, started again after it stopped on its
 *   own (null: not watched)
 * @property {{ user: number, system: number }} cpuUsage  of this process during the load, µs
 * @property {{ rate: number, arrival: string, maxLagMs: number | null, skipped: number } | null} openLoop
 * @property {import('../workloads/contract.js').Pacing | null} [pacing]   a paced workload's schedule
 * @property {{ table: string, before: number | null, after: number | null, removed: number, inDoubt?: { writes: number,
 *     rows: number, stored: number | null } } | null} [rowAudit]
 *   the audited table's rows before and after, and what retention removed meanwhile
 * @property {Date} [startedAt]   when the load started (wall clock)
 * @property {Date} [endedAt]     when it ended
 * @property {{ share: import('../scale/share.js').Share, totalConcurrency: number,
 *     totalRate: number | null } | null} [instance]  --instance
 * @property {number | null} [startAtMs]  --start-at
 * @property {number} [auditRows]   the rows written over the whole load, warm-up included: what the row audit checks
 *   (default: the stats')
 * @property {Record<string, unknown> | null} [warmup]  --warmup: the left-out seconds' own figures (warmup.js); stats
 *   and elapsedS are then the rest's
 * @property {import('../config/stages.js').Stage[] | null} [stages]  --stages
 */

/**
 * The summary printed by --json: one object, stable field names.
 * @param {SummaryInput} input
 */
export function buildSummary(input) {
  const { stats, elapsedS } = input
  const { requests, done, rows, points, all } = requestFigures(stats, elapsedS)
  return {
    elapsed_s: roundOrNull(elapsedS, 3),
    // wall-clock times of the load: what merging instances' summaries spans
    started_at: input.startedAt?.toISOString() ?? null,
    ended_at: input.endedAt?.toISOString() ?? null,
    start_at:
      input.startAtMs === undefined || input.startAtMs === null ? null : new Date(input.startAtMs).toISOString(),
    instance: instanceField(input.instance),
    workload: input.workload,
    protocol: input.protocol ?? 'prepared',
    concurrency: input.concurrency,
    final_concurrency: input.finalConcurrency ?? input.concurrency,
    mix: input.mix,
    target: input.target,
    embedded: input.embedded,
    server_version: input.serverVersion,
    ...loadMode(input),
    throughput: roundOrNull(done / elapsedS, 1),
    // what the requests wrote and the server acknowledged: rows, and points
    // (metric values) for time-series workloads
    rows_written: rows,
    points_written: points,
    rows_per_s: roundOrNull(rows / elapsedS, 1),
    points_per_s: roundOrNull(points / elapsedS, 1),
    latency_us: latencySummary(all),
    requests,
    ...failureCounts(input),
    acknowledged_inserts: input.acknowledgedInserts,
    acknowledged_missing: input.acknowledgedMissing,
    acknowledged_vanished: input.acknowledgedVanished ?? 0,
    // not acknowledged, so not in the counts above: their outcome, found at exit
    inserts_in_doubt: input.insertsInDoubt?.writes ?? 0,
    inserts_in_doubt_stored: input.insertsInDoubt ? input.insertsInDoubt.stored : null,
    ...rowAudit(input.rowAudit ?? null, input.auditRows ?? rows),
    abandoned_in_flight: input.abandonedInFlight,
    process: processFigures(input.cpuUsage, done),
    // the raw bucket counts: what `pgloadgen merge` adds up (histogram-field.js)
    ...(input.stages && { stages: input.stages.map(stage => ({ seconds: stage.seconds, target: stage.target })) }),
    // every figure above is after it; the audit covers the whole load
    ...(input.warmup && { warmup: input.warmup }),
    histograms: histogramsField(stats, all, Boolean(input.openLoop || input.pacing))
  }
}

/**
 * Each request type's counts, rates and latency, and their totals.
 * @param {SummaryInput['stats']} stats
 * @param {number} elapsedS
 */
function requestFigures(stats, elapsedS) {
  /** @type {Record<string, object>} */
  const requests = {}
  let done = 0
  let rows = 0
  let points = 0
  const all = new LogHistogram()
  for (let i = 0; i < stats.types.length; i++) {
    done += stats.done[i]
    rows += stats.rows[i]
    points += stats.points[i]
    all.add(stats.latency[i])
    requests[stats.types[i]] = {
      started: stats.started[i],
      done: stats.done[i],
      failed: stats.failed[i],
      not_found: stats.notFound[i],
      // failed for want of an answer within --request-timeout (a part of failed)
      timeouts: stats.timeouts[i],
      rate: roundOrNull(stats.done[i] / elapsedS, 1),
      rows: stats.rows[i],
      points: stats.points[i],
      latency_us: latencySummary(stats.latency[i])
    }
  }
  return { requests, done, rows, points, all }
}

/**
 * --instance: this process's share of the load.
 * @param {SummaryInput['instance']} instance
 */
function instanceField(instance) {
  return instance
    ? {
        index: instance.share.index,
        parts: instance.share.parts,
        name: formatShare(instance.share),
        total_concurrency: instance.totalConcurrency,
        total_rate: instance.totalRate
      }
    : null
}

/**
 * The loop the load ran in, what its latencies measure, and an open or
 * paced loop's schedule.
 * @param {SummaryInput} input
 */
function loadMode(input) {
  const { stats } = input
  return {
    mode: input.openLoop ? 'open' : input.pacing ? 'paced' : 'closed',
    // Closed loop: each latency is the service time of one request, from
    // send to reply. Open loop and paced clients: from the request's
    // intended start on the schedule to its reply, so time spent waiting
    // behind a stall counts.
    latency_kind: input.openLoop || input.pacing ? 'from_intended_start' : 'service_time',
    ...(input.openLoop && {
      rate: input.openLoop.rate,
      arrival: input.openLoop.arrival,
      max_lag_ms: input.openLoop.maxLagMs,
      skipped: input.openLoop.skipped,
      schedule_lag_us: latencySummary(stats.lag)
    }),
    ...(input.pacing && {
      // each client's requests are due one period apart; the lag is how late each started
      pacing_interval_s: input.pacing.intervalS,
      schedule_lag_us: latencySummary(stats.lag)
    })
  }
}

/**
 * The errors, failures, timeouts, cancels, refusals, full disk, reconnects
 * and restarts of the load.
 * @param {SummaryInput} input
 */
function failureCounts(input) {
  const { stats } = input
  return {
    errors: stats.errors.toJSON(),
    unexpected_failures: stats.unexpectedFailures,
    timeouts: sumOf(stats.timeouts),
    // the requests cut by the timeout or the shutdown, cancelled on the server (generator/request-watch.js)
    cancels: {
      sent: stats.cancels[CANCELS_SENT],
      succeeded: stats.cancels[CANCELS_SUCCEEDED],
      gave_up: stats.cancels[CANCELS_GAVE_UP]
    },
    refused_connections: stats.refusals[0],
    disk_full: input.diskFull ?? null,
    reconnects: input.reconnects,
    ...(typeof input.serverRestarts === 'number' && { server_restarts: input.serverRestarts })
  }
}

/**
 * The generator process's CPU and memory.
 * @param {SummaryInput['cpuUsage']} cpuUsage
 * @param {number} done
 */
function processFigures(cpuUsage, done) {
  const cpuUs = cpuUsage.user + cpuUsage.system
  return {
    cpu_user_s: roundOrNull(cpuUsage.user / 1e6, 3),
    cpu_system_s: roundOrNull(cpuUsage.system / 1e6, 3),
    // The generator's own cost per request: CPU the server cannot use.
    cpu_us_per_request: roundOrNull(done ? cpuUs / done : null, 1),
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024
  }
}

/**
 * The rows a batch workload reported written against what its table
 * gained: rows_missing is what should be there and is not (null when the
 * table or the writes left in doubt could not be counted, or when the
 * workload audits no table). Rows of writes left in doubt (sent, their
 * connection broken before the acknowledgement) that did commit are in the
 * table without being acknowledged: they are counted apart, so that they
 * cannot hide acknowledged rows that went.
 * @param {SummaryInput['rowAudit']} audit
 * @param {number} written
 */
export function rowAudit(audit, written) {
  if (!audit) return { acknowledged_rows: written, rows_missing: null }
  const inDoubt = audit.inDoubt ?? { writes: 0, rows: 0, stored: 0 }
  const expected = audit.before === null ? null : audit.before + written - audit.removed
  const acknowledgedStored = audit.after === null || inDoubt.stored === null ? null : audit.after - inDoubt.stored
  return {
    acknowledged_rows: written,
    rows_missing: expected === null || acknowledgedStored === null ? null : Math.max(0, expected - acknowledgedStored),
    row_audit: {
      table: audit.table,
      rows_before: audit.before,
      rows_after: audit.after,
      rows_removed_by_retention: audit.removed,
      writes_in_doubt: inDoubt.writes,
      rows_in_doubt: inDoubt.rows,
      rows_in_doubt_stored: inDoubt.stored
    }
  }
}

/**
 * The percentiles, max and mean of a histogram, as the summary shows them.
 * @param {LogHistogram} h
 */
export function latencySummary(h) {
  return {
    p50: roundOrNull(h.quantile(0.5)),
    p95: roundOrNull(h.quantile(0.95)),
    p99: roundOrNull(h.quantile(0.99)),
    max: roundOrNull(h.count ? h.max : null),
    mean: roundOrNull(h.count ? h.sum / h.count : null)
  }
}

/**
 * @param {Float64Array} values
 */
function sumOf(values) {
  let total = 0
  for (const value of values) total += value
  return total
}
