// The autovacuum rule (lib/pgstats/autovacuum-rule.js) against answers
// worked out by hand from PostgreSQL's relation_needs_vacanalyze, on the
// defaults of each major and on reloptions. No server.
import t from 'tap'
import {
  nextVacuum,
  secondsToReasons,
  startAfter,
  thresholds,
  vacuumReason
} from '../../lib/pgstats/autovacuum-rule.js'

/** The defaults of PostgreSQL 18 (13–17: no max threshold; 12: no insert threshold either). */
const PG18 = {
  enabled: true,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  vacuumMaxThreshold: 100_000_000,
  insertThreshold: 1000,
  insertScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1
}
const PG16 = { ...PG18, vacuumMaxThreshold: -1 }
const PG12 = { ...PG16, insertThreshold: -1 }

/** @param {Partial<import('../../lib/pgstats/autovacuum-rule.js').TableCounts>} counts */
const table = counts => ({
  reltuples: 100_000,
  relpages: 1000,
  relallfrozen: null,
  deadTuples: 0,
  insertsSinceVacuum: 0,
  modsSinceAnalyze: 0,
  xidsToForce: 150_000_000,
  mxidsToForce: 300_000_000,
  ...counts
})

t.test('thresholds: 50 + 20 % of the rows, the insert one 1000 + 20 %, analyze 50 + 10 %', async t => {
  t.same(thresholds(PG16, table({})), { vacuum: 20_050, insert: 21_000, analyze: 10_050 })
  t.same(
    thresholds(PG16, table({ reltuples: -1 })),
    { vacuum: 50, insert: 1000, analyze: 50 },
    'never analysed: 0 rows'
  )
  t.equal(thresholds(PG12, table({ insertsSinceVacuum: null })).insert, null, 'before 13: no insert threshold')
  t.equal(thresholds(PG16, table({ reltuples: 1e9 })).vacuum, 200_000_050, '16: no cap')
  t.equal(thresholds(PG18, table({ reltuples: 1e9 })).vacuum, 100_000_000, '18: capped at the max threshold')
  t.equal(
    thresholds(PG18, table({ relallfrozen: 750 })).insert,
    1000 + 0.2 * 100_000 * 0.25,
    '18: the insert threshold scales with the unfrozen share of the pages'
  )
  t.equal(thresholds(PG18, table({ relallfrozen: 2000 })).insert, 1000, 'relallfrozen above relpages counts as all')
  t.equal(thresholds(PG18, table({ relpages: 0, relallfrozen: 5 })).insert, 21_000, 'no pages: the whole scale')
})

t.test('the reason, in the rule order: forced first, then dead rows, then inserts', async t => {
  t.equal(vacuumReason(PG16, table({ deadTuples: 20_050 })), null, 'at the threshold: not yet (above it)')
  t.equal(vacuumReason(PG16, table({ deadTuples: 20_051 })), 'dead_rows')
  t.equal(vacuumReason(PG16, table({ insertsSinceVacuum: 21_001 })), 'inserts')
  t.equal(vacuumReason(PG16, table({ deadTuples: 30_000, insertsSinceVacuum: 30_000 })), 'dead_rows')
  t.equal(vacuumReason(PG16, table({ xidsToForce: -1, deadTuples: 30_000 })), 'wraparound')
  t.equal(vacuumReason(PG16, table({ mxidsToForce: -5 })), 'multixact')
  const off = { ...PG16, enabled: false }
  t.equal(vacuumReason(off, table({ deadTuples: 1e6 })), null, 'autovacuum off: no threshold counts')
  t.equal(vacuumReason(off, table({ xidsToForce: -1 })), 'wraparound', 'but wraparound still forces it')
  t.equal(vacuumReason({ ...PG16, insertThreshold: -1 }, table({ insertsSinceVacuum: 1e6 })), null, 'inserts off: -1')
})

t.test('seconds to each reason at the rates the counters grow', async t => {
  const rates = { deadTuples: 100, inserts: 1000, xids: 2000, mxids: 0 }
  const seconds = secondsToReasons(PG16, table({ deadTuples: 10_050 }), rates)
  t.equal(seconds.dead_rows, 10_001 / 100, 'dead rows: to the first row past 20,050')
  t.equal(seconds.inserts, 21_001 / 1000)
  t.equal(seconds.wraparound, 150_000_001 / 2000)
  t.equal(seconds.multixact, Infinity, 'no multixacts consumed: never')
  t.same(nextVacuum(PG16, table({ deadTuples: 10_050 }), rates), { reason: 'inserts', inS: 21.001 })
  t.same(nextVacuum(PG16, table({ deadTuples: 20_051 }), rates), { reason: 'dead_rows', inS: 0 }, 'already due')
  t.equal(nextVacuum(PG16, table({}), { deadTuples: 0, inserts: 0, xids: 0, mxids: 0 }), null, 'nothing moves')
  t.same(
    nextVacuum(PG16, table({ xidsToForce: 0, deadTuples: 20_050 }), { ...rates, xids: 1, deadTuples: 1 }),
    { reason: 'wraparound', inS: 1 },
    'a tie goes to wraparound, first in the rule'
  )
})

t.test('the start comes at the launcher visit after the crossing, never before now', async t => {
  const at = (/** @type {number | null} */ visitMs) => ({ periodS: 60, visitMs, startedMs: null, databases: 1 })
  t.equal(startAfter(100_000, at(null), 50_000), 130_000, 'no visit seen: half a naptime after')
  t.equal(startAfter(100_000, at(10_000), 50_000), 130_000, 'visits at 10 s + k × 60 s: the one at 130 s')
  t.equal(startAfter(130_000, at(10_000), 50_000), 130_000, 'a crossing on a visit: that visit')
  t.equal(startAfter(5_000, at(10_000), 0), 10_000, 'a crossing before the visit seen: that visit')
  t.equal(startAfter(100_000, at(10_000), 135_000), 190_000, 'a visit missed (a busy worker): the next from now')
  // a server started at 0 with three databases: the launcher's first round visits them at 80, 100 and 120 s
  const fresh = { periodS: 60, visitMs: null, startedMs: 0, databases: 3 }
  t.equal(startAfter(20_000, fresh, 20_000), 100_000, "a crossing before the first round: the round's middle")
  t.equal(startAfter(20_000, fresh, 100_000), 110_000, 'no start by 100 s: the middle of the places left, 100 to 120 s')
  t.equal(startAfter(110_000, fresh, 50_000), 115_000, 'a crossing within the round: the middle of what is left of it')
  t.equal(startAfter(130_000, fresh, 50_000), 160_000, 'a crossing after the round: half a naptime after, as before')
  t.equal(startAfter(20_000, { ...fresh, visitMs: 80_000 }, 20_000), 80_000, 'a visit seen: the visits rule')
  t.equal(
    startAfter(100_000, at(null), 120_000),
    140_000,
    'passed 20 s ago, no visit seen: the middle of the 40 s left'
  )
  t.equal(startAfter(100_000, at(null), 200_000), 230_000, 'passed longer ago than a naptime: half a naptime')
})

t.test('a counter already past its threshold: how long ago, at its rate', async t => {
  const rates = { deadTuples: 100, inserts: 0, xids: 0, mxids: 0 }
  t.equal(secondsToReasons(PG16, table({ deadTuples: 21_051 }), rates).dead_rows, -10, '1000 rows over: 10 s ago')
  t.equal(
    secondsToReasons(PG16, table({ deadTuples: 21_051 }), { ...rates, deadTuples: 0 }).dead_rows,
    0,
    'not growing: now'
  )
})
