// What one vacuum cost, and why: the figures the server gives about the
// vacuum itself (its VACUUM VERBOSE report, or an autovacuum's log entry:
// the same text since PostgreSQL 15), the visibility map before and after
// (pg_visibility), pg_stat_io's vacuum context (PostgreSQL 16+), the
// server's WAL counters (pg_stat_wal, server-wide) and the time spent in
// each phase of pg_stat_progress_vacuum.
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
// - pg_stat_wal: the whole server's WAL between the two snapshots, the load's
//   included: an upper bound of the vacuum's own, exact only when nothing
//   else writes.

import { performance } from 'node:perf_hooks'

/** @typedef {{ all_visible: number, all_frozen: number }} VisibilityCounts */
/** @typedef {{ records: number, fpi: number, bytes: number }} WalCounts */
/** @typedef {{ reads: number, writes: number, extends: number, hits: number }} IoCounts */

/**
 * @typedef {object} CounterSnapshot
 * @property {number} version              server_version_num
 * @property {WalCounts | null} wal        pg_stat_wal, whole server
 * @property {IoCounts | null} io          pg_stat_io, context vacuum, of one backend type
 * @property {VisibilityCounts | null} vm  pg_visibility_map_summary
 * @property {number | null} heap_pages    the table's main fork, in pages
 * @property {Record<string, string>} unavailable  figure → why it is missing
 */

/**
 * @typedef {object} VacuumReport
 * What a vacuum's own report says (all of them added up when there are several:
 * a table's TOAST table, a partitioned table's partitions).
 * @property {string[]} relations             the relations reported
 * @property {'manual' | 'autovacuum' | 'wraparound'} mode
 * @property {boolean} aggressive
 * @property {number} index_scans             passes over the indexes (the most any relation needed)
 * @property {number} pages_removed           truncated off the end
 * @property {number} pages_remain
 * @property {number} pages_scanned
 * @property {number} pages_skipped           not scanned: all-visible per the visibility map (all-frozen, when aggressive)
 * @property {number | null} pages_eagerly_scanned  PostgreSQL 18
 * @property {number} tuples_removed
 * @property {number} tuples_remain
 * @property {number} tuples_dead_not_removable
 * @property {number | null} pages_frozen     pages on which tuples were frozen (PostgreSQL 16+)
 * @property {number | null} tuples_frozen
 * @property {number | null} vm_set_all_visible  pages this vacuum set all-visible (PostgreSQL 18)
 * @property {number | null} vm_set_all_frozen   pages this vacuum set all-frozen (PostgreSQL 18)
 * @property {number | null} pages_with_dead_items_removed
 * @property {number | null} dead_items_removed
 * @property {number | null} buffer_hits
 * @property {number | null} buffer_misses
 * @property {number | null} buffer_dirtied
 * @property {number} wal_records
 * @property {number} wal_fpi
 * @property {number} wal_bytes
 */

const REPORT_HEAD = /^(finished vacuuming|automatic (aggressive )?vacuum (to prevent wraparound )?of table) "([^"]*)": index scans: (\d+)/

/**
 * Reads the text of one vacuum report (VERBOSE's INFO message, or the
 * body of an autovacuum's LOG entry); null when the text is not one.
 * @param {string} text
 * @returns {(VacuumReport & { relation: string }) | null}
 */
