import { latencySummary, rowAudit } from '../summary/summary.js'
import { roundOrNull } from '../helpers/numbers.js'
import { mergeHistograms, mergedHistogramsField } from '../results/merge-histograms.js'

// One summary from the summaries of a load's instances, in the shape of a
// run's: counts added, maxima taken, percentiles recomputed from the added
// histograms, rates over the union's wall time (first start to last end).

/**
 * @param {import('./read-runs.js').InstanceRun[]} runs  checked, in instance order
 */
export function mergeSummaries(runs) {
  const summaries = runs.map(r => r.summary)
  const first = summaries[0]
  const startedMs = Math.min(...runs.map(r => r.startedMs))
  const endedMs = Math.max(...runs.map(r => r.endedMs))
  const elapsedS = Math.max(0.001, (endedMs - startedMs) / 1000)
  const histograms = mergeHistograms(summaries)
  /** @type {Sum} */
  const sum = pick => summaries.reduce((n, s) => n + (Number(pick(s)) || 0), 0)
  const requests = mergeRequests(summaries, histograms, elapsedS)
  const done = Object.values(requests).reduce((n, r) => n + r.done, 0)
  const rows = sum(s => s.rows_written)
  const points = sum(s => s.points_written)
  const vacuumSource = summaries.find(s => Array.isArray(s.vacuums) && s.vacuums.length > 0) ?? first
  return {
    elapsed_s: roundOrNull(elapsedS, 3),
    started_at: new Date(startedMs).toISOString(),
    ended_at: new Date(endedMs).toISOString(),
    start_at: common(summaries.map(s => s.start_at)),
    // how far apart the instances' loads started
    start_skew_ms: Math.max(...runs.map(r => r.startedMs)) - startedMs,
    merged: mergedFrom(runs),
    instance: null,
    workload: first.workload,
    protocol: commonOrList(summaries.map(s => s.protocol)),
    concurrency: sum(s => s.concurrency),
    final_concurrency: sum(s => s.final_concurrency ?? s.concurrency),
    mix: commonOrList(summaries.map(s => s.mix)),
    target: commonOrList(summaries.map(s => s.target)),
    embedded: first.embedded,
    server_version: commonOrList(summaries.map(s => s.server_version)),
    mode: first.mode,
    latency_kind: first.latency_kind,
    ...loadMode(summaries, histograms, sum),
    throughput: roundOrNull(done / elapsedS, 1),
    rows_written: rows,
    points_written: points,
    rows_per_s: roundOrNull(rows / elapsedS, 1),
    points_per_s: roundOrNull(points / elapsedS, 1),
    latency_us: latencySummary(histograms.latency),
    requests,
    ...failureCounts(summaries, sum),
    ...acknowledgedCounts(summaries, sum),
    ...mergeRowAudit(summaries, rows),
    abandoned_in_flight: summaries.some(s => s.abandoned_in_flight === true),
    process: processFigures(summaries, done, sum),
    histograms: mergedHistogramsField(first.histograms.scheme, histograms),
    // every instance reads the same server's log: the vacuums of one of them
    ...(vacuumSource.vacuums !== undefined && {
      vacuums: vacuumSource.vacuums,
      autovacuum_source: vacuumSource.autovacuum_source
    })
  }
}

/**
 * The sum over the instances' summaries of the figure it picks.
 * @typedef {(pick: (s: Record<string, any>) => unknown) => number} Sum
 */

/**
 * The fields of an open or a paced loop: the rate, the arrivals, the
 * skipped requests, the schedule's lag.
 * @param {Record<string, any>[]} summaries
 * @param {import('../results/merge-histograms.js').MergedHistograms} histograms
 * @param {Sum} sum
 */
