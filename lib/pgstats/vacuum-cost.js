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

import { performance } from 'node:perf_hooks'

/** @typedef {{ all_visible: number, all_frozen: number }} VisibilityCounts */
/** @typedef {{ records: number | null, fpi: number | null, bytes: number }} WalCounts */
/** @typedef {{ reads: number, writes: number, extends: number, hits: number }} IoCounts */

/**
 * @typedef {object} CounterSnapshot
 * @property {number} version              server_version_num
 * @property {WalCounts | null} wal        the WAL insert position and pg_stat_wal, whole server
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
 * @property {number | null} index_scans      passes over the indexes (the most any relation needed)
 * @property {number | null} pages_removed           truncated off the end
 * @property {number | null} pages_remain
 * @property {number | null} pages_scanned
 * @property {number | null} pages_skipped           not scanned: all-visible per the visibility map (all-frozen, when aggressive)
 * @property {number | null} pages_eagerly_scanned  PostgreSQL 18
 * @property {number | null} tuples_removed
 * @property {number | null} tuples_remain
 * @property {number | null} tuples_dead_not_removable
 * @property {number | null} pages_frozen     pages on which tuples were frozen (PostgreSQL 16+)
 * @property {number | null} tuples_frozen
 * @property {number | null} vm_set_all_visible  pages this vacuum set all-visible (PostgreSQL 18)
 * @property {number | null} vm_set_all_frozen   pages this vacuum set all-frozen (PostgreSQL 18)
 * @property {number | null} pages_with_dead_items_removed
 * @property {number | null} dead_items_removed
 * @property {number | null} buffer_hits
 * @property {number | null} buffer_misses
 * @property {number | null} buffer_dirtied
 * @property {number | null} wal_records
 * @property {number | null} wal_fpi
 * @property {number | null} wal_bytes
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
    // null until a line gives it: older majors leave some out
    ...unreportedFigures()
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
    } else if ((m = /^pages: (\d+) removed, (\d+) remain, \d+ skipped due to pins, \d+ skipped frozen/.exec(line))) {
      // PostgreSQL 13 and 14: the pages scanned are not given (nor those
      // skipped as all-visible)
      report.pages_removed = Number(m[1])
      report.pages_remain = Number(m[2])
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
 * The VERBOSE messages of PostgreSQL 13 and 14, which report a vacuum in
 * pieces (each its own notice, with a detail): "vacuuming "schema.table"",
 * "scanned index …", ""table": removed N row versions in P pages" (13) or
 * "table "table": removed N dead item identifiers in P pages" (14) after each
 * pass over the indexes, ""table": truncated A to B pages", and at the end of
 * the heap scan ""table": found R removable, K nonremovable row versions in S
 * out of P pages". They give no WAL, buffer or freezing figures. One report
 * per relation vacuumed.
 * @param {{ message?: string, detail?: string }[]} notices   in the order received
 * @param {string} [datname]   the database, to name the relations as the newer reports do
 * @returns {(VacuumReport & { relation: string })[]}
 */
