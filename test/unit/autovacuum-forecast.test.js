// The live autovacuum forecast (lib/pgstats/autovacuum-forecast.js) on
// counters made up to known rates: the crossing, the start at the
// launcher's next visit, and the window starting over after a vacuum.
import t from 'tap'
import {
  AutovacuumForecast,
  MIN_SPAN_S,
  SIZE_EXPONENT,
  keyOf,
  serverClock
} from '../../lib/pgstats/autovacuum-forecast.js'

/** A poll's row of the inputs' query for table t, on 16's defaults, 100,000 rows. */
const input = (/** @type {number} */ dead, /** @type {number} */ inserts) => ({
  datname: 'db',
  schemaname: 'public',
  relname: 't',
  reltuples: 100_000,
  relpages: 1000,
  relallfrozen: null,
  n_dead_tup: dead,
  n_ins_since_vacuum: inserts,
  n_mod_since_analyze: 0,
  enabled: true,
  vacuum_threshold: 50,
  vacuum_scale_factor: 0.2,
  vacuum_max_threshold: -1,
  vacuum_insert_threshold: 1000,
  vacuum_insert_scale_factor: 0.2,
  analyze_threshold: 50,
  analyze_scale_factor: 0.1
})
const KEY = keyOf({ datname: 'db', schemaname: 'public', relname: 't' })
/** A 60 s naptime on a server whose start is unknown. */
const CLOCK = { naptimeS: 60, startedS: null, databases: 1 }
/** @param {number} xidsToForce */
const forced = xidsToForce => new Map([[KEY, { xidsToForce, mxidsToForce: 1e9 }]])

t.test('dead rows at 100 a second: the crossing, and the start half a naptime after', async t => {
  const forecast = new AutovacuumForecast()
  /** @type {import('../../lib/pgstats/autovacuum-forecast.js').ForecastRow[]} */
  let rows = []
  for (let s = 0; s <= 10; s++) rows = forecast.observe(1000 + s, [input(100 * s, 10 * s)], forced(1e8), CLOCK)
  t.equal(rows.length, 1)
  t.match(rows[0], { relname: 't', reason: 'dead_rows', forecast_at: 1010 })
  t.equal(rows[0].crossing_seconds, (20_051 - 1000) / 100, 'to the first row past 50 + 0.2 × 100,000')
  t.equal(rows[0].next_seconds, rows[0].crossing_seconds + 30, 'no visit seen: half of a 60 s naptime after')
  forecast.noteVisit('db', 1005)
  const aligned = forecast.observe(1011, [input(1100, 110)], forced(1e8), CLOCK)[0]
  // crossing at 1011 + 189.51 = 1200.51; visits at 1005 + k × 60: 1245
  t.equal(aligned.next_seconds, 1245 - 1011, "at the launcher's first visit after the crossing")
})

t.test('no forecast before the window spans MIN_SPAN_S, nor when nothing moves', async t => {
  const forecast = new AutovacuumForecast()
  for (let s = 0; s < MIN_SPAN_S; s++) {
    t.same(forecast.observe(s, [input(100 * s, 0)], forced(1e8), CLOCK), [], `${s} s watched: none yet`)
  }
  const still = new AutovacuumForecast()
  for (let s = 0; s <= 10; s++) t.same(still.observe(s, [input(500, 0)], forced(1e8), CLOCK), [], 'steady counters')
})

t.test('a vacuum that resets the counters starts the rates over', async t => {
  const forecast = new AutovacuumForecast()
  for (let s = 0; s <= 10; s++) forecast.observe(s, [input(1000 * s, 0)], forced(1e8), CLOCK)
  t.same(forecast.observe(11, [input(0, 0)], forced(1e8), CLOCK), [], 'just vacuumed: no rate yet')
  let rows = []
  for (let s = 12; s <= 20; s++) rows = forecast.observe(s, [input(10 * (s - 11), 0)], forced(1e8), CLOCK)
  t.equal(rows[0].crossing_seconds, (20_051 - 90) / 10, 'the rate since the vacuum, 10 a second, not 1000')
})

t.test('the wraparound vacuum comes when the xids run out first', async t => {
  const forecast = new AutovacuumForecast()
  let rows = []
  // 2000 transactions a second, 100,000 left: 50 s; the dead rows would need far longer
  for (let s = 0; s <= 10; s++) rows = forecast.observe(s, [input(s, 0)], forced(120_000 - 2000 * s), CLOCK)
  t.match(rows[0], { reason: 'wraparound', crossing_seconds: 100_001 / 2000 })
})

t.test("the duration: the table's last autovacuum seen whole, scaled by the work the next will find", async t => {
  const forecast = new AutovacuumForecast()
  const atWork = { datname: 'db', schemaname: 'public', relname: 't', startedS: 1005 }
  let rows = []
  for (let s = 0; s <= 12; s++) {
    forecast.noteAtWork(1000 + s, s >= 5 && s <= 8 ? [atWork] : [])
    rows = forecast.observe(1000 + s, [input(100 * s, 0)], forced(1e8), CLOCK)
    if (s >= 5 && s <= 8) t.same(rows, [], `${s} s: at work, no forecast of the next`)
  }
  t.equal(forecast.visits.get('db'), 1005, 'its start: a visit of the launcher')
  // gone at the poll of 1009: 4 s for the 500 dead rows it found; the next finds 1200 and 100 a second until it starts
  t.equal(rows[0].duration_seconds, (4 * (1200 + 100 * rows[0].next_seconds)) / 500)
  const none = new AutovacuumForecast()
  for (let s = 0; s <= 10; s++) rows = none.observe(s, [input(100 * s, 0)], forced(1e8), CLOCK)
  t.equal(rows[0].duration_seconds, null, 'none seen whole yet: no duration')
})

