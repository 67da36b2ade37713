import { nextVacuum, startAfter } from './autovacuum-rule.js'
import { countsOf, paramsOf } from './autovacuum-sql.js'

// The live autovacuum forecast: at each poll, for each table, when
// autovacuum will next take it and why, from the server's rule
// (autovacuum-rule.js) and the rates its counters grew at over the last
// FORECAST_WINDOW_S seconds. A counter that went down (a vacuum reset the
// dead rows and inserts, froze the table's oldest xid) starts the table's
// window over: the rates are those since. The start is the launcher's
// first visit to the database after the crossing: its visits are the
// autovacuum starts seen in the database plus whole naptimes. While an
// autovacuum of the table is at work, the next has no forecast: its
// counters are reset only when it ends. The duration is the table's last
// autovacuum seen whole (from its start to its end, pg_stat_all_tables'
// last_autovacuum, or else to the first poll it was no longer at work),
// scaled by the larger of two ratios: the work the next one will find (the
// dead rows and the inserts since the last vacuum, at its start) against
// the last one's, and, when a tenth of that work or more is dead rows, the
// table's size with its indexes then (pg_total_relation_size, grown at its
// rate) against its size at the last one's start, to the power
// SIZE_EXPONENT. A vacuum reads the pages it must clean, and every page of
// each index at each index pass: a table whose updates touch every page
// costs more as it grows, whatever the dead rows.

/**
 * A vacuum that removes dead rows reads every page of each index at each
 * pass, and dirties (20 cost units each, against 1 for a page read) the
 * pages a checkpoint cleaned since the load last wrote them, which a
 * growing table has more of: its time grows faster than the table, as
 * the size ratio to this power (docs/autovacuum-forecast.md).
 */
export const SIZE_EXPONENT = 1.5
/** Below this share of dead rows in the work it will find, a vacuum reads the new pages alone: the work ratio. */
const DEAD_SHARE = 0.1

/** Seconds of counters the rates are measured over. */
export const FORECAST_WINDOW_S = 60
/** The fewest seconds a rate is measured over: below, no forecast. */
export const MIN_SPAN_S = 5

/**
 * One poll's counters of a table, as the window keeps them.
 * @typedef {object} Observed
 * @property {number} atS            Unix seconds
 * @property {number} deadTuples
 * @property {number} inserts        n_ins_since_vacuum (0 before 13)
 * @property {number} xidsToForce
 * @property {number} mxidsToForce
 * @property {number | null} totalBytes   the table with its indexes and TOAST (null: not read)
 */

/**
 * A table's forecast, as a row of the collector's autovacuum_forecast section.
 * @typedef {object} ForecastRow
 * @property {string} datname
 * @property {string} schemaname
 * @property {string} relname
 * @property {import('./autovacuum-rule.js').Reason} reason
 * @property {number} crossing_seconds   until its counter passes the threshold (negative: since it did)
 * @property {number} next_seconds       until the autovacuum is forecast to start
 * @property {number | null} duration_seconds  how long it will run (null: no autovacuum of the table seen whole yet)
 * @property {number} forecast_at        Unix seconds the forecast was made
 */

/**
 * An autovacuum of a table at work, as the progress view shows it.
 * @typedef {object} AtWork
 * @property {string} datname
 * @property {string} schemaname
 * @property {string} relname
 * @property {number} startedS   Unix seconds
 */

/**
 * What the forecast reads of the server besides the tables.
 * @typedef {object} ServerClock
 * @property {number} naptimeS          autovacuum_naptime
 * @property {number | null} startedS   when the server started, Unix seconds (null: unknown)
 * @property {number} databases         the databases the launcher visits in turn
 */

export class AutovacuumForecast {
  /** @param {{ windowS?: number }} [options] */
  constructor({ windowS = FORECAST_WINDOW_S } = {}) {
    this.windowS = windowS
    /** @type {Map<string, Observed[]>} each table's polls within the window */
    this.windows = new Map()
    /** @type {Map<string, number>} each database's latest autovacuum start seen, Unix seconds */
    this.visits = new Map()
    /** @type {Map<string, AtWork>} the autovacuums at work at the last poll, by table */
    this.atWork = new Map()
    /**
     * each table's last autovacuum seen whole
     * @type {Map<string, { durationS: number, work: number, totalBytes: number | null }>}
     */
    this.lastWhole = new Map()
  }

