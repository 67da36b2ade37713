// When autovacuum takes a table, by the server's own rule (PostgreSQL's
// relation_needs_vacanalyze in src/backend/postmaster/autovacuum.c), and how
// long until it will at the rates the table's counters grow: the core of
// the autovacuum forecast. Pure: the collector reads the counters and the
// settings, this computes.
//
// The rule, for a table whose autovacuum is on:
//   reltuples           pg_class.reltuples, 0 when unknown (-1)
//   vacuum threshold    threshold + scale_factor × reltuples, at most
//                       autovacuum_vacuum_max_threshold (18; -1: no cap)
//   insert threshold    insert_threshold + insert_scale_factor × reltuples
//                       (13; from 18 × the unfrozen share of the pages,
//                       1 − relallfrozen / relpages); -1: off
//   analyze threshold   threshold + scale_factor × reltuples
// The table is vacuumed when its dead rows pass the vacuum threshold, its
// inserts since the last vacuum the insert threshold, or (even with
// autovacuum off) the age of its relfrozenxid autovacuum_freeze_max_age, or
// of its relminmxid the multixact one. Each of the table's reloptions takes
// the place of the setting of its name; the freeze ages can only be lowered.

/** Why autovacuum takes a table, in the rule's order: the forced ones first. */
export const REASONS = /** @type {const} */ (['wraparound', 'multixact', 'dead_rows', 'inserts'])

/** @typedef {typeof REASONS[number]} Reason */

/**
 * A table's autovacuum parameters: the server's settings, each replaced by
 * the table's reloption of that name where it has one.
 * @typedef {object} AutovacuumParams
 * @property {boolean} enabled              autovacuum on, and the table's autovacuum_enabled not off
 * @property {number} vacuumThreshold
 * @property {number} vacuumScaleFactor
 * @property {number} vacuumMaxThreshold    -1: no cap (always before 18)
 * @property {number} insertThreshold       -1: off (always before 13)
 * @property {number} insertScaleFactor
 * @property {number} analyzeThreshold
 * @property {number} analyzeScaleFactor
 */

/**
 * What the rule reads of a table.
 * @typedef {object} TableCounts
 * @property {number} reltuples             -1: never vacuumed or analysed
 * @property {number} relpages
 * @property {number | null} relallfrozen   18 on; null before
 * @property {number} deadTuples            n_dead_tup
 * @property {number | null} insertsSinceVacuum  n_ins_since_vacuum (13 on; null before)
 * @property {number} modsSinceAnalyze      n_mod_since_analyze
 * @property {number} xidsToForce           transactions until the age of relfrozenxid passes the freeze max age
 *   (negative: past it)
 * @property {number} mxidsToForce          the same for relminmxid and the multixact freeze max age
 */

/**
 * How fast a table's counters move, per second, over the forecast's window.
 * @typedef {object} CounterRates
 * @property {number} deadTuples
 * @property {number} inserts
 * @property {number} xids                  transactions the server consumes
 * @property {number} mxids
 */

/**
 * The table's thresholds.
 * @param {AutovacuumParams} params
 * @param {TableCounts} counts
 * @returns {{ vacuum: number, insert: number | null, analyze: number }}  insert: null when off
 */
export function thresholds(params, counts) {
  const reltuples = Math.max(0, counts.reltuples)
  let vacuum = params.vacuumThreshold + params.vacuumScaleFactor * reltuples
  if (params.vacuumMaxThreshold >= 0 && vacuum > params.vacuumMaxThreshold) vacuum = params.vacuumMaxThreshold
  const insert =
    params.insertThreshold < 0 || counts.insertsSinceVacuum === null
      ? null
      : params.insertThreshold + params.insertScaleFactor * reltuples * unfrozenShare(counts)
  return { vacuum, insert, analyze: params.analyzeThreshold + params.analyzeScaleFactor * reltuples }
}

/**
 * The share of the pages not all-frozen, which scales the insert threshold
 * from PostgreSQL 18 on (1 before, or when nothing is known frozen).
 * @param {TableCounts} counts
 */
function unfrozenShare({ relpages, relallfrozen }) {
  if (relallfrozen === null || relpages <= 0 || relallfrozen <= 0) return 1
  return 1 - Math.min(relallfrozen, relpages) / relpages
}

/**
 * Why autovacuum would take the table now, by the rule; null: it would not.
 * @param {AutovacuumParams} params
 * @param {TableCounts} counts
 * @returns {Reason | null}
 */
