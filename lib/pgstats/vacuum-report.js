// What a vacuum's own report says: the text of VACUUM VERBOSE's INFO
// message, or of an autovacuum's LOG entry (the same text since PostgreSQL
// 15; before, VERBOSE sends a few separate messages without WAL or buffer
// figures), and the autovacuums of a server log. lib/pgstats/vacuum-cost.js
// puts these figures beside the counters read around the vacuum.

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
 * @property {number | null} pages_skipped           not scanned: all-visible per the visibility map (all-frozen, when
 *   aggressive)
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
 * @property {number | null} elapsed_s   wall time, from start to end ("system usage: … elapsed: 0.05 s")
 */

const REPORT_HEAD =
  /^(finished vacuuming|automatic (aggressive )?vacuum (to prevent wraparound )?of table) "([^"]*)": index scans: (\d+)/

/**
 * Reads the text of one vacuum report (VERBOSE's INFO message, or the
 * body of an autovacuum's LOG entry); null when the text is not one.
 * @param {string} text
 * @returns {(VacuumReport & { relation: string }) | null}
 */
export function parseVacuumReport(text) {
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
    if (
      (m =
        /^pages: (\d+) removed, (\d+) remain, (\d+) scanned(?: \([\d.]+% of total\))?(?:, (\d+) eagerly scanned)?/.exec(
          line
        ))
    ) {
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
    } else if (
      (m =
        /^index scan (?:not needed|needed): (\d+) pages from table \([\d.]+% of total\) had (\d+) dead item identifiers removed/.exec(
          line
        ))
    ) {
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
    } else if ((m = /^system usage: .*\belapsed: ([\d.]+) s/.exec(line))) {
      report.elapsed_s = Number(m[1])
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
export function parseLegacyVerbose(notices, datname) {
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
    } else if (
      (m = /^(?:table )?"[^"]*": removed (\d+) (?:row versions|dead item identifiers) in (\d+) pages$/.exec(message))
    ) {
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
    } else if (
      (m =
        /^(?:table )?"[^"]*": found (\d+) removable, (\d+) nonremovable row versions in (\d+) out of (\d+) pages$/.exec(
          message
        ))
    ) {
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
export function addReports(reports) {
  if (reports.length === 0) return null
  /** @param {(number | null)[]} values */
  const add = values =>
    values.every(v => v === null) ? null : values.reduce((/** @type {number} */ sum, v) => sum + (v ?? 0), 0)
  /** @type {Record<string, unknown>} */
  const total = { ...reports[0], relations: reports.flatMap(r => r.relations) }
  for (const [key, value] of Object.entries(reports[0])) {
    if (key === 'index_scans')
      total[key] = reports.every(r => r.index_scans === null) ? null : Math.max(...reports.map(r => r.index_scans ?? 0))
    else if (typeof value === 'number' || value === null)
      total[key] = add(reports.map(r => /** @type {number | null} */ (/** @type {Record<string, unknown>} */ (r)[key])))
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
export function autovacuumsInLog(text) {
  const out = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i].indexOf('automatic ')
    if (at < 0 || !/LOG:\s+automatic (aggressive )?vacuum /.test(lines[i])) continue
    const body = [lines[i].slice(at)]
    while (i + 1 < lines.length && lines[i + 1].startsWith('\t')) body.push(lines[++i])
    const report = parseVacuumReport(body.join('\n'))
    if (!report) continue
    const time = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)(?: ([A-Z]{2,5}|[+-]\d\d(?::?\d\d)?))?/.exec(
      lines[i - body.length + 1] ?? ''
    )
    out.push({ ts: time ? logTime(time[1], time[2]) : null, report })
  }
  return out
}

/**
 * A log_line_prefix time (%m or %t) as ISO, when its zone is UTC or an offset.
 * @param {string} local
 * @param {string | undefined} zone
 */
export function logTime(local, zone) {
  const iso = local.replace(' ', 'T')
  const suffix = zone === undefined || zone === 'UTC' || zone === 'GMT' ? 'Z' : /^[+-]/.test(zone) ? zone : null
  if (suffix === null) return null
  const ms = Date.parse(iso + suffix)
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null
}

/**
 * A vacuum report's figures before any line gave them: null, since older
 * majors leave some out.
 */
function unreportedFigures() {
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
    wal_bytes: /** @type {number | null} */ (null),
    elapsed_s: /** @type {number | null} */ (null)
  }
}

/**
 * Whether a relation as the server log names it (database.schema.table)
 * is the table given as table or schema.table (public when no schema).
 * @param {string} relation
 * @param {string} table
 */
export function isTable(relation, table) {
  const wanted = table.includes('.') ? table : `public.${table}`
  return relation.split('.').slice(1).join('.') === wanted
}
