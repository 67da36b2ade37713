import { PLAIN } from './colours.js'
import { count, ms, plural, rate } from './figure-format.js'
import { renderTable } from './table.js'
import { changesLines } from './changes-lines.js'
import { loadOverTimeLines } from './load-over-time-lines.js'
import { thresholdLines } from './threshold-lines.js'

// The end of a run on stderr: what ran, a row per request type and a
// total, the failures by message, the reconnects and the audit of the
// acknowledged writes. Every figure is read from the summary object that
// --json prints (or the merged one), never recomputed from the stats, so
// that the table and the JSON cannot disagree.

/** Failure messages listed; the rest are counted on one line. */
export const TOP_FAILURES = 5

/**
 * @typedef {object} TableOptions
 * @property {import('./colours.js').Colours} [colours]
 * @property {number} [width]            columns available
 * @property {string | null} [recordDir]  where --record wrote the run
 * @property {string | null} [report]     where a report was written
 */

/**
 * @param {Record<string, any>} summary   a run's summary (summary.js) or a merged one
 * @param {TableOptions} [options]
 * @returns {string[]} lines, without newlines
 */
export function summaryTable(summary, { colours = PLAIN, width = 80, recordDir = null, report = null } = {}) {
  return [
    '',
    ...whatRan(summary).map(line => colours.bold(line)),
    '',
    ...requestRows(summary, colours, width),
    ...loadOverTimeLines(summary, colours),
    ...failureLines(summary, colours, width),
    ...auditLines(summary, colours),
    ...scheduleLines(summary),
    ...changesLines(summary, colours, width),
    ...forecastLines(summary),
    // last before the paths: the verdict a CI job gates on
    ...thresholdLines(summary, colours, width),
    ...(recordDir ? [`recorded to ${recordDir} (pgloadgen report ${recordDir} writes its report)`] : []),
    ...(report ? [`report: ${report}`] : [])
  ]
}

/**
 * How far the table's autovacuums started from their forecasts, when any started.
 * @param {Record<string, any>} summary
 * @returns {string[]}
 */
function forecastLines(summary) {
  const check = summary.autovacuum_forecast
  if (!check || !(check.starts > 0)) return []
  if (check.checked === 0)
    return [`autovacuum forecast: ${plural(check.starts, 'start')}, none with a forecast before it`]
  const within =
    check.within_naptime === null ? '' : `, ${check.within_naptime} within one naptime (${check.naptime_s} s)`
  const durations =
    check.durations_checked > 0
      ? `; durations ${check.durations_within_30pct} of ${check.durations_checked} within ±30 %`
      : ''
  return [
    `autovacuum forecast: ${check.checked} of ${plural(check.starts, 'start')} checked${within}; median error ${check.median_abs_error_s} s${durations}`
  ]
}

/**
 * Two lines: the workload, the loop and how long; against what.
 * @param {Record<string, any>} summary
 */
function whatRan(summary) {
  const concurrency =
    summary.final_concurrency !== undefined && summary.final_concurrency !== summary.concurrency
      ? `concurrency ${summary.concurrency} → ${summary.final_concurrency}`
      : `concurrency ${summary.concurrency}`
  const loop =
    summary.mode === 'open'
      ? `open loop at ${summary.rate} requests/s (${summary.arrival}), ${concurrency}`
      : summary.mode === 'paced'
        ? `paced clients every ${summary.pacing_interval_s} s, ${concurrency}`
        : `closed loop, ${concurrency}`
  const merged = summary.merged
    ? `, merged from ${plural(summary.merged.runs, 'run')} (start skew ${summary.start_skew_ms} ms)`
    : ''
  const version = summary.server_version ? ` (PostgreSQL ${summary.server_version})` : ''
  return [`${summary.workload}, ${loop}, ${summary.elapsed_s} s${merged}`, `against ${summary.target}${version}`]
}

