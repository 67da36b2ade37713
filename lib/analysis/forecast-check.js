// The autovacuum forecast checked against what the server then did: each
// autovacuum of the run's table that started, matched to the forecast the
// samples held LEAD_S seconds before it (or, when the run was younger, the
// earliest one after the table's previous vacuum), and the error of its
// start and of its duration. The starts and durations are the server log's
// where it is local (log_autovacuum_min_duration: each entry's end and
// elapsed time, to the millisecond), and the samples' vacuum progress
// otherwise or for a vacuum the log does not have (still running at the
// end, or shorter than the setting): to the sampling interval. What a
// recorded run's summary says of its forecasts (summary.json
// autovacuum_forecast; docs/autovacuum-forecast.md).
import path from 'node:path'
import { round } from '../helpers/numbers.js'
import { readNdjson } from '../recorder/ndjson.js'
import { readLogFrom } from '../recorder/vacuums.js'
import { autovacuumsInLog, isTable } from '../pgstats/vacuum-report.js'
import { medianOf } from './series-noise.js'

/** How long before a start the forecast it is checked against was made. */
export const LEAD_S = 60

/**
 * @typedef {object} ForecastError
 * @property {string} started_at     ISO time the worker began on the table
 * @property {string} reason         the forecast's
 * @property {string} mode           autovacuum or wraparound, as the server ran it
 * @property {number} lead_s         how long before the start the forecast was made
 * @property {number} error_s        the start less the forecast start: positive, later than forecast
 * @property {number | null} duration_s           how long it ran (null: still running at the end of the run)
 * @property {number | null} forecast_duration_s  how long the forecast said (null: it had no duration yet)
 * @property {'server log' | 'progress'} source    where the start and duration were read
 */

/**
 * An autovacuum of the table as the server ran it.
 * @typedef {object} Start
 * @property {number} startedS             epoch seconds
 * @property {number | null} durationS     null: still running at the end of the run
 * @property {string} mode                 autovacuum or wraparound
 * @property {'server log' | 'progress'} source
 */

/**
 * @typedef {object} ForecastCheck
 * @property {number} starts          autovacuums of the table that started during the run
 * @property {number} checked         of which a forecast was held before them
 * @property {number | null} within_naptime   of those, how many started within one autovacuum_naptime of it
 * @property {number | null} median_abs_error_s
 * @property {number | null} naptime_s
 * @property {number} durations_checked      starts whose duration and forecast duration are both known
 * @property {number | null} durations_within_30pct  of those, how many ran within ±30 % of the forecast
 * @property {ForecastError[]} errors
 */

/**
 * @param {import('../recorder/records.js').Sample[]} samples
 * @param {number | null} naptimeS   the server's autovacuum_naptime (run.json settings)
 * @param {Start[]} [logged]          the table's autovacuums in the server log (loggedStarts)
 * @returns {ForecastCheck}
 */
export function checkForecasts(samples, naptimeS, logged = []) {
  const starts = mergeStarts(logged, progressStarts(samples))
  /** @type {ForecastError[]} */
  const errors = []
  let previousStartS = -Infinity
  for (const start of starts) {
    const forecast = forecastBefore(samples, start.startedS, previousStartS)
    previousStartS = start.startedS
    if (!forecast) continue
    errors.push({
      started_at: new Date(start.startedS * 1000).toISOString(),
      reason: forecast.reason,
      mode: start.mode,
      lead_s: round(start.startedS - forecast.atS, 1),
      error_s: round(start.startedS - (forecast.atS + forecast.nextS), 1),
      duration_s: start.durationS === null ? null : round(start.durationS, 2),
      forecast_duration_s: forecast.durationS === null ? null : round(forecast.durationS, 2),
      source: start.source
    })
  }
  const durations = errors.filter(e => e.duration_s !== null && e.forecast_duration_s !== null)
  const absolute = errors.map(e => Math.abs(e.error_s))
  return {
    starts: starts.length,
    checked: errors.length,
    within_naptime: naptimeS === null || errors.length === 0 ? null : absolute.filter(e => e <= naptimeS).length,
    median_abs_error_s: absolute.length === 0 ? null : round(medianOf(Float64Array.from(absolute)), 1),
    naptime_s: naptimeS,
    durations_checked: durations.length,
    durations_within_30pct:
      durations.length === 0
        ? null
        : durations.filter(
            e =>
              Math.abs(/** @type {number} */ (e.duration_s) - /** @type {number} */ (e.forecast_duration_s)) <=
              0.3 * /** @type {number} */ (e.forecast_duration_s)
          ).length,
    errors
  }
}

/** A start in the progress view this close to a logged one is that vacuum. */
const SAME_START_S = 2

/**
 * The logged starts, and those the samples saw that the log does not have,
 * in time order.
 * @param {Start[]} logged
 * @param {Start[]} progress
 */