  /**
   * The autovacuums at work at this poll: each one's start is a visit of
   * the launcher; one gone since the last poll ended by now, at its
   * table's last autovacuum end when that is after its start.
   * @param {number} nowS
   * @param {AtWork[]} vacuums
   * @param {Map<string, number>} [lastEnds]   each table's last autovacuum end, Unix seconds, by key (keyOf)
   */
  noteAtWork(nowS, vacuums, lastEnds = new Map()) {
    /** @type {Map<string, AtWork>} */
    const now = new Map()
    for (const vacuum of vacuums) {
      now.set(keyOf(vacuum), vacuum)
      this.noteVisit(vacuum.datname, vacuum.startedS)
    }
    for (const [key, vacuum] of this.atWork) {
      const still = now.get(key)
      if (still && still.startedS === vacuum.startedS) continue
      // the work it found: the counters of the last poll before it began
      const before = (this.windows.get(key) ?? []).filter(o => o.atS <= vacuum.startedS).pop()
      const work = before ? before.deadTuples + before.inserts : 0
      const endS = lastEnds.get(key) ?? NaN
      const durationS = endS >= vacuum.startedS && endS <= nowS ? endS - vacuum.startedS : nowS - vacuum.startedS
      if (work > 0) this.lastWhole.set(key, { durationS, work, totalBytes: before?.totalBytes ?? null })
    }
    this.atWork = now
  }

  /**
   * An autovacuum worker seen at work in a database, started at startedS: a visit of the launcher.
   * @param {string} datname
   * @param {number} startedS  Unix seconds
   */
  noteVisit(datname, startedS) {
    if (startedS > (this.visits.get(datname) ?? -Infinity)) this.visits.set(datname, startedS)
  }

  /**
   * One poll: the tables' rule inputs and distances to the forced vacuums;
   * returns each table's forecast (none for a table whose counters do not
   * move toward a threshold, or that has been watched under MIN_SPAN_S).
   * @param {number} nowS                  Unix seconds
   * @param {Record<string, any>[]} inputs  rows of autovacuum-sql.js's query
   * @param {Map<string, { xidsToForce: number, mxidsToForce: number }>} forced  by table key (keyOf)
   * @param {ServerClock} server   the naptime, and when the server started
   * @returns {ForecastRow[]}
   */
  observe(nowS, inputs, forced, server) {
    /** @type {ForecastRow[]} */
    const rows = []
    const seen = new Set()
    for (const input of inputs) {
      const key = keyOf(/** @type {{ datname: string, schemaname: string, relname: string }} */ (input))
      seen.add(key)
      const working = this.atWork.has(key)
      const counts = countsOf(input, forced.get(key) ?? { xidsToForce: Infinity, mxidsToForce: Infinity })
      const rates = this.ratesAfter(key, {
        atS: nowS,
        deadTuples: counts.deadTuples,
        inserts: counts.insertsSinceVacuum ?? 0,
        xidsToForce: counts.xidsToForce,
        mxidsToForce: counts.mxidsToForce,
        totalBytes: typeof input.total_bytes === 'number' ? input.total_bytes : null
      })
      if (rates === null || working) continue
      const next = nextVacuum(paramsOf(input), counts, rates)
      if (next === null) continue
      const visit = this.visits.get(input.datname) ?? null
      const launcher = {
        periodS: server.naptimeS,
        visitMs: visit === null ? null : visit * 1000,
        startedMs: server.startedS === null ? null : server.startedS * 1000,
        databases: server.databases
      }
      const startS = startAfter((nowS + next.inS) * 1000, launcher, nowS * 1000) / 1000
      const untilS = Math.max(0, startS - nowS)
      rows.push({
        datname: input.datname,
        schemaname: input.schemaname,
        relname: input.relname,
        reason: next.reason,
        crossing_seconds: next.inS,
        next_seconds: untilS,
        duration_seconds: this.durationOf(key, counts, rates, untilS),
        forecast_at: nowS
      })
    }
    for (const key of this.windows.keys()) if (!seen.has(key)) this.windows.delete(key)
    return rows
  }

