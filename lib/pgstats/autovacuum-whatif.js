import { nextVacuum } from './autovacuum-rule.js'

// What autovacuum settings would change for a table, at the rates its
// counters grow now: its next autovacuum, and the steady cycle after it.
// Each vacuum resets the dead rows and the inserts; the next comes when
// either passes its threshold, at the launcher's visit after. A vacuum
// starts at a visit, and the visits to a database come one naptime apart:
// once they follow the load, two vacuums are a whole number of naptimes
// apart, the first visit after the crossing (the vacuum's own time before
// the counters reset aside). The next one's visit phase is unknown here:
// half a naptime after its crossing, on average. The forecast under the
// server's settings and under others (pgloadgen forecast --set) is this,
// twice.

/**
 * The autovacuum settings `--set` may change, by the name the server and a
 * table's reloptions give them, as the rule's parameters.
 */
export const WHATIF_SETTINGS = /** @type {const} */ ({
  autovacuum_vacuum_threshold: 'vacuumThreshold',
  autovacuum_vacuum_scale_factor: 'vacuumScaleFactor',
  autovacuum_vacuum_max_threshold: 'vacuumMaxThreshold',
  autovacuum_vacuum_insert_threshold: 'insertThreshold',
  autovacuum_vacuum_insert_scale_factor: 'insertScaleFactor',
  autovacuum_naptime: 'naptimeS'
})

/**
 * A table under some settings.
 * @typedef {object} TableOutlook
 * @property {import('./autovacuum-rule.js').Reason | null} reason   of the next autovacuum (null: none coming)
 * @property {number | null} nextS          until it starts
 * @property {number | null} cycleS         between two autovacuums once they follow the load (null: none)
 * @property {number | null} vacuumsPerHour
 * @property {number | null} deadAtPeak     dead rows when each of them starts
 */

/**
 * @param {import('./autovacuum-rule.js').AutovacuumParams} params
 * @param {import('./autovacuum-rule.js').TableCounts} counts
 * @param {import('./autovacuum-rule.js').CounterRates} rates
 * @param {number} naptimeS
 * @returns {TableOutlook}
 */
export function outlookOf(params, counts, rates, naptimeS) {
  const next = nextVacuum(params, counts, rates)
  // a crossing already passed: the start is due at the next visit, half a naptime on average
  const nextS = next === null ? null : Math.max(0, next.inS) + naptimeS / 2
  // the cycle: from counters a vacuum has just reset
  const fresh = { ...counts, deadTuples: 0, insertsSinceVacuum: counts.insertsSinceVacuum === null ? null : 0 }
  const cycle = nextVacuum(params, fresh, { ...rates, xids: 0, mxids: 0 })
  const cycleS = cycle === null ? null : Math.max(1, Math.ceil(cycle.inS / naptimeS)) * naptimeS
  return {
    reason: next?.reason ?? null,
    nextS,
    cycleS,
    vacuumsPerHour: cycleS === null ? null : 3600 / cycleS,
    deadAtPeak: cycleS === null ? null : rates.deadTuples * cycleS
  }
}

/**
 * The parameters with the settings given in their place.
 * @param {import('./autovacuum-rule.js').AutovacuumParams} params
 * @param {number} naptimeS
 * @param {Partial<Record<keyof typeof WHATIF_SETTINGS, number>>} changes
 * @returns {{ params: import('./autovacuum-rule.js').AutovacuumParams, naptimeS: number }}
 */
export function withSettings(params, naptimeS, changes) {
  const changed = { ...params, naptimeS }
  for (const [name, value] of Object.entries(changes)) {
    changed[WHATIF_SETTINGS[/** @type {keyof typeof WHATIF_SETTINGS} */ (name)]] = /** @type {number} */ (value)
  }
  const { naptimeS: naptime, ...rest } = changed
  return { params: rest, naptimeS: naptime }
}
