import { connectWithin, errorMessage } from '../generator/connection.js'
import { countMissingInserts } from '../generator/verify-inserts.js'

// The checks at the end of a load that what the server acknowledged is
// there: every id of a dense-id table (manta, timeseries), or the count of
// rows a batch workload reported written against the rows its table gained.

/** @typedef {import('../generator/run-state.js').RunState} RunState */

/**
 * @param {string} connectionString
 * @param {string} table
 * @param {RunState} state
 * @param {number} timeoutMs
 * @param {import('../log.js').Logger} log
 */
export async function verifyInserts (connectionString, table, state, timeoutMs, log) {
  try {
    const client = await connectWithin({ connectionString, applicationName: 'pgloadgen-verify' }, Math.min(timeoutMs, 10000))
    try {
      const missing = await countMissingInserts(client, table, state.acknowledged, timeoutMs)
      if (missing === null) log.warn('checking acknowledged inserts took too long; not all were checked')
      else if (missing > 0) log.warn(`${missing} acknowledged inserts are not in ${table}`)
      return missing
    } finally {
      await client.end().catch(() => {})
    }
  } catch (err) {
    log.warn(`could not check acknowledged inserts: ${errorMessage(err)}`)
    return null
  }
}

/**
 * The rows of a table, or null when they could not be counted in time.
 * @param {string} connectionString
 * @param {string} table
 * @param {number} timeoutMs
 * @param {import('../log.js').Logger} log
 * @returns {Promise<number | null>}
 */
export async function countTableRows (connectionString, table, timeoutMs, log) {
  try {
    const client = await connectWithin({ connectionString, applicationName: 'pgloadgen-verify', statementTimeoutMs: timeoutMs }, Math.min(timeoutMs, 10000))
    try {
      return Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
    } finally {
      await client.end().catch(() => {})
    }
  } catch (err) {
    log.warn(`could not count the rows of ${table}: ${errorMessage(err)}`)
    return null
  }
}