  /**
   * How long the table's next autovacuum will run, starting in untilS: the
   * last one's duration scaled by the larger of the work ratio and the size
   * ratio; null before one was seen whole.
   * @param {string} key
   * @param {import('./autovacuum-rule.js').TableCounts} counts
   * @param {import('./autovacuum-rule.js').CounterRates} rates
   * @param {number} untilS
   */
  durationOf(key, counts, rates, untilS) {
    const last = this.lastWhole.get(key)
    if (!last) return null
    // the dead rows and inserts it will find, at the rates until it starts
    const dead = counts.deadTuples + rates.deadTuples * untilS
    const work = dead + (counts.insertsSinceVacuum ?? 0) + rates.inserts * untilS
    const sizeRatio = work > 0 && dead / work >= DEAD_SHARE ? this.sizeRatio(key, last.totalBytes, untilS) : 0
    return last.durationS * Math.max(work / last.work, sizeRatio ** SIZE_EXPONENT)
  }

  /**
   * The table's size with its indexes untilS from now, at its rate over the
   * window, against its size at the last vacuum's start; 0 when unknown.
   * @param {string} key
   * @param {number | null} lastBytes
   * @param {number} untilS
   */
  sizeRatio(key, lastBytes, untilS) {
    const window = this.windows.get(key) ?? []
    const first = window[0]
    const now = window[window.length - 1]
    const bytesNow = now?.totalBytes ?? null
    const bytesFirst = first?.totalBytes ?? null
    if (bytesNow === null || bytesFirst === null || !lastBytes || now.atS <= first.atS) return 0
    const growth = Math.max(0, (bytesNow - bytesFirst) / (now.atS - first.atS))
    return (bytesNow + growth * untilS) / lastBytes
  }

  /**
   * Adds a poll to the table's window and returns the rates over it; null
   * while the window spans less than MIN_SPAN_S.
   * @param {string} key
   * @param {Observed} observed
   * @returns {import('./autovacuum-rule.js').CounterRates | null}
   */
  ratesAfter(key, observed) {
    let window = this.windows.get(key) ?? []
    const last = window[window.length - 1]
    // a vacuum reset the counters, or froze the table: the rates start over
    if (
      last &&
      (observed.deadTuples < last.deadTuples ||
        observed.inserts < last.inserts ||
        observed.xidsToForce > last.xidsToForce ||
        observed.mxidsToForce > last.mxidsToForce)
    )
      window = []
    window.push(observed)
    while (window.length > 2 && observed.atS - window[1].atS >= this.windowS) window.shift()
    this.windows.set(key, window)
    const first = window[0]
    const spanS = observed.atS - first.atS
    if (spanS < MIN_SPAN_S) return null
    return {
      deadTuples: (observed.deadTuples - first.deadTuples) / spanS,
      inserts: (observed.inserts - first.inserts) / spanS,
      xids: (first.xidsToForce - observed.xidsToForce) / spanS,
      mxids: (first.mxidsToForce - observed.mxidsToForce) / spanS
    }
  }
}

/**
 * A table's key across the collector's sections.
 * @param {{ datname: string, schemaname: string, relname: string }} row
 */
export function keyOf({ datname, schemaname, relname }) {
  return `${datname}\u0000${schemaname}\u0000${relname}`
}

/**
 * The server's clock as the forecast reads it, from the collector's
 * settings row (rows.js parseSettings): PostgreSQL's default naptime, 60 s,
 * until the settings are read.
 * @param {Record<string, unknown> | undefined} settings
 * @returns {ServerClock}
 */
export function serverClock(settings) {
  const started = settings?.server_started_at
  const databases = settings?.connectable_databases
  return {
    naptimeS: Number(settings?.autovacuum_naptime_seconds ?? 60),
    startedS: typeof started === 'number' ? started : null,
    databases: typeof databases === 'number' && databases > 0 ? databases : 1
  }
}
