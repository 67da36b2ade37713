import { esc, fmtSeconds, fmtTime } from './html.js'

// The autovacuum forecast of a run's table checked against what the server
// did (summary.json's `autovacuum_forecast`, lib/analysis/forecast-check.js):
// one row a start, the forecast held before it beside the real start and
// duration, the errors marked where they miss the targets (a start within
// one autovacuum_naptime, a duration within ±30 %).

const LEAD =
  'Each autovacuum of the table that started during the run, against the forecast the lab held a minute before it (or, early in the run, the earliest it had). "Forecast start": when that forecast said the vacuum would start; "error": the real start less it (positive: later). The starts and durations are the server log\'s where it is local, else the vacuum progress view\'s, to the sampling interval. Marked: a start more than one naptime off, a duration more than 30 % off.'

/**
 * @param {import('../results/read.js').RunData} run
 * @returns {string} HTML, empty when the run has no checked forecast
 */
export function forecastSection(run) {
  const check = run.summary?.autovacuum_forecast
  if (!check || !Array.isArray(check.errors) || !(check.starts > 0)) return ''
  const naptime = typeof check.naptime_s === 'number' ? check.naptime_s : null
  const rows = check.errors.map((/** @type {Record<string, any>} */ e) => row(e, naptime)).join('\n')
  return `<h2 id="autovacuum-forecast">Autovacuum forecast against the starts</h2>
<p class="lead">${esc(LEAD)}</p>
<p class="lead">${esc(headline(check))}</p>
<table class="data"><thead><tr><th>start</th><th>reason</th><th>made before</th><th>forecast start</th>
<th>error</th><th>took</th><th>forecast</th><th>from</th></tr></thead>
<tbody>
${rows}
</tbody></table>`
}

/**
 * @param {Record<string, any>} e   a ForecastError
 * @param {number | null} naptime
 */
function row(e, naptime) {
  const startMs = Date.parse(e.started_at)
  const forecastStart = Number.isFinite(startMs) ? new Date(startMs - e.error_s * 1000).toISOString() : null
  const startMissed = naptime !== null && Math.abs(e.error_s) > naptime
  const durationMissed =
    e.duration_s !== null &&
    e.forecast_duration_s !== null &&
    Math.abs(e.duration_s - e.forecast_duration_s) > 0.3 * e.forecast_duration_s
  const cell = (/** @type {string} */ text, /** @type {boolean} */ bad) =>
    `<td${bad ? ' class="bad"' : ''}>${text}</td>`
  return `<tr><td>${esc(fmtTime(e.started_at))}</td><td>${esc(e.mode === 'wraparound' && e.reason !== 'wraparound' ? `${e.reason} (ran to prevent wraparound)` : e.reason)}</td><td>${esc(fmtSeconds(e.lead_s))}</td><td>${esc(fmtTime(forecastStart))}</td>${cell(esc(fmtSeconds(e.error_s)), startMissed)}<td>${esc(fmtSeconds(e.duration_s))}</td>${cell(esc(fmtSeconds(e.forecast_duration_s)), durationMissed)}<td>${esc(e.source ?? 'progress')}</td></tr>`
}

/** @param {Record<string, any>} check   a ForecastCheck */
function headline(check) {
  const starts = `${check.starts} autovacuum start${check.starts === 1 ? '' : 's'} of the table`
  if (check.checked === 0) return `${starts}, none with a forecast before it.`
  const within =
    check.within_naptime === null ? '' : `, ${check.within_naptime} within one naptime (${check.naptime_s} s)`
  const durations =
    check.durations_checked > 0
      ? `; durations: ${check.durations_within_30pct} of ${check.durations_checked} within ±30 % of their forecast`
      : ''
  return `${starts}, ${check.checked} with a forecast before it${within}; median start error ${check.median_abs_error_s} s${durations}.`
}
