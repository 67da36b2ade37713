// What one vacuum cost, and why: the figures the server gives about the
// vacuum itself (its VACUUM VERBOSE report, or an autovacuum's log entry:
// the same text since PostgreSQL 15; before, VERBOSE sends a few separate
// messages without WAL or buffer figures), the visibility map before and
// after (pg_visibility), pg_stat_io's vacuum context (PostgreSQL 16+), the
// server's WAL (its insert position, and pg_stat_wal's records on 15+) and
// the time spent in each phase of pg_stat_progress_vacuum.
//
// Sources, best first:
// - the vacuum's report (VERBOSE's INFO message, or log_autovacuum_min_duration's
//   LOG line): its own pages, tuples, index scans and WAL usage, counted by the
//   backend that ran it, so nothing else running on the server is in them;
// - pg_visibility_map_summary(table) before and after: all-visible and
//   all-frozen pages; needs the pg_visibility extension (created when
//   permitted) and the right to run its functions;
// - pg_stat_io (16+), context 'vacuum' of the backend type that ran it
//   ('client backend' for a manual vacuum, 'autovacuum worker'): reads,
//   writes and extends through the vacuum's buffer ring; other vacuums of
//   that backend type running at the same time are in it too;
// - the WAL insert position (bytes, every major) and pg_stat_wal (records and
//   full-page images, 15+: 14's counters reach the view late, 13 has none):
//   the whole server's WAL between the two snapshots, the load's included:
//   an upper bound of the vacuum's own, exact only when nothing else writes.
//
// A figure a major does not give is null, with its reason in `unavailable`
// ("needs PostgreSQL N: …"), never 0.

//
// The report is read in vacuum-report.js, the counters in vacuum-counters.js;
// here they become one VacuumCost.

import { performance } from 'node:perf_hooks'
import { addReports, parseLegacyVerbose, parseVacuumReport } from './vacuum-report.js'
import { ensureVisibility, needs, readCounters } from './vacuum-counters.js'

/** @typedef {import('./vacuum-report.js').VacuumReport} VacuumReport */
/** @typedef {import('./vacuum-counters.js').CounterSnapshot} CounterSnapshot */
/** @typedef {import('./vacuum-counters.js').WalCounts} WalCounts */
/** @typedef {import('./vacuum-counters.js').IoCounts} IoCounts */
/** @typedef {import('./vacuum-counters.js').VisibilityCounts} VisibilityCounts */

/**
 * The time a vacuum spent in each phase of pg_stat_progress_vacuum, from
 * the phases a poller saw: each poll's phase counts from that poll to the
 * next (the first from the vacuum's start, the last to its end), so the
 * resolution is the polling interval.
 */
export class PhaseClock {
  constructor() {
    this.startedMs = performance.now()
    /** @type {{ phase: string, atMs: number }[]} */
    this.seen = []
  }

  /**
   * @param {string} phase
   * @param {number} [atMs]  performance.now()
   */
  observe(phase, atMs = performance.now()) {
    const last = this.seen[this.seen.length - 1]
    if (!last || last.phase !== phase) this.seen.push({ phase, atMs })
  }

  /**
   * Seconds per phase (snake_case, `_s`), null when no poll saw the vacuum.
   * @param {number} [endMs]
   * @returns {Record<string, number> | null}
   */
  durations(endMs = performance.now()) {
    if (this.seen.length === 0) return null
    /** @type {Record<string, number>} */
    const out = {}
    this.seen.forEach((entry, i) => {
      const from = i === 0 ? this.startedMs : entry.atMs
      const to = i + 1 < this.seen.length ? this.seen[i + 1].atMs : endMs
      const key = `${entry.phase.replace(/[^a-z]+/gi, '_')}_s`
      out[key] = Math.round(((out[key] ?? 0) + Math.max(0, to - from) / 1000) * 1000) / 1000
    })
    return out
  }
}

/**
 * @typedef {object} VacuumCost
 * The figures an end event's detail.cost holds.
 * @property {'VACUUM VERBOSE' | 'server log' | null} source   where the vacuum's own figures come from
 * @property {string[]} relations
 * @property {number | null} heap_pages          the table's pages after the vacuum
 * @property {number | null} pages_scanned
 * @property {number | null} pages_skipped       skipped by the visibility map
 * @property {number | null} pages_frozen        pages on which it froze tuples (PostgreSQL 16+; 15: all-frozen pages
 *   gained)
 * @property {number | null} tuples_frozen
 * @property {number | null} pages_removed       truncated off the end
 * @property {number | null} pages_with_dead_items_removed
 * @property {number | null} dead_items_removed
 * @property {number | null} tuples_removed
 * @property {number | null} index_scans
 * @property {number | null} wal_records         the vacuum's own
 * @property {number | null} wal_fpi
 * @property {number | null} wal_bytes
 * @property {number | null} buffer_hits
 * @property {number | null} buffer_misses
 * @property {number | null} buffer_dirtied
 * @property {WalCounts | null} server_wal       pg_stat_wal delta: the whole server's WAL meanwhile
 * @property {IoCounts | null} io                pg_stat_io delta, context vacuum
 * @property {VisibilityCounts | null} vm_before
 * @property {VisibilityCounts | null} vm_after
 * @property {Record<string, number> | null} phases
 * @property {Record<string, string>} unavailable   figure → why it is missing (never shown as 0)
 */

