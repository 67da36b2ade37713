// The actions a run holds: which one it is about (the first vacuum the
// sidecar ran, from the events, else its first analyze or checkpoint, else
// its first retention run, else a vacuum nobody asked for (an autovacuum,
// e.g. to prevent wraparound) seen in the samples' PostgreSQL figures);
// the autovacuums seen; what retention removed. How each is drawn is
// lib/report/action-bands.js.

const VACUUM = /^vacuum/
const OTHER = /^(analyze|checkpoint)$/
const RETENTION = /^(drop-partitions|delete)$/

/**
 * @typedef {object} ActionSpan
 * @property {string} name
 * @property {string | null} table
 * @property {number} startMs
 * @property {number | null} endMs     null: it had not ended when the load ended
 * @property {number | null} duration_s
 * @property {boolean | null} ok
 * @property {'events' | 'samples'} source
 */

/**
 * @param {import('./read.js').RunData} run
 * @returns {ActionSpan | null}
 */
export function findAction(run) {
  return (
    fromEvents(run.events, VACUUM) ??
    fromEvents(run.events, OTHER) ??
    fromEvents(run.events, RETENTION) ??
    vacuumsInSamples(run.samples)[0] ??
    null
  )
}

/**
 * @param {import('./read.js').LabEvent[]} events
 * @param {RegExp} pattern
 * @returns {ActionSpan | null}
 */
function fromEvents(events, pattern) {
  const start = events.find(e => e.kind === 'start' && pattern.test(e.action))
  if (!start) return null
  const startMs = Date.parse(start.ts)
  const end = events.find(
    e =>
      e.kind === 'end' &&
      e.action === start.action &&
      (e.table ?? null) === (start.table ?? null) &&
      Date.parse(e.ts) >= startMs
  )
  return {
    name: start.action,
    table: start.table ?? null,
    startMs,
    endMs: end ? Date.parse(end.ts) : null,
    duration_s: end
      ? typeof end.duration_s === 'number'
        ? end.duration_s
        : (Date.parse(end.ts) - startMs) / 1000
      : null,
    ok: end ? end.ok !== false : null,
    source: 'events'
  }
}

/**
 * Vacuums of the table seen in the samples (pg.vacuum set), to the
 * resolution of the statistics polls: from the start of the first sample
 * that shows one to the start of the first later sample that shows none.
 * @param {import('./read.js').Sample[]} samples
 * @returns {ActionSpan[]}
 */
export function vacuumsInSamples(samples) {
  /** @type {ActionSpan[]} */
  const spans = []
  /** @type {ActionSpan | null} */
  let current = null
  let previousEnd = NaN
  for (const sample of samples) {
    const endMs = Date.parse(sample.t)
    const startMs = Number.isFinite(previousEnd) ? previousEnd : endMs - 1000
    previousEnd = endMs
    const pg = sample.pg
    if (!pg) continue
    const vacuum = pg.vacuum ?? null
    if (vacuum && !current) {
      const mode = vacuum.mode ?? 'manual'
      const name = mode === 'wraparound' ? 'autovacuum_wraparound' : mode === 'autovacuum' ? 'autovacuum' : 'vacuum'
      current = { name, table: pg.table ?? null, startMs, endMs: null, duration_s: null, ok: null, source: 'samples' }
      spans.push(current)
    } else if (!vacuum && current) {
      current.endMs = startMs
      current.duration_s = (startMs - current.startMs) / 1000
      current = null
    }
  }
  return spans
}

/**
 * Distinct autovacuums of the table (or its partitions) seen in the
 * samples: one begins where a sample shows an autovacuum and the one before
 * showed none, or another mode, or a different heap size (another
 * partition), or an earlier phase or fewer blocks scanned (a new pass).
 * Shorter ones, between two polls, are not seen.
 * @param {import('./read.js').Sample[]} samples
 */
export function autovacuumsSeen(samples) {
  let count = 0
  /** @type {import('./read.js').VacuumFigures | null} */
  let previous = null
  for (const sample of samples) {
    if (!sample.pg) continue
    const vacuum = sample.pg.vacuum ?? null
    const auto = vacuum !== null && (vacuum.mode === 'autovacuum' || vacuum.mode === 'wraparound')
    if (auto && (previous === null || startsAnother(previous, vacuum))) count++
    previous = auto ? vacuum : null
  }
  return count
}

/**
 * @param {import('./read.js').VacuumFigures} before
 * @param {import('./read.js').VacuumFigures} now
 */
function startsAnother(before, now) {
  if (before.mode !== now.mode) return true
  if ((before.heap_blks_total ?? null) !== (now.heap_blks_total ?? null)) return true
  if (before.phase >= 0 && now.phase >= 0 && now.phase < before.phase) return true
  return Number(now.heap_blks_scanned ?? 0) < Number(before.heap_blks_scanned ?? 0)
}

/**
 * @typedef {object} RetentionTotals
 * @property {number} runs                retention actions that ended (also skipped and failed ones)
 * @property {number} failed
 * @property {number} skipped             another retention action of the table was running
 * @property {number} rows_removed        rows dropped with their partitions, and rows deleted
 * @property {number} partitions_dropped
 * @property {number} bytes_dropped       pg_total_relation_size of the partitions dropped
 * @property {number} batches             DELETE transactions
 * @property {number} seconds             time spent in them, all runs
 * @property {number | null} max_seconds  the longest run
 */

/**
 * What a run's retention actions removed, from their end events (a failed
 * one counts what it committed before failing).
 * @param {import('./read.js').LabEvent[]} events
 * @returns {RetentionTotals | null}  null: no retention action ended
 */
export function retentionTotals(events) {
  const ends = events.filter(e => e.kind === 'end' && RETENTION.test(e.action))
  if (ends.length === 0) return null
  /** @type {RetentionTotals} */
  const totals = {
    runs: 0,
    failed: 0,
    skipped: 0,
    rows_removed: 0,
    partitions_dropped: 0,
    bytes_dropped: 0,
    batches: 0,
    seconds: 0,
    max_seconds: null
  }
  for (const end of ends) {
    const d = /** @type {Record<string, unknown>} */ (end.detail ?? {})
    totals.runs++
    if (end.ok === false) totals.failed++
    if (typeof d.skipped === 'string') totals.skipped++
    if (end.action === 'drop-partitions') {
      totals.rows_removed += count(d.rows)
      totals.partitions_dropped += count(d.dropped)
      totals.bytes_dropped += count(d.bytes)
    } else {
      totals.rows_removed += count(d.rows_deleted)
      totals.batches += count(d.batches)
    }
    const seconds = count(end.duration_s)
    totals.seconds = Math.round((totals.seconds + seconds) * 1000) / 1000
    totals.max_seconds = totals.max_seconds === null ? seconds : Math.max(totals.max_seconds, seconds)
  }
  return totals
}

/**
 * The fillfactor the run's last successful fillfactor action set, from its
 * statement; null when none ran.
 * @param {import('./read.js').LabEvent[]} events
 * @returns {number | null}
 */
export function fillfactorSet(events) {
  let value = null
  for (const event of events) {
    if (event.kind !== 'start' || event.action !== 'fillfactor') continue
    const end = events.find(
      e => e.kind === 'end' && e.action === 'fillfactor' && Date.parse(e.ts) >= Date.parse(event.ts)
    )
    const match = /fillfactor = (\d+)/.exec(String(event.detail?.sql ?? ''))
    if (match && end?.ok !== false) value = Number(match[1])
  }
  return value
}

/** @param {unknown} value */
function count(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}
