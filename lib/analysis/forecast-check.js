// The autovacuum forecast checked against what the server then did: each
// autovacuum of the run's table that started, matched to the forecast the
// samples held LEAD_S seconds before it (or, when the run was younger, the
// earliest one after the table's previous vacuum), and the error of the
// start. What a recorded run's summary says of its forecasts
// (summary.json autovacuum_forecast; docs/autovacuum-forecast.md).
import path from 'node:path'
import { round } from '../helpers/numbers.js'
import { readNdjson } from '../recorder/ndjson.js'
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
 * @returns {ForecastCheck}
 */
export function checkForecasts(samples, naptimeS) {
  /** @type {ForecastError[]} */
  const errors = []
  let starts = 0
  let previousStartS = -Infinity
  /** @type {Set<number>} */
  const seen = new Set()
  for (const sample of samples) {
    const vacuum = sample.pg?.vacuum
    const startedS = vacuum?.started_at
    if (!vacuum || typeof startedS !== 'number' || seen.has(startedS)) continue
    if (vacuum.mode !== 'autovacuum' && vacuum.mode !== 'wraparound') continue
    seen.add(startedS)
    starts++
    const forecast = forecastBefore(samples, startedS, previousStartS)
    previousStartS = startedS
    if (!forecast) continue
    const durationS = durationOf(samples, startedS)
    errors.push({
      started_at: new Date(startedS * 1000).toISOString(),
      reason: forecast.reason,
      mode: vacuum.mode,
      lead_s: round(startedS - forecast.atS, 1),
      error_s: round(startedS - (forecast.atS + forecast.nextS), 1),
      duration_s: durationS === null ? null : round(durationS, 1),
      forecast_duration_s: forecast.durationS === null ? null : round(forecast.durationS, 1)
    })
  }
  const durations = errors.filter(e => e.duration_s !== null && e.forecast_duration_s !== null)
  const absolute = errors.map(e => Math.abs(e.error_s))
  return {
    starts,
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
 * The check of a recorded run, from its samples.
 * @param {string} recordDir
 * @param {string | null} naptime   autovacuum_naptime as the server shows it (run.json settings: 1min, 15s)
 * @returns {Promise<ForecastCheck>}
 */
export async function recordedForecastCheck(recordDir, naptime) {
  const samples = /** @type {import('../recorder/records.js').Sample[]} */ (
    await readNdjson(path.join(recordDir, 'samples.ndjson'))
  )
  return checkForecasts(samples, naptime === null ? null : secondsOf(naptime))
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