/**
 * The cost of one vacuum from its report and the counters around it.
 * @param {{ report: VacuumReport | null, before: CounterSnapshot | null, after: CounterSnapshot | null,
 *     phases: Record<string, number> | null, source: 'VACUUM VERBOSE' | 'server log' }} input
 * @returns {VacuumCost}
 */
export function vacuumCost({ report, before, after, phases, source }) {
  /** @type {Record<string, string>} */
  const unavailable = { ...before?.unavailable, ...after?.unavailable }
  const r = report
  if (!r) {
    unavailable.report =
      source === 'VACUUM VERBOSE'
        ? 'the vacuum sent no report (VACUUM FULL reports no pages)'
        : 'no autovacuum entry in the server log'
  }
  /** @param {keyof VacuumReport} key */
  const pick = key => (r ? /** @type {number | null} */ (r[key]) : null)
  const vmBefore = before?.vm ?? null
  const vmAfter = after?.vm ?? null
  const pagesFrozen = pagesFrozenOf(r, vmBefore, vmAfter, unavailable)
  if (r) olderMajorGaps(r, source, unavailable)
  return {
    source: r ? source : null,
    relations: r?.relations ?? [],
    heap_pages: after?.heap_pages ?? (r ? r.pages_remain : null),
    pages_scanned: pick('pages_scanned'),
    pages_skipped: pick('pages_skipped'),
    pages_frozen: pagesFrozen,
    tuples_frozen: pick('tuples_frozen'),
    pages_removed: pick('pages_removed'),
    pages_with_dead_items_removed: pick('pages_with_dead_items_removed'),
    dead_items_removed: pick('dead_items_removed'),
    tuples_removed: pick('tuples_removed'),
    index_scans: pick('index_scans'),
    wal_records: pick('wal_records'),
    wal_fpi: pick('wal_fpi'),
    wal_bytes: pick('wal_bytes'),
    buffer_hits: pick('buffer_hits'),
    buffer_misses: pick('buffer_misses'),
    buffer_dirtied: pick('buffer_dirtied'),
    server_wal: counterDelta(before, after, 'wal'),
    io: counterDelta(before, after, 'io'),
    vm_before: vmBefore,
    vm_after: vmAfter,
    phases,
    unavailable
  }
}

/**
 * The pages the vacuum froze: its report's count, else (PostgreSQL 15 and
 * older) the visibility map's all-frozen pages gained; why, in unavailable.
 * @param {VacuumReport | null} r
 * @param {VisibilityCounts | null} vmBefore
 * @param {VisibilityCounts | null} vmAfter
 * @param {Record<string, string>} unavailable   added to
 * @returns {number | null}
 */
function pagesFrozenOf(r, vmBefore, vmAfter, unavailable) {
  let pagesFrozen = r ? r.pages_frozen : null
  if (r && pagesFrozen === null) {
    // the reports of PostgreSQL 15 and older do not count the pages frozen
    if (vmBefore && vmAfter) {
      pagesFrozen = Math.max(0, vmAfter.all_frozen - vmBefore.all_frozen)
      unavailable.pages_frozen = needs(
        16,
        "older majors' vacuum reports do not count frozen pages; shown is the visibility map's all-frozen pages gained"
      )
    } else {
      unavailable.pages_frozen = needs(
        16,
        "older majors' vacuum reports do not count frozen pages, and the visibility map could not be read"
      )
    }
  }
  if (r && r.pages_frozen === null) {
    unavailable.tuples_frozen = needs(16, "older majors' vacuum reports do not count frozen tuples")
  }
  return pagesFrozen
}

/**
 * The figures a report of an older major leaves out, each with the major
 * that first gives it.
 * @param {VacuumReport} r
 * @param {'VACUUM VERBOSE' | 'server log'} source
 * @param {Record<string, string>} unavailable   added to
 */