export function parseLegacyVerbose (notices, datname) {
  /** @type {(VacuumReport & { relation: string })[]} */
  const reports = []
  /** @type {(VacuumReport & { relation: string, indexes: boolean, passes: number }) | null} */
  let current = null
  const finish = () => {
    if (!current) return
    const { indexes, passes, ...report } = current
    // one "removed" message per pass over the indexes; a table without
    // indexes (14) removes its dead items as it scans, in no pass
    report.index_scans = indexes ? passes : 0
    reports.push(report)
    current = null
  }
  for (const notice of notices) {
    const message = String(notice.message ?? '')
    const detail = String(notice.detail ?? '')
    let m
    if ((m = /^(aggressively )?vacuuming "(.+)"$/.exec(message))) {
      finish()
      const relation = datname ? `${datname}.${m[2]}` : m[2]
      current = {
        relation,
        relations: [relation],
        mode: 'manual',
        aggressive: Boolean(m[1]),
        index_scans: null,
        ...unreportedFigures(),
        pages_removed: 0,
        indexes: false,
        passes: 0
      }
    } else if (!current) {
      continue
    } else if (/^scanned index "/.test(message)) {
      current.indexes = true
    } else if ((m = /^(?:table )?"[^"]*": removed (\d+) (?:row versions|dead item identifiers) in (\d+) pages$/.exec(message))) {
      current.passes++
      current.dead_items_removed = (current.dead_items_removed ?? 0) + Number(m[1])
      current.pages_with_dead_items_removed = (current.pages_with_dead_items_removed ?? 0) + Number(m[2])
    } else if (/^table "[^"]*": index scan bypassed/.test(message)) {
      // 14: the dead items stay (LP_DEAD) until a later vacuum
      current.dead_items_removed ??= 0
      current.pages_with_dead_items_removed ??= 0
    } else if ((m = /^(?:table )?"[^"]*": truncated (\d+) to (\d+) pages$/.exec(message))) {
      current.pages_removed = Math.max(0, Number(m[1]) - Number(m[2]))
      current.pages_remain = Number(m[2])
    } else if ((m = /^(?:table )?"[^"]*": found (\d+) removable, (\d+) nonremovable row versions in (\d+) out of (\d+) pages$/.exec(message))) {
      current.tuples_removed = Number(m[1])
      current.tuples_remain = Number(m[2])
      current.pages_scanned = Number(m[3])
      current.pages_skipped = Math.max(0, Number(m[4]) - Number(m[3]))
      current.pages_remain = Number(m[4])
      const kept = /(\d+) dead row versions cannot be removed yet/.exec(detail)
      if (kept) current.tuples_dead_not_removable = Number(kept[1])
      if (Number(m[1]) === 0 && current.dead_items_removed === null) {
        current.dead_items_removed = 0
        current.pages_with_dead_items_removed = 0
      }
    }
  }
  finish()
  return reports
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
    if (key === 'index_scans') total[key] = reports.every(r => r.index_scans === null) ? null : Math.max(...reports.map(r => r.index_scans ?? 0))
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
export function logTime (local, zone) {
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
  // The insert position moves with every WAL record, at once, on every
  // major; pg_stat_wal's counters (14+) reach the view when a backend
  // reports them: forced on 15+ (VacuumAccount.finish), but on 14 up to
  // half a second or more late, so its records would often count nothing.
  const position = (await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS bytes")).rows[0]
  /** @type {WalCounts} */
  const wal = { records: null, fpi: null, bytes: Number(position.bytes) }
  if (version >= 150000) {
    const row = (await client.query('SELECT wal_records, wal_fpi FROM pg_stat_wal')).rows[0]
    wal.records = Number(row.wal_records)
    wal.fpi = Number(row.wal_fpi)
  } else {
    unavailable.server_wal_records = needs(15, version < 140000 ? 'pg_stat_wal came in 14' : 'pg_stat_wal\'s counters reach the view late on 14')
  }
  /** @type {IoCounts | null} */
  let io = null
  if (version >= 160000) {
    const row = (await client.query(`SELECT coalesce(sum(reads), 0) AS reads, coalesce(sum(writes), 0) AS writes,
  coalesce(sum(extends), 0) AS extends, coalesce(sum(hits), 0) AS hits
FROM pg_stat_io WHERE backend_type = $1 AND object = 'relation' AND context = 'vacuum'`, [backendType])).rows[0]
    io = { reads: Number(row.reads), writes: Number(row.writes), extends: Number(row.extends), hits: Number(row.hits) }
  } else {
    unavailable.io = needs(16, 'pg_stat_io')
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

/**
 * The reason of a figure a major does not give.
 * @param {number} major   the first major that gives it
 * @param {string} why
 */
export function needs (major, why) {
  return `needs PostgreSQL ${major}: ${why}`
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
  const r = report
  if (!r) unavailable.report = source === 'VACUUM VERBOSE' ? 'the vacuum sent no report (VACUUM FULL reports no pages)' : 'no autovacuum entry in the server log'
  /** @param {keyof VacuumReport} key */
  const pick = (key) => r ? /** @type {number | null} */ (r[key]) : null
  const vmBefore = before?.vm ?? null
  const vmAfter = after?.vm ?? null
  let pagesFrozen = pick('pages_frozen')
  if (r && pagesFrozen === null) {
    // the reports of PostgreSQL 15 and older do not count the pages frozen
    if (vmBefore && vmAfter) {
      pagesFrozen = Math.max(0, vmAfter.all_frozen - vmBefore.all_frozen)
      unavailable.pages_frozen = needs(16, 'older majors\' vacuum reports do not count frozen pages; shown is the visibility map\'s all-frozen pages gained')
    } else {
      unavailable.pages_frozen = needs(16, 'older majors\' vacuum reports do not count frozen pages, and the visibility map could not be read')
    }
  }
  if (r && r.pages_frozen === null) unavailable.tuples_frozen = needs(16, 'older majors\' vacuum reports do not count frozen tuples')
  if (r) {
    // what the reports of PostgreSQL 13 and 14 leave out: VERBOSE its WAL and
    // buffers, the server log the pages scanned (and, on 13, the dead items)
    for (const [key, first, what] of /** @type {const} */ ([
      ['pages_scanned', 15, 'the pages scanned'], ['pages_skipped', 15, 'the pages skipped'],
      ['pages_with_dead_items_removed', 14, 'the pages whose dead items were removed'], ['dead_items_removed', 14, 'the dead items removed'],
      ['wal_records', 15, 'the WAL written'], ['wal_fpi', 15, 'the WAL written'], ['wal_bytes', 15, 'the WAL written'],
      ['buffer_hits', 15, 'the buffers used'], ['buffer_misses', 15, 'the buffers used'], ['buffer_dirtied', 15, 'the buffers used']
    ])) {
      if (r[key] === null && !unavailable[key]) unavailable[key] = needs(first, `${source === 'VACUUM VERBOSE' ? 'the VACUUM VERBOSE of older majors does' : 'the autovacuum log entries of older majors do'} not give ${what}`)
    }
  }
  /** @param {'wal' | 'io'} key */
  const delta = (key) => {
    const a = before?.[key]
    const b = after?.[key]
    if (!a || !b) return null
    const was = /** @type {Record<string, number | null>} */ (a)
    return /** @type {any} */ (Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v === null || was[k] === null ? null : Math.max(0, v - /** @type {number} */ (was[k]))])))
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
    /** @type {{ message?: string, detail?: string }[]} the reports of 13 and 14 come in pieces */
    this.notices = []
    /** @type {string | undefined} */
    this.datname = undefined
    /** @param {{ message?: string, detail?: string }} notice */
    this.onNotice = (notice) => {
      const report = parseVacuumReport(String(notice.message ?? ''))
      if (report) this.reports.push(report)
      else if (this.notices.length < 10000) this.notices.push({ message: notice.message, detail: notice.detail })
    }
  }

  async start () {
    this.client.on('notice', this.onNotice)
    try {
      this.datname = String((await this.client.query('SELECT current_database() AS datname')).rows[0].datname)
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
    const reports = this.reports.length > 0 ? this.reports : parseLegacyVerbose(this.notices, this.datname)
    const cost = vacuumCost({ report: addReports(reports), before: this.before, after, phases, source: 'VACUUM VERBOSE' })
    if (this.failed) cost.unavailable.counters = `could not read the counters: ${this.failed}`
    if (phases === null) cost.unavailable.phases = 'the vacuum ended before the progress follower\'s first poll (every 250 ms)'
    return cost
  }
}

/**
 * A vacuum report's figures before any line gave them: null, since older
 * majors leave some out.
 */
function unreportedFigures () {
  return {
    pages_removed: /** @type {number | null} */ (null),
    pages_remain: /** @type {number | null} */ (null),
    pages_scanned: /** @type {number | null} */ (null),
    pages_skipped: /** @type {number | null} */ (null),
    pages_eagerly_scanned: /** @type {number | null} */ (null),
    tuples_removed: /** @type {number | null} */ (null),
    tuples_remain: /** @type {number | null} */ (null),
    tuples_dead_not_removable: /** @type {number | null} */ (null),
    pages_frozen: /** @type {number | null} */ (null),
    tuples_frozen: /** @type {number | null} */ (null),
    vm_set_all_visible: /** @type {number | null} */ (null),
    vm_set_all_frozen: /** @type {number | null} */ (null),
    pages_with_dead_items_removed: /** @type {number | null} */ (null),
    dead_items_removed: /** @type {number | null} */ (null),
    buffer_hits: /** @type {number | null} */ (null),
    buffer_misses: /** @type {number | null} */ (null),
    buffer_dirtied: /** @type {number | null} */ (null),
    wal_records: /** @type {number | null} */ (null),
    wal_fpi: /** @type {number | null} */ (null),
    wal_bytes: /** @type {number | null} */ (null)
  }
}
