import { appendFile } from 'node:fs/promises'
import path from 'node:path'
import { autovacuumsInLog, isTable, logTime } from '../pgstats/vacuum-report.js'
import { readLogFrom } from './vacuums.js'
import { readNdjson } from './ndjson.js'

// A run's anti-wraparound autovacuums of the watched table and the
// failsafes the server tripped, from its log (log_autovacuum_min_duration
// = 0 logs every autovacuum, with its elapsed time; the failsafe is a
// WARNING of its own, PostgreSQL 14+), and what each vacuum cost the load:
// the samples' throughput and p99 while it ran against the samples outside
// every one of them, and against the quiet seconds (the load alone: no
// vacuum of the table and no age-xids burst). For summary.json's
// `wraparound`; each failsafe is also appended to the run's events as a point.

const PREFIX_TIME = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)(?: ([A-Z]{2,5}|[+-]\d\d(?::?\d\d)?))?/
const FAILSAFE =
  /WARNING:\s+bypassing nonessential maintenance of table "([^"]+)" as a failsafe after (\d+) index scans/

/**
 * @typedef {object} Failsafe
 * @property {string | null} ts
 * @property {string} relation      database.schema.table, as the server names it
 * @property {number} index_scans   index scans done before it tripped
 * @property {boolean} watched      of the run's table
 */

/**
 * @typedef {object} WindowFigures
 * @property {number} samples
 * @property {number | null} throughput     mean of per-second requests
 * @property {number | null} p99_us         mean of per-second all-type p99
 * @property {number | null} p99_max_us
 */

/**
 * @typedef {object} WraparoundVacuum
 * @property {'wraparound'} vacuum_mode   the server logged it "to prevent wraparound"
 * @property {string} start
 * @property {string} end
 * @property {number} duration_s
 * @property {number} index_scans
 * @property {boolean} failsafe
 * @property {WindowFigures} during
 * @property {number | null} throughput_ratio   during / quiet (the load alone; outside when too few)
 * @property {number | null} p99_ratio          during / quiet
 * @property {number | null} throughput_ratio_vs_outside
 * @property {number | null} p99_ratio_vs_outside
 */

/**
 * Anti-wraparound autovacuums (with their window) and failsafes in a log.
 * @param {string} text
 */
export function wraparoundInLog(text) {
  const vacuums = autovacuumsInLog(text).flatMap(({ ts, report }) =>
    report.mode === 'wraparound' && ts !== null && report.elapsed_s !== null
      ? [{ relation: report.relation, end: ts, duration_s: report.elapsed_s, index_scans: report.index_scans ?? 0 }]
      : []
  )
  /** @type {Failsafe[]} */
  const failsafes = []
  for (const line of text.split('\n')) {
    const failsafe = FAILSAFE.exec(line)
    if (!failsafe) continue
    const time = PREFIX_TIME.exec(line)
    const ts = time ? logTime(time[1], time[2]) : null
    failsafes.push({ ts, relation: failsafe[1], index_scans: Number(failsafe[2]), watched: false })
  }
  return { vacuums, failsafes }
}

/**
 * The wraparound record of a run, or null when it had neither an
 * anti-wraparound autovacuum nor a failsafe (or no local log).
 * @param {string} recordDir
 * @param {{ file: string, offset: number } | null} logMark
 * @param {string | null} table   the watched table
 */
