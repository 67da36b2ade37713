// The autovacuum forecast checked against the starts (lib/analysis/
// forecast-check.js), on samples made up with known forecasts and starts.
import t from 'tap'
import { LEAD_S, checkForecasts, loggedStarts, secondsOf } from '../../lib/analysis/forecast-check.js'

const T0 = Date.parse('2026-11-28T10:00:00Z') / 1000

/**
 * A run's samples, one a second for `seconds`: the forecast of each second
 * from forecastAt(s), the vacuum running from each start for 5 s.
 * @param {number} seconds
 * @param {(s: number) => { reason: string, next_s: number, crossing_s: number, duration_s?: number } | null} forecastAt
 * @param {{ at: number, mode: string }[]} starts   seconds into the run
 */
function samples(seconds, forecastAt, starts) {
  return Array.from({ length: seconds }, (_, s) => {
    const running = starts.find(v => s >= v.at && s < v.at + 5)
    return {
      t: new Date((T0 + s) * 1000).toISOString(),
      throughput: 100,
      pg: {
        autovacuum_forecast: forecastAt(s),
        vacuum: running ? { phase: 1, mode: running.mode, started_at: T0 + running.at } : null
      }
    }
  })
}

t.test('each start against the forecast held a minute before it', async t => {
  // forecast: a start at 200 s, then, after it, at 400 s; the server starts at 210 and 390
  const forecastAt = (/** @type {number} */ s) =>
    s < 210
      ? { reason: 'dead_rows', next_s: 200 - s, crossing_s: 190 - s }
      : { reason: 'dead_rows', next_s: 400 - s, crossing_s: 0 }
  const check = checkForecasts(
    samples(500, forecastAt, [
      { at: 210, mode: 'autovacuum' },
      { at: 390, mode: 'autovacuum' }
    ]),
    60
  )
  t.match(check, { starts: 2, checked: 2, within_naptime: 2, naptime_s: 60 })
  t.same(
    check.errors.map(e => [e.lead_s, e.error_s]),
    [
      [LEAD_S, 10],
      [LEAD_S, -10]
    ],
    '10 s late, then 10 s early, each against the forecast of a minute before'
  )
  t.equal(check.median_abs_error_s, 10)
})

t.test('a start sooner than a minute into the run: the earliest forecast held', async t => {
  const check = checkForecasts(
    samples(100, s => (s >= 5 ? { reason: 'inserts', next_s: 40 - s, crossing_s: 0 } : null), [
      { at: 30, mode: 'autovacuum' }
    ]),
    15
  )
  t.match(check.errors, [{ lead_s: 25, error_s: -10, reason: 'inserts' }])
  t.equal(check.within_naptime, 1, 'within 15 s')
})

t.test('a manual vacuum is not an autovacuum; a start with no forecast is counted, not checked', async t => {
  const check = checkForecasts(
    samples(100, () => null, [
      { at: 10, mode: 'manual' },
      { at: 50, mode: 'wraparound' }
    ]),
    null
  )
  t.same(check, {
    starts: 1,
    checked: 0,
    within_naptime: null,
    median_abs_error_s: null,
    naptime_s: null,
    durations_checked: 0,
    durations_within_30pct: null,
    errors: []
  })
})

t.test('each duration against the forecast one: forecast 4.5 s and 2 s', async t => {
  const forecastAt = (/** @type {number} */ s) =>
    s < 100
      ? { reason: 'dead_rows', next_s: 100 - s, crossing_s: 0, duration_s: 4.5 }
      : { reason: 'dead_rows', next_s: 200 - s, crossing_s: 0, duration_s: 2 }
  const check = checkForecasts(
    samples(300, forecastAt, [
      { at: 100, mode: 'autovacuum' },
      { at: 200, mode: 'autovacuum' },
      { at: 297, mode: 'autovacuum' }
    ]),
    60
  )
  // started at 100 s, last seen at work in the sample of 104 s: it ended within the second after, 4.5 s
  t.same(
    check.errors.map(e => [e.duration_s, e.forecast_duration_s]),
    [
      [4.5, 4.5],
      [4.5, 2],
      [null, 2]
    ],
    'the last one still ran when the run ended'
  )
  t.equal(check.durations_checked, 2)
  t.equal(check.durations_within_30pct, 1, 'within 30 % of 4.5, not of 2')
})

t.test("the server's naptime as current_setting shows it", async t => {
  t.equal(secondsOf('1min'), 60)
  t.equal(secondsOf('15s'), 15)
  t.equal(secondsOf('500ms'), 0.5)
  t.equal(secondsOf('30'), 30)
  t.equal(secondsOf('soon'), null)
})

/**
 * An autovacuum entry of the server log, as log_autovacuum_min_duration
 * writes it (the %m prefix, continuation lines after a tab).
 * @param {string} endedAt   the prefix's time
 * @param {string} relation
 * @param {number} elapsedS
 * @param {string} [kind]
 */
function logEntry(endedAt, relation, elapsedS, kind = 'automatic vacuum of table') {
  return [
    `${endedAt} UTC [4242] LOG:  ${kind} "${relation}": index scans: 1`,
    '\tpages: 0 removed, 120 remain, 120 scanned (100.00% of total)',
    '\ttuples: 500 removed, 10000 remain, 0 are dead but not yet removable',
    '\tbuffer usage: 300 hits, 0 misses, 10 dirtied',
    '\tWAL usage: 100 records, 0 full page images, 20000 bytes',
    `\tsystem usage: CPU: user: 0.01 s, system: 0.00 s, elapsed: ${elapsedS.toFixed(2)} s`
  ].join('\n')
}

t.test("the server log's starts and durations: its end less its elapsed time, to the millisecond", async t => {
  const log = [
    logEntry('2026-11-28 10:03:20.250', 'test.public.manta', 0.25),
    logEntry('2026-11-28 10:03:30.000', 'test.public.other', 1),
    logEntry(
      '2026-11-28 10:06:41.500',
      'test.public.manta',
      1.5,
      'automatic aggressive vacuum to prevent wraparound of table'
    ),
    '2026-11-28 10:07:00.000 UTC [1] LOG:  checkpoint complete'
  ].join('\n')
  const starts = loggedStarts(log, 'manta')
  t.same(
    starts.map(s => [s.startedS - T0, s.durationS, s.mode, s.source]),
    [
      [200, 0.25, 'autovacuum', 'server log'],
      [400, 1.5, 'wraparound', 'server log']
    ],
    "the table's two, not the other table's"
  )
  t.same(loggedStarts(log, 'public.manta').length, 2, 'schema.table names the same table')

  // the samples saw the first at work for 2 s (so 1.5 s long to them), and a third that the log does
  // not have, still running at the end
  const forecastAt = (/** @type {number} */ s) => ({
    reason: 'dead_rows',
    next_s: 200 - s,
    crossing_s: 0,
    duration_s: 0.3
  })
  const seen = samples(500, forecastAt, [
    { at: 200, mode: 'autovacuum' },
    { at: 497, mode: 'autovacuum' }
  ])
  const check = checkForecasts(seen, 60, starts)
  t.equal(check.starts, 3, 'the logged two and the one only the samples saw')
  t.same(
    check.errors.map(e => [e.source, e.duration_s]),
    [
      ['server log', 0.25],
      ['server log', 1.5],
      ['progress', null]
    ],
    "the logged vacuum's duration is the log's, not the samples'"
  )
  t.equal(check.durations_within_30pct, 1, '0.25 s within 30 % of the forecast 0.3 s')
})