export function vacuumReason(params, counts) {
  if (counts.xidsToForce < 0) return 'wraparound'
  if (counts.mxidsToForce < 0) return 'multixact'
  if (!params.enabled) return null
  const limit = thresholds(params, counts)
  if (counts.deadTuples > limit.vacuum) return 'dead_rows'
  if (limit.insert !== null && /** @type {number} */ (counts.insertsSinceVacuum) > limit.insert) return 'inserts'
  return null
}

/**
 * Seconds until each reason would take the table, at the given rates:
 * negative when its counter passed the threshold already, that long ago at
 * its rate (0 when it does not grow), Infinity when it does not grow (or
 * the reason is off). The thresholds hold still: reltuples changes only
 * when the table is vacuumed or analysed.
 * @param {AutovacuumParams} params
 * @param {TableCounts} counts
 * @param {CounterRates} rates
 * @returns {Record<Reason, number>}
 */
export function secondsToReasons(params, counts, rates) {
  const limit = thresholds(params, counts)
  return {
    // a counter passes its threshold when it is above it: the first whole count past it
    wraparound: secondsToPass(-counts.xidsToForce, 0, rates.xids),
    multixact: secondsToPass(-counts.mxidsToForce, 0, rates.mxids),
    dead_rows: params.enabled ? secondsToPass(counts.deadTuples, limit.vacuum, rates.deadTuples) : Infinity,
    inserts:
      params.enabled && limit.insert !== null
        ? secondsToPass(/** @type {number} */ (counts.insertsSinceVacuum), limit.insert, rates.inserts)
        : Infinity
  }
}

/**
 * Seconds until value, growing at rate a second, is above limit; negative:
 * since it was.
 * @param {number} value
 * @param {number} limit
 * @param {number} rate
 */
function secondsToPass(value, limit, rate) {
  if (!(rate > 0)) return value > limit ? 0 : Infinity
  return (Math.floor(limit) + 1 - value) / rate
}

/**
 * The next reason autovacuum will take the table, and in how many seconds
 * its counter passes the threshold (negative: passed that long ago); null
 * when no counter moves toward one. The earliest crossing wins; a tie goes
 * to the rule's order (wraparound first).
 * @param {AutovacuumParams} params
 * @param {TableCounts} counts
 * @param {CounterRates} rates
 * @returns {{ reason: Reason, inS: number } | null}
 */
export function nextVacuum(params, counts, rates) {
  const seconds = secondsToReasons(params, counts, rates)
  /** @type {{ reason: Reason, inS: number } | null} */
  let next = null
  for (const reason of REASONS) {
    if (seconds[reason] < (next?.inS ?? Infinity)) next = { reason, inS: seconds[reason] }
  }
  return next
}

/**
 * The autovacuum launcher as the forecast knows it.
 * @typedef {object} Launcher
 * @property {number} periodS           autovacuum_naptime
 * @property {number | null} visitMs    a past visit of the launcher to the database (null: none seen)
 * @property {number | null} startedMs  when the server started (null: unknown)
 * @property {number} databases         the databases it visits in turn (at least 1)
 */

/**
 * When a worker starts on the table once it needs one: the launcher looks
 * at a database once every autovacuum_naptime, so the start comes at the
 * first visit after the crossing, and not before now. With a visit seen
 * before (a past autovacuum start in the database), the visits are that
 * one plus whole periods. Without one, a server that started less than two
 * naptimes ago has its launcher's first round still to come: it begins a
 * naptime after the start and reaches the databases one every
 * naptime / databases, in an order the forecast does not know, so the
 * table's database comes in the middle of the round's places still to
 * come. Otherwise the visits' phase is unknown: the middle of the period
 * after the crossing; for a crossing x seconds ago that no visit has
 * answered yet, the middle of what is left of it.
 * @param {number} crossingMs   when the counter passes (passed) the threshold, ms
 * @param {Launcher} launcher
 * @param {number} nowMs        the same clock's now
 * @returns {number}            the forecast start, ms
 */
export function startAfter(crossingMs, { periodS, visitMs, startedMs, databases }, nowMs) {
  const periodMs = periodS * 1000
  const from = Math.max(crossingMs, nowMs)
  if (visitMs !== null) return visitMs + Math.max(0, Math.ceil((from - visitMs) / periodMs)) * periodMs
  if (startedMs !== null && from < startedMs + 2 * periodMs) {
    // the round's places: start + naptime + k × naptime / databases, k = 1 … databases
    const firstPlaceMs = startedMs + periodMs + periodMs / Math.max(1, databases)
    return (Math.max(from, firstPlaceMs) + startedMs + 2 * periodMs) / 2
  }
  const waited = nowMs - crossingMs
  if (waited <= 0) return crossingMs + periodMs / 2
  return nowMs + (waited < periodMs ? (periodMs - waited) / 2 : periodMs / 2)
}