function olderMajorGaps(r, source, unavailable) {
  // what the reports of PostgreSQL 13 and 14 leave out: VERBOSE its WAL and
  // buffers, the server log the pages scanned (and, on 13, the dead items)
  for (const [key, first, what] of /** @type {const} */ ([
    ['pages_scanned', 15, 'the pages scanned'],
    ['pages_skipped', 15, 'the pages skipped'],
    ['pages_with_dead_items_removed', 14, 'the pages whose dead items were removed'],
    ['dead_items_removed', 14, 'the dead items removed'],
    ['wal_records', 15, 'the WAL written'],
    ['wal_fpi', 15, 'the WAL written'],
    ['wal_bytes', 15, 'the WAL written'],
    ['buffer_hits', 15, 'the buffers used'],
    ['buffer_misses', 15, 'the buffers used'],
    ['buffer_dirtied', 15, 'the buffers used']
  ])) {
    if (r[key] === null && !unavailable[key]) {
      const older =
        source === 'VACUUM VERBOSE'
          ? 'the VACUUM VERBOSE of older majors does'
          : 'the autovacuum log entries of older majors do'
      unavailable[key] = needs(first, `${older} not give ${what}`)
    }
  }
}

/**
 * What a counter rose by from before to after the vacuum; null when either
 * is missing.
 * @param {CounterSnapshot | null} before
 * @param {CounterSnapshot | null} after
 * @param {'wal' | 'io'} key
 */
function counterDelta(before, after, key) {
  const a = before?.[key]
  const b = after?.[key]
  if (!a || !b) return null
  const was = /** @type {Record<string, number | null>} */ (a)
  return /** @type {any} */ (
    Object.fromEntries(
      Object.entries(b).map(([k, v]) => [
        k,
        v === null || was[k] === null ? null : Math.max(0, v - /** @type {number} */ (was[k]))
      ])
    )
  )
}

/**
 * Follows one manual vacuum on its own connection: the counters before
 * (start), the VERBOSE reports the server sends meanwhile (the statement
 * must have VERBOSE), the counters after (finish). Never fails the vacuum:
 * a figure that cannot be read is recorded as unavailable.
 */
export class VacuumAccount {
  /**
   * @param {import('pg').Client} client   the connection that runs the VACUUM
   * @param {string} table                 quoted (quoteTable)
   */
  constructor(client, table) {
    this.client = client
    this.table = table
    this.clock = new PhaseClock()
    /** @type {(VacuumReport & { relation: string })[]} */
    this.reports = []
    /** @type {CounterSnapshot | null} */
    this.before = null
    /** @type {string | null} */
    this.visibility = null
    /** @type {string | null} */
    this.failed = null
    /** @type {{ message?: string, detail?: string }[]} the reports of 13 and 14 come in pieces */
    this.notices = []
    /** @type {string | undefined} */
    this.datname = undefined
    /** @param {{ message?: string, detail?: string }} notice */
    this.onNotice = notice => {
      const report = parseVacuumReport(String(notice.message ?? ''))
      if (report) this.reports.push(report)
      else if (this.notices.length < 10000) this.notices.push({ message: notice.message, detail: notice.detail })
    }
  }

  async start() {
    this.client.on('notice', this.onNotice)
    try {
      this.datname = String((await this.client.query('SELECT current_database() AS datname')).rows[0].datname)
      this.visibility = await ensureVisibility(this.client)
      this.before = await readCounters(this.client, this.table, {
        backendType: 'client backend',
        visibility: this.visibility
      })
    } catch (err) {
      this.failed = /** @type {Error} */ (err).message
    }
    this.clock = new PhaseClock()
  }

  /**
   * After the VACUUM returned: the counters again, and the cost.
   * @param {number} [endMs]   when the VACUUM returned (performance.now())
   * @returns {Promise<VacuumCost>}
   */
  async finish(endMs = performance.now()) {
    this.client.off('notice', this.onNotice)
    const phases = this.clock.durations(endMs)
    /** @type {CounterSnapshot | null} */
    let after = null
    try {
      // This backend's statistics reach the shared counters when it next goes
      // idle, unless it flushed less than a second ago: forced here (15+).
      if (this.before && this.before.version >= 150000) {
        await this.client.query('SELECT pg_stat_force_next_flush()')
      }
      after = await readCounters(this.client, this.table, {
        backendType: 'client backend',
        visibility: this.visibility
      })
    } catch (err) {
      this.failed ??= /** @type {Error} */ (err).message
    }
    const reports = this.reports.length > 0 ? this.reports : parseLegacyVerbose(this.notices, this.datname)
    const cost = vacuumCost({
      report: addReports(reports),
      before: this.before,
      after,
      phases,
      source: 'VACUUM VERBOSE'
    })
    if (this.failed) cost.unavailable.counters = `could not read the counters: ${this.failed}`
    if (phases === null) {
      cost.unavailable.phases = "the vacuum ended before the progress follower's first poll (every 250 ms)"
    }
    return cost
  }
}