export function parseVacuumReport (text) {
  const lines = text.split('\n').map(line => line.replace(/^\t/, '').trim())
  const head = REPORT_HEAD.exec(lines[0] ?? '')
  if (!head) return null
  const wraparound = Boolean(head[3])
  const auto = head[1].startsWith('automatic')
  /** @type {VacuumReport & { relation: string }} */
  const report = {
    relation: head[4],
    relations: [head[4]],
    mode: !auto ? 'manual' : wraparound ? 'wraparound' : 'autovacuum',
    aggressive: Boolean(head[2]) || /\baggressive\b/.test(lines[0]),
    index_scans: Number(head[5]),
    pages_removed: 0,
    pages_remain: 0,
    pages_scanned: 0,
    pages_skipped: 0,
    pages_eagerly_scanned: null,
    tuples_removed: 0,
    tuples_remain: 0,
    tuples_dead_not_removable: 0,
    pages_frozen: null,
    tuples_frozen: null,
    vm_set_all_visible: null,
    vm_set_all_frozen: null,
    pages_with_dead_items_removed: null,
    dead_items_removed: null,
    buffer_hits: null,
    buffer_misses: null,
    buffer_dirtied: null,
    wal_records: 0,
    wal_fpi: 0,
    wal_bytes: 0
  }
  for (const line of lines.slice(1)) {
    let m
    if ((m = /^pages: (\d+) removed, (\d+) remain, (\d+) scanned(?: \([\d.]+% of total\))?(?:, (\d+) eagerly scanned)?/.exec(line))) {
      report.pages_removed = Number(m[1])
      report.pages_remain = Number(m[2])
      report.pages_scanned = Number(m[3])
      // scanned counts pages of the table as it was before truncation
      report.pages_skipped = Math.max(0, report.pages_removed + report.pages_remain - report.pages_scanned)
      if (m[4] !== undefined) report.pages_eagerly_scanned = Number(m[4])
    } else if ((m = /^tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable/.exec(line))) {
      report.tuples_removed = Number(m[1])
      report.tuples_remain = Number(m[2])
      report.tuples_dead_not_removable = Number(m[3])
    } else if ((m = /^frozen: (\d+) pages from table \([\d.]+% of total\) had (\d+) tuples frozen/.exec(line))) {
      report.pages_frozen = Number(m[1])
      report.tuples_frozen = Number(m[2])
    } else if ((m = /^visibility map: (\d+) pages set all-visible, (\d+) pages set all-frozen/.exec(line))) {
      report.vm_set_all_visible = Number(m[1])
      report.vm_set_all_frozen = Number(m[2])
    } else if ((m = /^index scan (?:not needed|needed): (\d+) pages from table \([\d.]+% of total\) had (\d+) dead item identifiers removed/.exec(line))) {
      report.pages_with_dead_items_removed = Number(m[1])
      report.dead_items_removed = Number(m[2])
    } else if (/index scan bypassed(?: by failsafe)?: \d+ pages from table/.test(line)) {
      // bypassed: the dead items stay (LP_DEAD) until a later vacuum
      report.pages_with_dead_items_removed = 0
      report.dead_items_removed = 0
    } else if ((m = /^buffer usage: (\d+) hits, (\d+) (?:misses|reads), (\d+) dirtied/.exec(line))) {
      report.buffer_hits = Number(m[1])
      report.buffer_misses = Number(m[2])
      report.buffer_dirtied = Number(m[3])
    } else if ((m = /^WAL usage: (\d+) records, (\d+) full page images, (\d+) bytes/.exec(line))) {
      report.wal_records = Number(m[1])
      report.wal_fpi = Number(m[2])
      report.wal_bytes = Number(m[3])
    }
  }
  return report
}

/**
 * Several reports of one VACUUM (the table's TOAST table, a partitioned
 * table's partitions) added up; null when there is none.
 * @param {VacuumReport[]} reports
 * @returns {VacuumReport | null}
 */
export function addReports (reports) {
  if (reports.length === 0) return null
  /** @param {(number | null)[]} values */
  const add = (values) => values.every(v => v === null) ? null : values.reduce((/** @type {number} */ sum, v) => sum + (v ?? 0), 0)
  /** @type {Record<string, unknown>} */
  const total = { ...reports[0], relations: reports.flatMap(r => r.relations) }
  for (const [key, value] of Object.entries(reports[0])) {
    if (key === 'index_scans') total[key] = Math.max(...reports.map(r => r.index_scans))
    else if (typeof value === 'number' || value === null) total[key] = add(reports.map(r => /** @type {number | null} */ (/** @type {Record<string, unknown>} */ (r)[key])))
  }
  delete total.relation
  return /** @type {VacuumReport} */ (total)
}

/**
 * Autovacuum entries in a server log (log_autovacuum_min_duration), with
 * the time of each: a LOG line "automatic vacuum of table …" and its
 * continuation lines (which start with a tab).
 * @param {string} text   the log, or the part of it written meanwhile
 * @returns {{ ts: string | null, report: VacuumReport & { relation: string } }[]}
 */
export function autovacuumsInLog (text) {
  const out = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i].indexOf('automatic ')
    if (at < 0 || !/LOG:\s+automatic (aggressive )?vacuum /.test(lines[i])) continue
    const body = [lines[i].slice(at)]
    while (i + 1 < lines.length && lines[i + 1].startsWith('\t')) body.push(lines[++i])
    const report = parseVacuumReport(body.join('\n'))
    if (!report) continue
    const time = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)(?: ([A-Z]{2,5}|[+-]\d\d(?::?\d\d)?))?/.exec(lines[i - body.length + 1] ?? '')
    out.push({ ts: time ? logTime(time[1], time[2]) : null, report })
  }
  return out
}

