import { statement } from '../db.js'
import { expectedVersions, repeatedLiteral, slotOf, valuesLiteral, versionOf } from './points.js'

// Tgres's statements (serde/postgres.go), as it prepares them. A flush of
// one contiguous run of a segment's points at one slot is an UPDATE of
// array slices; when no row was updated, the row is inserted (ON CONFLICT
// DO NOTHING: another writer may have just made it) and the UPDATE runs
// again (FlushDataPoints). The segment's archive state follows
// (FlushRRAStates): latest is the step's time, value the point, duration_ms
// 0 (a slot's points arrive whole, nothing is left accumulating). Tgres
// wraps its single-slice flush in a transaction; here the state's UPDATE
// joins it (flushUnit). A read of one series' ring keeps only the slots whose
// version matches the pass they belong to (loadRRADps).
const UPDATE_TS = statement(
  'UPDATE ts AS ts SET dp[$4:$5] = $6, ver[$7:$8] = $9 WHERE rra_bundle_id = $1 AND seg = $2 AND i = $3'
)
const INSERT_TS = statement(
  'INSERT INTO ts AS ts (rra_bundle_id, seg, i) VALUES ($1, $2, $3) ON CONFLICT (rra_bundle_id, seg, i) DO NOTHING'
)
const UPDATE_STATE = statement(
  'UPDATE rra_state AS rra_state SET latest[$3:$4] = $5, duration_ms[$6:$7] = $8, value[$9:$10] = $11 WHERE rra_bundle_id = $1 AND seg = $2'
)
const READ_SERIES = statement(`SELECT i, r
  FROM (SELECT i, dp[$1] AS r, ver[$1] AS v FROM ts ts
    WHERE rra_bundle_id = $2 AND seg = $3 AND dp[$1] IS NOT NULL AND dp[$1] <> 'NaN') x
  WHERE (i <= $4) AND v = $5 OR (i > $4) AND v = $6`)

/** @typedef {import('./layout.js').TgresConfig} TgresConfig */
/** @typedef {import('./setup.js').TgresShared} TgresShared */

// Literals that repeat one value, by what they repeat: versions change once
// a pass of the ring, the rest never.
/** @type {Map<string, string>} */
const repeated = new Map()

/**
 * @param {string | number} value
 * @param {number} count
 */
function repeatedCached(value, count) {
  const key = `${value}/${count}`
  let literal = repeated.get(key)
  if (literal === undefined) {
    if (repeated.size > 64) repeated.clear()
    literal = repeatedLiteral(value, count)
    repeated.set(key, literal)
  }
  return literal
}

/**
 * One unit of work: the points of one slice of one segment for the step
 * data time has reached. Units are handed out in data time's order, a
 * segment's one at a time (order.js): a unit goes once the segment's
 * previous one has ended, so its state never goes back in time. A wait
 * for a segment (every one busy, or the free ones a pass of the ring ahead
 * of a unit in flight) is part of the unit's latency.
 * @type {import('../contract.js').RequestFunction}
 */
export async function flushSegment(db, ctx) {
  const config = /** @type {TgresConfig} */ (ctx.config)
  const { order } = /** @type {TgresShared} */ (ctx.shared)
  const unitNumber = await order.acquire()
  const seg = config.unitSeg[unitNumber % config.unitsPerStep]
  try {
    await flushUnit(db, ctx, unitNumber)
  } finally {
    order.release(seg)
  }
}

/**
 * The statements of a unit: its slice of the step's slot, then the
 * segment's state.
 * @param {import('../db.js').Db} db
 * @param {import('../contract.js').ClientContext} ctx
 * @param {number} unitNumber
 */
async function flushUnit(db, ctx, unitNumber) {
  const config = /** @type {TgresConfig} */ (ctx.config)
  const shared = /** @type {TgresShared} */ (ctx.shared)
  const stepsDone = Math.floor(unitNumber / config.unitsPerStep)
  const unit = unitNumber - stepsDone * config.unitsPerStep
  const step = shared.firstStep + stepsDone
  const seg = config.unitSeg[unit]
  const from = config.unitFrom[unit]
  const to = config.unitTo[unit]
  const count = to - from + 1
  const values = valuesLiteral(seg * config.width + from - 1, count, step)
  const tsParams = [
    shared.bundleId,
    seg,
    slotOf(step, config.slots),
    from,
    to,
    values,
    from,
    to,
    repeatedCached(versionOf(step, config.slots), count)
  ]
  const latest = new Date(step * config.stepMs).toISOString()
  const stateParams = [
    shared.bundleId,
    seg,
    from,
    to,
    repeatedCached(latest, count),
    from,
    to,
    repeatedCached(0, count),
    from,
    to,
    values
  ]
  // The slot's UPDATE and the state's, in one transaction that leaves in
  // one write and comes back in one round trip (Tgres flushes the slot in a
  // transaction of its own and the state after it, in another): a unit that
  // fails (a request timeout cancels it, its connection is lost) changes
  // neither, so that a segment's state and points stay in step. A slot
  // without its row yet (the ring's first pass) gets it, and its points,
  // in a second transaction; if that one fails, the state is a step ahead of
  // the slot, a slot of the previous pass which a read skips.
  const [tsUpdated, stateUpdated] = await db.batch([
    [UPDATE_TS, tsParams],
    [UPDATE_STATE, stateParams]
  ])
  // a failed request, counted by the generator as such: not the program's error
  if (stateUpdated.rowCount === 0) throw new Error(`rra_state row (${shared.bundleId}, ${seg}) is missing`)
  if (tsUpdated.rowCount === 0) {
    const [inserted, again] = await db.batch([
      [INSERT_TS, tsParams.slice(0, 3)],
      [UPDATE_TS, tsParams]
    ])
    ctx.written(inserted.rowCount, 0)
    if (again.rowCount === 0) {
      throw new Error(`ts row (${shared.bundleId}, ${seg}, ${tsParams[2]}) is missing after its insert`)
    }
  }
  ctx.written(0, count)
}

/**
 * One series' ring, as Tgres loads it: the slots whose version is the
 * latest pass's (up to the latest slot) or the previous pass's (after it).
 * @type {import('../contract.js').RequestFunction}
 */
export async function readSeries(db, ctx) {
  const config = /** @type {TgresConfig} */ (ctx.config)
  const shared = /** @type {TgresShared} */ (ctx.shared)
  const series = Math.floor(ctx.random() * config.series)
  const seg = Math.floor(series / config.width)
  // the last step whose units of the segment have all been handed out
  const latestStep = shared.firstStep + shared.order.handedStep(seg)
  const { latestSlot, latest, previous } = expectedVersions(latestStep, config.slots)
  const result = await db.query(READ_SERIES, [
    series - seg * config.width + 1,
    shared.bundleId,
    seg,
    latestSlot,
    latest,
    previous
  ])
  return result.rowCount > 0
}
