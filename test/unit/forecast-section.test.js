// The report's section of the autovacuum forecast against the starts
// (lib/report/forecast-section.js), from a summary with known errors.
import t from 'tap'
import { forecastSection } from '../../lib/report/forecast-section.js'

/** @param {Record<string, any> | undefined} check */
const run = check => /** @type {any} */ ({ summary: check === undefined ? {} : { autovacuum_forecast: check } })

const CHECK = {
  starts: 3,
  checked: 2,
  within_naptime: 1,
  median_abs_error_s: 40.5,
  naptime_s: 60,
  durations_checked: 2,
  durations_within_30pct: 1,
  errors: [
    {
      started_at: '2026-11-28T10:01:00.000Z',
      reason: 'dead_rows',
      mode: 'autovacuum',
      lead_s: 60,
      error_s: 0.5,
      duration_s: 2.18,
      forecast_duration_s: 2,
      source: 'server log'
    },
    {
      started_at: '2026-11-28T10:03:00.000Z',
      reason: 'dead_rows',
      mode: 'wraparound',
      lead_s: 61.2,
      error_s: -80.5,
      duration_s: 4,
      forecast_duration_s: 2,
      source: 'progress'
    }
  ]
}

t.test('a row a checked start: the forecast start is the start less the error, misses marked', async t => {
  const html = forecastSection(run(CHECK))
  t.match(html, '<h2 id="autovacuum-forecast">', 'its heading')
  t.match(html, '3 autovacuum starts of the table, 2 with a forecast before it, 1 within one naptime (60 s)')
  t.match(html, 'durations: 1 of 2 within ±30 % of their forecast')
  const rows = html.split('<tbody>')[1].split('</tbody>')[0].trim().split('\n')
  t.equal(rows.length, 2, 'one row a checked start')
  t.match(rows[0], '2026-11-28 10:00:59 UTC', 'forecast 0.5 s before the start')
  t.notMatch(rows[0], 'class="bad"', 'within the naptime and 9 % off: nothing marked')
  t.match(rows[0], 'server log')
  t.match(rows[1], '2026-11-28 10:04:20 UTC', 'forecast 80.5 s after the start')
  t.match(
    rows[1],
    'dead_rows (ran to prevent wraparound)',
    'forecast for dead rows, run by the server against wraparound'
  )
  t.equal(rows[1].match(/class="bad"/g)?.length, 2, 'more than a naptime off, and twice the forecast duration')
})

t.test('nothing to say: no section', async t => {
  t.equal(forecastSection(run(undefined)), '', 'no check')
  t.equal(forecastSection(run({ ...CHECK, starts: 0, checked: 0, errors: [] })), '', 'no start')
  t.match(forecastSection(run({ ...CHECK, checked: 0, errors: [] })), 'none with a forecast before it')
})