function loadMode(summaries, histograms, sum) {
  const first = summaries[0]
  const open = first.mode === 'open'
  const paced = first.mode === 'paced'
  return {
    ...(open && {
      // the instances' shares add up to the rate they were given together
      rate:
        common(summaries.map(s => s.instance?.total_rate ?? null)) ??
        roundOrNull(
          sum(s => s.rate),
          3
        ),
      arrival: commonOrList(summaries.map(s => s.arrival)),
      max_lag_ms: first.max_lag_ms,
      skipped: sum(s => s.skipped)
    }),
    ...(paced && { pacing_interval_s: first.pacing_interval_s }),
    ...((open || paced) && { schedule_lag_us: histograms.lag ? latencySummary(histograms.lag) : null })
  }
}

/**
 * The errors, failures, timeouts, cancels, refusals, full disks, reconnects
 * and restarts of every instance together.
 * @param {Record<string, any>[]} summaries
 * @param {Sum} sum
 */
function failureCounts(summaries, sum) {
  return {
    errors: addCounts(summaries.map(s => s.errors ?? {})),
    unexpected_failures: sum(s => s.unexpected_failures),
    timeouts: sum(s => s.timeouts ?? 0),
    // each instance cancels its own requests and is refused on its own connections
    cancels: {
      sent: sum(s => s.cancels?.sent ?? 0),
      succeeded: sum(s => s.cancels?.succeeded ?? 0),
      gave_up: sum(s => s.cancels?.gave_up ?? 0)
    },
    refused_connections: sum(s => s.refused_connections ?? 0),
    disk_full: mergeDiskFull(summaries.map(s => s.disk_full ?? null)),
    reconnects: sum(s => s.reconnects),
    ...(summaries.some(s => typeof s.server_restarts === 'number') && {
      server_restarts: sum(s => s.server_restarts ?? 0)
    })
  }
}

/**
 * The acknowledged inserts checked, and those in doubt.
 * @param {Record<string, any>[]} summaries
 * @param {Sum} sum
 */
function acknowledgedCounts(summaries, sum) {
  return {
    // every instance checks its own acknowledged ids: they are disjoint, so the counts add up
    acknowledged_inserts: sum(s => s.acknowledged_inserts),
    acknowledged_missing: summaries.every(s => typeof s.acknowledged_missing === 'number')
      ? sum(s => s.acknowledged_missing)
      : null,
    acknowledged_vanished: sum(s => s.acknowledged_vanished),
    inserts_in_doubt: sum(s => s.inserts_in_doubt ?? 0),
    inserts_in_doubt_stored: summaries.every(s => typeof s.inserts_in_doubt_stored === 'number' || !s.inserts_in_doubt)
      ? sum(s => s.inserts_in_doubt_stored ?? 0)
      : null
  }
}

/**
 * The instances' CPU added, and the largest one's memory.
 * @param {Record<string, any>[]} summaries
 * @param {number} done
 * @param {Sum} sum
 */
function processFigures(summaries, done, sum) {
  const cpuUserS = sum(s => s.process?.cpu_user_s)
  const cpuSystemS = sum(s => s.process?.cpu_system_s)
  return {
    cpu_user_s: roundOrNull(cpuUserS, 3),
    cpu_system_s: roundOrNull(cpuSystemS, 3),
    cpu_us_per_request: roundOrNull(done ? ((cpuUserS + cpuSystemS) * 1e6) / done : null, 1),
    // of the largest instance: each is a process of its own
    peak_rss_bytes: Math.max(...summaries.map(s => Number(s.process?.peak_rss_bytes) || 0))
  }
}

/**
 * @param {Record<string, any>[]} summaries
 * @param {import('../results/merge-histograms.js').MergedHistograms} histograms
 * @param {number} elapsedS
 */
