import { statfs } from 'node:fs/promises'
import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'
import { parseQuantity } from '../helpers/durations.js'

// What a condition can look at. Table metrics read the stats collector's
// latest snapshot (nothing is polled twice); disk_free reads the
// filesystem of the data directory (or the working directory).
export const CONDITION_METRICS = /** @type {const} */ ([
  'dead_fraction',
  'dead_tuples',
  'live_tuples',
  'table_bytes',
  'xid_age',
  'disk_free'
])
const TABLE_METRICS = new Set(['dead_fraction', 'dead_tuples', 'live_tuples', 'table_bytes'])

/**
 * @typedef {object} Condition
 * @property {typeof CONDITION_METRICS[number]} metric
 * @property {string | null} table
 * @property {'>' | '>=' | '<' | '<='} op
 * @property {number} value
 * @property {string} text
 */

/**
 * Parses "dead_fraction(test_table) > 0.2", "table_bytes(test_table) > 2 GB",
 * "xid_age(test_table) > 150000000", "xid_age > 1e6" (database), "disk_free < 10 GB".
 * @param {string} text
 * @param {string} field
 * @returns {Condition}
 */
export function parseCondition(text, field) {
  // trimmed first: a lazy (.+?) before \s*$ would backtrack over a long run of blanks
  const trimmed = String(text).trim()
  const match = /^([a-z_]+)\s*(?:\(\s*([A-Za-z0-9_.$]+)\s*\))?\s*(>=|<=|>|<)\s*(\S.*)$/s.exec(trimmed)
  if (!match) {
    throw new InputError(`${field}: cannot read condition ${quote(text)} (like "dead_fraction(test_table) > 0.2")`, {
      code: 'PGLG_INVALID_EXPRESSION'
    })
  }
  const [, metric, table, op, value] = match
  if (!CONDITION_METRICS.includes(/** @type {any} */ (metric))) {
    throw new InputError(`${field}: unknown metric ${quote(metric)} (known: ${CONDITION_METRICS.join(', ')})`, {
      code: 'PGLG_INVALID_EXPRESSION'
    })
  }
  if (TABLE_METRICS.has(metric) && !table) {
    throw new InputError(`${field}: ${metric} needs a table, as ${metric}(table)`, { code: 'PGLG_INVALID_EXPRESSION' })
  }
  if (metric === 'disk_free' && table) {
    throw new InputError(`${field}: disk_free takes no table`, { code: 'PGLG_INVALID_EXPRESSION' })
  }
  return {
    metric: /** @type {Condition['metric']} */ (metric),
    table: table ?? null,
    op: /** @type {Condition['op']} */ (op),
    value: parseQuantity(value, field),
    text: trimmed
  }
}

/** @typedef {import('../pgstats/stats-view.js').StatsView} StatsView */

/**
 * The condition's current value, or null when unknown (no stats yet, no
 * such table): an unknown value never fires.
 * @param {Condition} condition
 * @param {StatsView | null} stats
 * @param {string} diskPath
 * @returns {Promise<number | null>}
 */
export async function currentValue(condition, stats, diskPath) {
  if (condition.metric === 'disk_free') {
    const fs = await statfs(diskPath)
    return fs.bavail * fs.bsize
  }
  if (!stats) return null
  if (condition.metric === 'xid_age' && !condition.table) return stats.databaseXidAge()
  const table = stats.table(/** @type {string} */ (condition.table))
  if (!table) return null
  switch (condition.metric) {
    case 'dead_fraction':
      return table.live + table.dead > 0 ? table.dead / (table.live + table.dead) : 0
    case 'dead_tuples':
      return table.dead
    case 'live_tuples':
      return table.live
    case 'table_bytes':
      return table.bytes
    case 'xid_age':
      return table.xidAge
  }
  return null
}

/**
 * @param {Condition} condition
 * @param {number} value
 */
export function holds(condition, value) {
  switch (condition.op) {
    case '>':
      return value > condition.value
    case '>=':
      return value >= condition.value
    case '<':
      return value < condition.value
    case '<=':
      return value <= condition.value
  }
}