/**
 * A row per request type, then the total; latencies in ms.
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 */
function requestRows(summary, colours, width) {
  const columns = [
    { title: 'type', flexible: true, min: 10 },
    { title: 'done', align: /** @type {const} */ ('right') },
    { title: 'failed', align: /** @type {const} */ ('right') },
    { title: 'req/s', align: /** @type {const} */ ('right') },
    { title: 'p50 ms', align: /** @type {const} */ ('right') },
    { title: 'p95 ms', align: /** @type {const} */ ('right') },
    { title: 'p99 ms', align: /** @type {const} */ ('right') },
    { title: 'max ms', align: /** @type {const} */ ('right') }
  ]
  /** @type {Record<string, any>} */
  const requests = summary.requests ?? {}
  const entries = Object.entries(requests)
  let done = 0
  let failed = 0
  for (const [, r] of entries) {
    done += r.done
    failed += r.failed
  }
  /**
   * @param {string} name
   * @param {number} rowDone
   * @param {number} rowFailed
   * @param {number | null} rowRate
   * @param {Record<string, number | null> | null | undefined} latency
   */
  const cells = (name, rowDone, rowFailed, rowRate, latency) => [
    name,
    count(rowDone),
    count(rowFailed),
    rate(rowRate),
    ms(latency?.p50),
    ms(latency?.p95),
    ms(latency?.p99),
    ms(latency?.max)
  ]
  /** @param {number} n */
  const failedStyle = n => (n > 0 ? colours.yellow : (/** @type {string} */ s) => s)
  const none = (/** @type {string} */ s) => s
  /** @type {import('./table.js').Row[]} */
  const rows = entries.map(([type, r]) => ({
    cells: cells(type, r.done, r.failed, r.rate, r.latency_us),
    cellStyles: [none, none, failedStyle(r.failed)]
  }))
  rows.push({
    cells: cells('total', done, failed, summary.throughput, summary.latency_us),
    cellStyles: [none, none, failedStyle(failed)],
    style: colours.bold
  })
  return [...renderTable(columns, rows, { width, header: colours.dim }), '']
}

/**
 * The failures by normalised message, most frequent first, and whether
 * any was unexpected.
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 * @param {number} width
 */
function failureLines(summary, colours, width) {
  /** @type {[string, number][]} */
  const errors = Object.entries(summary.errors ?? {})
  errors.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  const lines = []
  if (errors.length > 0) {
    const shown = errors.slice(0, TOP_FAILURES)
    const rest = errors.slice(TOP_FAILURES)
    const rows = shown.map(([message, n]) => ({ cells: [message, count(n)] }))
    if (rest.length > 0) {
      rows.push({ cells: [`(${plural(rest.length, 'other message')})`, count(rest.reduce((n, [, c]) => n + c, 0))] })
    }
    lines.push(
      ...renderTable(
        [
          { title: 'failure', flexible: true, min: 20 },
          { title: 'count', align: 'right' }
        ],
        rows,
        { width, header: colours.dim }
      )
    )
  }
  const unexpected = Number(summary.unexpected_failures ?? 0)
  lines.push(
    `unexpected failures: ${unexpected > 0 ? colours.red(colours.bold(count(unexpected))) : colours.green('0')}`
  )
  const diskFull = summary.disk_full
  if (diskFull && diskFull.failures > 0) {
    lines.push(
      colours.yellow(
        `disk full: ${plural(diskFull.failures, 'request')} failed for want of space, in ${plural(diskFull.episodes, 'episode')}`
      )
    )
  }
  const timeouts = Number(summary.timeouts ?? 0)
  if (timeouts > 0) {
    lines.push(colours.yellow(`timeouts: ${plural(timeouts, 'request')} got no answer within the request timeout`))
  }
  const cancels = summary.cancels
  if (cancels && cancels.sent > 0) {
    lines.push(
      colours.yellow(
        `cancels: ${count(cancels.sent)} sent, ${count(cancels.succeeded)} ended on the server (kept), ${count(cancels.gave_up)} past the grace (replaced)`
      )
    )
  }
  const refused = Number(summary.refused_connections ?? 0)
  if (refused > 0) {
    lines.push(colours.yellow(`refused: ${plural(refused, 'connection attempt')} refused by the server (too many)`))
  }
  lines.push(`reconnects: ${count(summary.reconnects ?? 0)}`)
  const restarts = Number(summary.server_restarts ?? 0)
  if (restarts > 0) {
    lines.push(
      colours.yellow(`server restarts: ${count(restarts)} (the embedded server stopped on its own, started again)`)
    )
  }
  if (summary.abandoned_in_flight) lines.push(colours.yellow('requests still running at the shutdown timeout were cut'))
  return lines
}