t.test(
  "the last one's end: the table's last_autovacuum when the poll has it, not the poll that no longer saw it",
  async t => {
    const forecast = new AutovacuumForecast()
    const atWork = { datname: 'db', schemaname: 'public', relname: 't', startedS: 1005 }
    const key = keyOf(atWork)
    let rows = []
    for (let s = 0; s <= 12; s++) {
      // it ended at 1006.25: the poll of 1007 has that end, the polls before it the previous vacuum's
      const lastEnds = new Map([[key, s >= 7 ? 1006.25 : 900]])
      forecast.noteAtWork(1000 + s, s >= 5 && s <= 6 ? [atWork] : [], lastEnds)
      rows = forecast.observe(1000 + s, [input(100 * s, 0)], forced(1e8), CLOCK)
    }
    t.equal(
      rows[0].duration_seconds,
      (1.25 * (1200 + 100 * rows[0].next_seconds)) / 500,
      '1.25 s for its 500 dead rows'
    )
  }
)

/**
 * Polls at 1000 … 1012 s of a table whose autovacuum ran from 1005 to 1007
 * (at work in the polls of 1005 and 1006, its end in last_autovacuum from
 * the poll of 1007), each poll's row from rowAt(s); the last poll's rows.
 * @param {(s: number) => Record<string, unknown>} rowAt
 */
function afterOneVacuum(rowAt) {
  const forecast = new AutovacuumForecast()
  const atWork = { datname: 'db', schemaname: 'public', relname: 't', startedS: 1005 }
  let rows = []
  for (let s = 0; s <= 12; s++) {
    forecast.noteAtWork(1000 + s, s >= 5 && s <= 6 ? [atWork] : [], new Map([[KEY, s >= 7 ? 1007 : 900]]))
    rows = forecast.observe(1000 + s, [rowAt(s)], forced(1e8), CLOCK)
  }
  return rows
}

t.test('the duration scales with the table when it grew more than the work: the indexes are read whole', async t => {
  // 10 MB until the vacuum's start, then growing 10 MB a second; the dead rows at 100 a second as before
  let rows = afterOneVacuum(s => ({ ...input(100 * s, 0), total_bytes: Math.max(1, s - 4) * 10e6 }))
  const untilS = rows[0].next_seconds
  const work = (1200 + 100 * untilS) / 500
  // grown 70 MB over the 12 s window: at that rate until the start
  const size = (80e6 + (70e6 / 12) * untilS) / 10e6
  t.ok(size > work, `the size ratio ${size.toFixed(2)} is the larger, the work's ${work.toFixed(2)}`)
  t.equal(rows[0].duration_seconds, 2 * size ** SIZE_EXPONENT, '2 s, scaled by the size to the power 1.5')
  rows = afterOneVacuum(s => ({ ...input(100 * s, 0), total_bytes: 10e6 }))
  t.equal(
    rows[0].duration_seconds,
    (2 * (1200 + 100 * rows[0].next_seconds)) / 500,
    'a table that kept its size: by the work'
  )
})

t.test("a server started a minute ago: the start in the middle of the launcher's first round", async t => {
  const forecast = new AutovacuumForecast()
  // started at 1000, three databases: the first round visits them at 1080, 1100 and 1120
  const clock = { naptimeS: 60, startedS: 1000, databases: 3 }
  let rows = []
  for (let s = 0; s <= 10; s++) rows = forecast.observe(1010 + s, [input(2000 * s, 0)], forced(1e8), clock)
  t.ok(rows[0].crossing_seconds < 10, `the threshold crossed soon: in ${rows[0].crossing_seconds} s`)
  t.equal(rows[0].forecast_at + rows[0].next_seconds, 1100, "at 1000 + 60 + 60 × 4 / 6: the round's middle")
  t.same(
    serverClock({ autovacuum_naptime_seconds: 15, server_started_at: 1000.5, connectable_databases: 4 }),
    { naptimeS: 15, startedS: 1000.5, databases: 4 },
    "the clock from the collector's settings row"
  )
  t.same(serverClock(undefined), CLOCK, 'before the settings are read: 60 s, start unknown')
})

t.test('an insert-only table: the work alone, however it grew', async t => {
  // inserts alone, 1000 a second, and the table growing 10 MB a second
  const rows = afterOneVacuum(s => ({ ...input(0, 1000 * s), total_bytes: Math.max(1, s - 4) * 10e6 }))
  t.equal(rows[0].reason, 'inserts')
  t.equal(rows[0].duration_seconds, (2 * (12_000 + 1000 * rows[0].next_seconds)) / 5000, 'the inserts it will find')
})