function mergeRequests(summaries, histograms, elapsedS) {
  /**
   * @type {Record<string, { started: number, done: number, failed: number, not_found: number, timeouts: number,
   *     rate: number | null, rows: number, points: number, latency_us: ReturnType<typeof latencySummary> }>}
   */
  const requests = {}
  const types = [...new Set(summaries.flatMap(s => Object.keys(s.requests ?? {})))]
  for (const type of types) {
    const of = summaries.map(s => s.requests?.[type]).filter(Boolean)
    const add = (/** @type {string} */ field) => of.reduce((n, r) => n + (Number(r[field]) || 0), 0)
    const done = add('done')
    const h = histograms.byType.get(type)
    requests[type] = {
      started: add('started'),
      done,
      failed: add('failed'),
      not_found: add('not_found'),
      timeouts: add('timeouts'),
      rate: roundOrNull(done / elapsedS, 1),
      rows: add('rows'),
      points: add('points'),
      latency_us: h ? latencySummary(h) : { p50: null, p95: null, p99: null, max: null, mean: null }
    }
  }
  return requests
}

/**
 * Which runs the merge covers, and which instances of the split are missing.
 * @param {import('./read-runs.js').InstanceRun[]} runs
 */
function mergedFrom(runs) {
  const parts = runs.find(r => r.instance)?.instance?.parts ?? null
  const present = new Set(runs.map(r => r.instance?.index))
  return {
    runs: runs.length,
    instances: runs.map(r => r.instance?.name ?? null),
    parts,
    missing: parts === null ? [] : Array.from({ length: parts }, (_, i) => i).filter(i => !present.has(i)),
    directories: runs.map(r => r.run.dir),
    load_started_at: runs.map(r => new Date(r.startedMs).toISOString())
  }
}

/**
 * @param {Record<string, number>[]} counts
 */
function addCounts(counts) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const c of counts) for (const [key, n] of Object.entries(c)) out[key] = (out[key] ?? 0) + Number(n)
  return out
}

/**
 * The value all share, else null.
 * @param {unknown[]} values
 */
function common(values) {
  return values.every(v => v === values[0]) ? (values[0] ?? null) : null
}

/**
 * The value all share, else the distinct values joined.
 * @param {unknown[]} values
 */
function commonOrList(values) {
  const distinct = [...new Set(values)]
  return distinct.length === 1 ? distinct[0] : distinct.join(' | ')
}

/**
 * Requests that found no disk space, over the instances.
 * @param {(Record<string, any> | null)[]} all
 */
function mergeDiskFull(all) {
  const present = all.filter(d => d !== null)
  if (present.length === 0) return null
  return {
    ...present[0],
    failures: present.reduce((n, d) => n + (Number(d.failures) || 0), 0),
    by_type: addCounts(present.map(d => d.by_type ?? {})),
    // the instances watch one server's disk: each saw the same episodes
    episodes: Math.max(...present.map(d => Number(d.episodes) || 0)),
    full_now: present.some(d => d.full_now === true),
    full_s: Math.max(...present.map(d => Number(d.full_s) || 0))
  }
}

/**
 * The audited table's rows, over the instances: each counted it before its
 * load and after, while the others wrote too, so the earliest count before
 * and the latest after frame what all of them wrote (as long as every
 * instance counted before the common start).
 * @param {Record<string, any>[]} summaries
 * @param {number} written
 */
function mergeRowAudit(summaries, written) {
  const audits = summaries.map(s => s.row_audit).filter(Boolean)
  if (audits.length === 0 || audits.length !== summaries.length) {
    return { acknowledged_rows: written, rows_missing: null }
  }
  const numbers = (/** @type {string} */ field) => audits.map(a => a[field])
  const known = (/** @type {unknown[]} */ values) => values.every(v => typeof v === 'number')
  const before = known(numbers('rows_before')) ? Math.min(...numbers('rows_before')) : null
  const after = known(numbers('rows_after')) ? Math.max(...numbers('rows_after')) : null
  const add = (/** @type {string} */ field) => numbers(field).reduce((n, v) => n + (Number(v) || 0), 0)
  return rowAudit(
    {
      table: audits[0].table,
      before,
      after,
      removed: add('rows_removed_by_retention'),
      inDoubt: {
        writes: add('writes_in_doubt'),
        rows: add('rows_in_doubt'),
        stored: known(numbers('rows_in_doubt_stored')) ? add('rows_in_doubt_stored') : null
      }
    },
    written
  )
}