function mergeStarts(logged, progress) {
  const unlogged = progress.filter(p => logged.every(l => Math.abs(l.startedS - p.startedS) > SAME_START_S))
  return [...logged, ...unlogged].sort((a, b) => a.startedS - b.startedS)
}

/**
 * The autovacuums of the table the samples saw at work (pg_stat_progress_vacuum).
 * @param {import('../recorder/records.js').Sample[]} samples
 * @returns {Start[]}
 */
function progressStarts(samples) {
  /** @type {Start[]} */
  const starts = []
  /** @type {Set<number>} */
  const seen = new Set()
  for (const sample of samples) {
    const vacuum = sample.pg?.vacuum
    const startedS = vacuum?.started_at
    if (!vacuum || typeof startedS !== 'number' || seen.has(startedS)) continue
    if (vacuum.mode !== 'autovacuum' && vacuum.mode !== 'wraparound') continue
    seen.add(startedS)
    starts.push({ startedS, durationS: durationOf(samples, startedS), mode: vacuum.mode, source: 'progress' })
  }
  return starts
}

/**
 * The table's autovacuums in the part of the server log written during the
 * run: each entry's end less its elapsed time.
 * @param {string} text
 * @param {string} table   table or schema.table
 * @returns {Start[]}
 */
export function loggedStarts(text, table) {
  return autovacuumsInLog(text).flatMap(({ ts, report }) => {
    const endS = ts === null ? NaN : Date.parse(ts) / 1000
    const elapsed = report.elapsed_s
    if (!Number.isFinite(endS) || elapsed === null || !isTable(report.relation, table)) {
      return []
    }
    return [
      { startedS: endS - elapsed, durationS: elapsed, mode: report.mode, source: /** @type {const} */ ('server log') }
    ]
  })
}

/**
 * How long the vacuum that started at startedS ran: to the middle of the
 * second after the last sample that saw it at work; null when it still was
 * at the run's last sample.
 * @param {import('../recorder/records.js').Sample[]} samples
 * @param {number} startedS
 */
function durationOf(samples, startedS) {
  let lastS = null
  for (const sample of samples) if (sample.pg?.vacuum?.started_at === startedS) lastS = Date.parse(sample.t) / 1000
  const final = samples[samples.length - 1]
  if (lastS === null || !final || Date.parse(final.t) / 1000 <= lastS) return null
  return lastS + 0.5 - startedS
}

/** @typedef {{ atS: number, nextS: number, reason: string, durationS: number | null }} Held */

/**
 * The forecast held LEAD_S before startS (the latest made by then), or the
 * earliest made after the previous start when none was that early.
 * @param {import('../recorder/records.js').Sample[]} samples
 * @param {number} startS
 * @param {number} previousStartS
 * @returns {Held | null}
 */
function forecastBefore(samples, startS, previousStartS) {
  /** @type {Held | null} */
  let early = null
  /** @type {Held | null} */
  let first = null
  for (const sample of samples) {
    if (Date.parse(sample.t) / 1000 >= startS + 1) break
    const forecast = sample.pg?.autovacuum_forecast
    // the forecast's own time: the poll's, up to a second before the sample's
    const atS = forecast?.at ?? Date.parse(sample.t) / 1000
    if (!forecast || atS <= previousStartS || atS >= startS) continue
    const held = { atS, nextS: forecast.next_s, reason: forecast.reason, durationS: forecast.duration_s ?? null }
    first ??= held
    if (atS <= startS - LEAD_S) early = held
  }
  return early ?? first
}

/**
 * The check of a recorded run, from its samples and, when the server's log
 * is local, the autovacuums it logged.
 * @param {string} recordDir
 * @param {string | null} naptime   autovacuum_naptime as the server shows it (run.json settings: 1min, 15s)
 * @param {{ logMark: { file: string, offset: number } | null, table: string | null }} log
 * @returns {Promise<ForecastCheck>}
 */
export async function recordedForecastCheck(recordDir, naptime, { logMark, table }) {
  const samples = /** @type {import('../recorder/records.js').Sample[]} */ (
    await readNdjson(path.join(recordDir, 'samples.ndjson'))
  )
  const logged = logMark && table ? loggedStarts(await readLogFrom(logMark), table) : []
  return checkForecasts(samples, naptime === null ? null : secondsOf(naptime), logged)
}

const UNITS = /** @type {Record<string, number>} */ ({ ms: 0.001, s: 1, min: 60, h: 3600, d: 86400, '': 1 })

/**
 * A time setting as current_setting shows it (1min, 15s, 500ms; a bare number is seconds), in seconds.
 * @param {string} text
 * @returns {number | null}
 */
export function secondsOf(text) {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|min|h|d|)$/.exec(text.trim())
  return match ? Number(match[1]) * UNITS[match[2]] : null
}