export async function recordWraparound(recordDir, logMark, table) {
  if (!logMark || !table) return null
  const found = wraparoundInLog(await readLogFrom(logMark))
  const mine = found.vacuums.filter(v => isTable(v.relation, table))
  for (const f of found.failsafes) f.watched = isTable(f.relation, table)
  if (mine.length === 0 && found.failsafes.length === 0) return null
  const samples = await readSamples(path.join(recordDir, 'samples.ndjson'))
  const windows = mine.map(v => ({ v, endMs: Date.parse(v.end), startMs: Date.parse(v.end) - v.duration_s * 1000 }))
  // a second overlaps a vacuum when any of it falls within the vacuum
  const overlaps = (/** @type {Sample} */ s, /** @type {{ startMs: number, endMs: number }} */ w) =>
    s.endMs > w.startMs && s.endMs - 1000 < w.endMs
  const outside = figures(samples.filter(s => !windows.some(w => overlaps(s, w))))
  // the load alone: neither an anti-wraparound vacuum nor age-xids (whose
  // bursts take CPU from the load too) ran in those seconds
  const bursts = await actionWindows(path.join(recordDir, 'events.ndjson'), 'age-xids')
  const quiet = figures(samples.filter(s => !windows.some(w => overlaps(s, w)) && !bursts.some(w => overlaps(s, w))))
  // against the quiet seconds when there are enough of them
  const baseline = quiet.samples >= 5 ? quiet : outside
  // the failsafe's WARNING comes while its vacuum runs (logged before the
  // vacuum's own entry): each goes to the one vacuum nearest it, within the
  // second the log's times are rounded to, not to every vacuum that near
  // (two short vacuums can end and start within a second)
  const trippedBy = new Set(
    found.failsafes
      .filter(f => f.watched && f.ts !== null)
      .map(f => {
        const at = Date.parse(/** @type {string} */ (f.ts))
        const distances = windows.map(w => Math.max(0, w.startMs - at, at - w.endMs))
        const nearest = distances.indexOf(Math.min(...distances))
        return distances[nearest] <= 1000 ? nearest : -1
      })
  )
  /** @type {WraparoundVacuum[]} */
  const vacuums = windows.map(({ v, startMs, endMs }, index) => {
    const during = figures(samples.filter(s => overlaps(s, { startMs, endMs })))
    const failsafe = trippedBy.has(index)
    return {
      vacuum_mode: 'wraparound',
      start: new Date(startMs).toISOString(),
      end: v.end,
      duration_s: v.duration_s,
      index_scans: v.index_scans,
      failsafe,
      during,
      throughput_ratio: ratio(during.throughput, baseline.throughput),
      p99_ratio: ratio(during.p99_us, baseline.p99_us),
      throughput_ratio_vs_outside: ratio(during.throughput, outside.throughput),
      p99_ratio_vs_outside: ratio(during.p99_us, outside.p99_us)
    }
  })
  const watched = found.failsafes.filter(f => f.watched)
  const others = found.failsafes.filter(f => !f.watched)
  const lines = watched
    .filter(f => f.ts)
    .map(
      f =>
        JSON.stringify({
          ts: f.ts,
          kind: 'point',
          action: 'failsafe',
          table,
          detail: { relation: f.relation, index_scans: f.index_scans }
        }) + '\n'
    )
  if (lines.length) await appendFile(path.join(recordDir, 'events.ndjson'), lines.join(''))
  return {
    table,
    source: 'the server log: autovacuum entries (elapsed time) and the failsafe WARNING',
    anti_wraparound_vacuums: vacuums.length,
    failsafes: watched,
    // other tables' (catalogs of every database age too): counted, by database
    other_failsafes: { count: others.length, by_database: countBy(others.map(f => f.relation.split('.')[0])) },
    outside,
    quiet,
    ratios_against:
      baseline === quiet
        ? 'quiet: seconds with neither an anti-wraparound vacuum of the table nor age-xids running'
        : 'outside: seconds with no anti-wraparound vacuum of the table (fewer than 5 quiet ones)',
    vacuums
  }
}

/** @typedef {{ endMs: number, throughput: number, p99: number | null }} Sample */

/**
 * The windows (start to end event) of an action in a run's events; one
 * still running at the end lasts to the end.
 * @param {string} file
 * @param {string} action
 * @returns {Promise<{ startMs: number, endMs: number }[]>}
 */
async function actionWindows(file, action) {
  /** @type {{ startMs: number, endMs: number }[]} */
  const windows = []
  /** @type {number[]} */
  const open = []
  for (const e of await readNdjson(file)) {
    if (e?.action !== action) continue
    if (e.kind === 'start') open.push(Date.parse(e.ts))
    else if (e.kind === 'end' && open.length)
      windows.push({ startMs: /** @type {number} */ (open.shift()), endMs: Date.parse(e.ts) })
  }
  for (const startMs of open) windows.push({ startMs, endMs: Infinity })
  return windows
}

/**
 * Each second's throughput and all-type p99 (the done-weighted mean of the
 * per-type p99s, as the report takes it); the first second is left out.
 * @param {string} file
 * @returns {Promise<Sample[]>}
 */
async function readSamples(file) {
  /** @type {Sample[]} */
  const out = []
  for (const s of await readNdjson(file)) {
    if (!s?.t || s.paused) continue
    let done = 0
    let weighted = 0
    for (const r of Object.values(s.requests ?? {})) {
      if (r.p99_us === null || !(r.done > 0)) continue
      done += r.done
      weighted += r.done * r.p99_us
    }
    out.push({ endMs: Date.parse(s.t), throughput: Number(s.throughput) || 0, p99: done > 0 ? weighted / done : null })
  }
  return out.slice(1)
}

/**
 * @param {Sample[]} samples
 * @returns {WindowFigures}
 */
function figures(samples) {
  const p99s = /** @type {number[]} */ (samples.map(s => s.p99).filter(p => p !== null))
  return {
    samples: samples.length,
    throughput: samples.length ? Math.round(samples.reduce((n, s) => n + s.throughput, 0) / samples.length) : null,
    p99_us: p99s.length ? Math.round(p99s.reduce((n, p) => n + p, 0) / p99s.length) : null,
    p99_max_us: p99s.length ? Math.round(Math.max(...p99s)) : null
  }
}

/**
 * @param {number | null} a
 * @param {number | null} b
 */
function ratio(a, b) {
  return a === null || b === null || b === 0 ? null : Math.round((a / b) * 100) / 100
}

/** @param {string[]} names */
function countBy(names) {
  /** @type {Record<string, number>} */
  const counts = {}
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1
  return counts
}