/**
 * A log_line_prefix time (%m or %t) as ISO, when its zone is UTC or an offset.
 * @param {string} local
 * @param {string | undefined} zone
 */
function logTime (local, zone) {
  const iso = local.replace(' ', 'T')
  const suffix = zone === undefined || zone === 'UTC' || zone === 'GMT' ? 'Z' : /^[+-]/.test(zone) ? zone : null
  if (suffix === null) return null
  const ms = Date.parse(iso + suffix)
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null
}

/**
 * The pg_visibility extension in the connected database: created when
 * missing and permitted. Returns why not, or null when it is there.
 * @param {import('pg').Client} client
 * @returns {Promise<string | null>}
 */
export async function ensureVisibility (client) {
  const present = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_visibility'")
  if (present.rowCount) return null
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_visibility')
    return null
  } catch (err) {
    return `pg_visibility is not installed and could not be created (${/** @type {Error} */ (err).message})`
  }
}

/**
 * The counters around a vacuum of table, read on client.
 * @param {import('pg').Client} client
 * @param {string} table          a quoted name (quoteTable)
 * @param {{ backendType: string, visibility: string | null }} options
 *   backendType: whose vacuum context pg_stat_io is read for; visibility:
 *   why pg_visibility cannot be used (ensureVisibility), null when it can
 * @returns {Promise<CounterSnapshot>}
 */
export async function readCounters (client, table, { backendType, visibility }) {
  const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num)
  /** @type {Record<string, string>} */
  const unavailable = {}
  // the table's leaves: itself, or the partitions of a partitioned table
  const leaves = `SELECT c.oid AS relid FROM pg_class c WHERE c.relkind IN ('r', 'm')
  AND (c.oid = to_regclass($1) OR c.oid IN (SELECT p.relid FROM pg_partition_tree(to_regclass($1)) p WHERE p.isleaf))`
  const size = await client.query(`SELECT (sum(pg_relation_size(relid, 'main')) / current_setting('block_size')::int)::bigint AS pages FROM (${leaves}) l`, [table])
  const heapPages = size.rows[0].pages === null ? null : Number(size.rows[0].pages)
  /** @type {WalCounts | null} */
  let wal = null
  if (version >= 140000) {
    const row = (await client.query('SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal')).rows[0]
    wal = { records: Number(row.wal_records), fpi: Number(row.wal_fpi), bytes: Number(row.wal_bytes) }
  } else {
    unavailable.server_wal = `PostgreSQL ${major(version)} has no pg_stat_wal; it came in 14`
  }
  /** @type {IoCounts | null} */
  let io = null
  if (version >= 160000) {
    const row = (await client.query(`SELECT coalesce(sum(reads), 0) AS reads, coalesce(sum(writes), 0) AS writes,
  coalesce(sum(extends), 0) AS extends, coalesce(sum(hits), 0) AS hits
FROM pg_stat_io WHERE backend_type = $1 AND object = 'relation' AND context = 'vacuum'`, [backendType])).rows[0]
    io = { reads: Number(row.reads), writes: Number(row.writes), extends: Number(row.extends), hits: Number(row.hits) }
  } else {
    unavailable.io = `PostgreSQL ${major(version)} has no pg_stat_io; it came in 16`
  }
  /** @type {VisibilityCounts | null} */
  let vm = null
  if (visibility !== null) {
    unavailable.vm = visibility
  } else {
    try {
      const row = (await client.query(`SELECT coalesce(sum(v.all_visible), 0) AS all_visible, coalesce(sum(v.all_frozen), 0) AS all_frozen
FROM (${leaves}) l CROSS JOIN LATERAL pg_visibility_map_summary(l.relid) v`, [table])).rows[0]
      vm = { all_visible: Number(row.all_visible), all_frozen: Number(row.all_frozen) }
    } catch (err) {
      unavailable.vm = `pg_visibility_map_summary failed: ${/** @type {Error} */ (err).message}`
    }
  }
  return { version, wal, io, vm, heap_pages: heapPages, unavailable }
}