/**
 * The acknowledged writes against what the table holds at the end.
 * @param {Record<string, any>} summary
 * @param {import('./colours.js').Colours} colours
 */
function auditLines(summary, colours) {
  const lines = []
  const acknowledged = Number(summary.acknowledged_inserts ?? 0)
  const missing = summary.acknowledged_missing
  if (acknowledged > 0 || typeof missing === 'number') {
    const vanished = Number(summary.acknowledged_vanished ?? 0)
    const checked =
      typeof missing === 'number'
        ? // present: acknowledged, neither gone back in time nor missing
          `, ${count(acknowledged - vanished - missing)} present, ${lost(missing, 'missing', colours)}, ${lost(vanished, 'vanished', colours)}`
        : ', not checked'
    lines.push(`inserts: ${count(acknowledged)} acknowledged${checked}`)
  }
  const insertsInDoubt = Number(summary.inserts_in_doubt ?? 0)
  if (insertsInDoubt > 0) {
    const stored = summary.inserts_in_doubt_stored
    const outcome =
      typeof stored === 'number'
        ? `${count(stored)} committed, ${count(insertsInDoubt - stored)} not`
        : 'not looked for'
    lines.push(`in doubt (sent, no acknowledgement): ${plural(insertsInDoubt, 'insert')}, ${outcome}`)
  }
  const audit = summary.row_audit
  if (audit) {
    const missingRows =
      summary.rows_missing === null || summary.rows_missing === undefined
        ? 'not counted'
        : lost(summary.rows_missing, 'missing', colours)
    lines.push(`rows of ${audit.table}: ${count(summary.acknowledged_rows)} acknowledged, ${missingRows}`)
    lines.push(
      `  the table: ${count(audit.rows_before)} rows before, ${count(audit.rows_after)} after, ${count(audit.rows_removed_by_retention)} removed by retention`
    )
    if (audit.writes_in_doubt > 0) {
      lines.push(
        `in doubt (sent, no acknowledgement): ${plural(audit.writes_in_doubt, 'write')}, ${plural(audit.rows_in_doubt, 'row')}, ${audit.rows_in_doubt_stored === null ? 'not counted' : `${count(audit.rows_in_doubt_stored)} stored`}`
      )
    }
  }
  return lines
}

/**
 * @param {number} n
 * @param {string} word
 * @param {import('./colours.js').Colours} colours
 */
function lost(n, word, colours) {
  const text = `${count(n)} ${word}`
  return n > 0 ? colours.red(colours.bold(text)) : colours.green(text)
}

/**
 * Open loop and paced clients: how late the requests started, and the
 * skips; ingest workloads: what was written.
 * @param {Record<string, any>} summary
 */
function scheduleLines(summary) {
  const lines = []
  const lag = summary.schedule_lag_us
  if (lag) {
    const maxLag =
      summary.max_lag_ms === null || summary.max_lag_ms === undefined ? '' : ` (--max-lag ${summary.max_lag_ms} ms)`
    const skipped = summary.mode === 'open' ? `, ${count(summary.skipped)} skipped${maxLag}` : ''
    lines.push(`schedule lag: p50 ${ms(lag.p50)} ms, p99 ${ms(lag.p99)} ms, max ${ms(lag.max)} ms${skipped}`)
  }
  if (summary.points_written > 0) {
    lines.push(
      `written: ${count(summary.rows_written)} rows (${rate(summary.rows_per_s)}/s), ${count(summary.points_written)} points (${rate(summary.points_per_s)}/s)`
    )
  }
  return lines
}