/** @param {number} version */
function major (version) {
  return Math.floor(version / 10000)
}

/**
 * The time a vacuum spent in each phase of pg_stat_progress_vacuum, from
 * the phases a poller saw: each poll's phase counts from that poll to the
 * next (the first from the vacuum's start, the last to its end), so the
 * resolution is the polling interval.
 */
export class PhaseClock {
  constructor () {
    this.startedMs = performance.now()
    /** @type {{ phase: string, atMs: number }[]} */
    this.seen = []
  }

  /**
   * @param {string} phase
   * @param {number} [atMs]  performance.now()
   */
  observe (phase, atMs = performance.now()) {
    const last = this.seen[this.seen.length - 1]
    if (!last || last.phase !== phase) this.seen.push({ phase, atMs })
  }

  /**
   * Seconds per phase (snake_case, `_s`), null when no poll saw the vacuum.
   * @param {number} [endMs]
   * @returns {Record<string, number> | null}
   */
  durations (endMs = performance.now()) {
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
 * @property {number | null} pages_frozen        pages on which it froze tuples (PostgreSQL 16+; 15: all-frozen pages gained)
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
 * @param {{ report: VacuumReport | null, before: CounterSnapshot | null, after: CounterSnapshot | null, phases: Record<string, number> | null, source: 'VACUUM VERBOSE' | 'server log' }} input
 * @returns {VacuumCost}
 */
export function vacuumCost ({ report, before, after, phases, source }) {
  /** @type {Record<string, string>} */
  const unavailable = { ...before?.unavailable, ...after?.unavailable }
  const version = after?.version ?? before?.version ?? 0
  const r = report
  if (!r) unavailable.report = source === 'VACUUM VERBOSE' ? 'the vacuum sent no report (VACUUM FULL reports no pages)' : 'no autovacuum entry in the server log'
  /** @param {keyof VacuumReport} key */
  const pick = (key) => r ? /** @type {number | null} */ (r[key]) : null
  const vmBefore = before?.vm ?? null
  const vmAfter = after?.vm ?? null
  let pagesFrozen = pick('pages_frozen')
  if (r && pagesFrozen === null) {
    // PostgreSQL 15's report does not count the pages it froze
    if (vmBefore && vmAfter) {
      pagesFrozen = Math.max(0, vmAfter.all_frozen - vmBefore.all_frozen)
      unavailable.pages_frozen = `PostgreSQL ${major(version)}'s vacuum report does not count frozen pages (16 and later do): shown is the visibility map's all-frozen pages gained`
    } else {
      unavailable.pages_frozen = `PostgreSQL ${major(version)}'s vacuum report does not count frozen pages (16 and later do), and the visibility map could not be read`
    }
  }
  if (r && r.pages_frozen === null) unavailable.tuples_frozen = `PostgreSQL ${major(version)}'s vacuum report does not count frozen tuples (16 and later do)`
  /** @param {'wal' | 'io'} key */
  const delta = (key) => {
    const a = before?.[key]
    const b = after?.[key]
    if (!a || !b) return null
    return /** @type {any} */ (Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Math.max(0, v - /** @type {Record<string, number>} */ (a)[k])])))
  }
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
    server_wal: delta('wal'),
    io: delta('io'),
    vm_before: vmBefore,
    vm_after: vmAfter,
    phases,
    unavailable
  }
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
  constructor (client, table) {
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
    /** @param {{ message?: string }} notice */
    this.onNotice = (notice) => {
      const report = parseVacuumReport(String(notice.message ?? ''))
      if (report) this.reports.push(report)
    }
  }

  async start () {
    this.client.on('notice', this.onNotice)
    try {
      this.visibility = await ensureVisibility(this.client)
      this.before = await readCounters(this.client, this.table, { backendType: 'client backend', visibility: this.visibility })
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
  async finish (endMs = performance.now()) {
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
      after = await readCounters(this.client, this.table, { backendType: 'client backend', visibility: this.visibility })
    } catch (err) {
      this.failed ??= /** @type {Error} */ (err).message
    }
    const cost = vacuumCost({ report: addReports(this.reports), before: this.before, after, phases, source: 'VACUUM VERBOSE' })
    if (this.failed) cost.unavailable.counters = `could not read the counters: ${this.failed}`
    if (phases === null) cost.unavailable.phases = 'the vacuum ended before the progress follower\'s first poll (every 250 ms)'
    return cost
  }
}
