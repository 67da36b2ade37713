import { connectWithin } from '../pg/connection.js'
import { errorMessage } from '../helpers/error-message.js'
import { auditInserts } from '../generator/verify-inserts.js'

// The checks at the end of a load that what the server acknowledged is
// there: every id of a dense-id table (manta, timeseries), or the count of
// rows a batch workload reported written against the rows its table gained.

/** @typedef {import('../generator/run-state.js').RunState} RunState */

/**
 * Sorts every acknowledged insert of a dense-id table into present,
 * vanished and missing (see verify-inserts.js); null when the check could
 * not connect or ran out of time.
 * @param {string} connectionString
 * @param {string} table
 * @param {string | null} fingerprintSql
 * @param {RunState} state
 * @param {number} timeoutMs
 * @param {import('../log.js').Logger} log
 * @returns {Promise<import('../generator/verify-inserts.js').InsertAudit | null>}
 */
export async function verifyInserts(connectionString, table, fingerprintSql, state, timeoutMs, log) {
  try {
    const client = await connectWithin(
      { connectionString, applicationName: 'pgloadgen-verify' },
      Math.min(timeoutMs, 10000)
    )
    try {
      const audit = await auditInserts(
        client,
        table,
        fingerprintSql,
        state.acknowledged,
        timeoutMs,
        state.incarnations,
        { inDoubt: state.insertsInDoubt(), startMaxId: state.startMaxId }
      )
      if (audit === null)
        log.warn('checking acknowledged inserts took too long; not all were checked', 'PGLG_W_AUDIT_INCOMPLETE')
      else {
        if (audit.vanished > 0) {
          log.warn(
            `${audit.vanished} acknowledged inserts of ${table} vanished: the data went back underneath the run`,
            'PGLG_W_INSERTS_LOST'
          )
        }
        if (audit.missing > 0) {
          log.warn(`${audit.missing} acknowledged inserts are not in ${table}`, 'PGLG_W_INSERTS_LOST')
        }
      }
      return audit
    } finally {
      await client.end().catch(() => {})
    }
  } catch (err) {
    log.warn(`could not check acknowledged inserts: ${errorMessage(err)}`, 'PGLG_W_AUDIT_INCOMPLETE')
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
export async function countTableRows(connectionString, table, timeoutMs, log) {
  try {
    const client = await connectWithin(
      { connectionString, applicationName: 'pgloadgen-verify', statementTimeoutMs: timeoutMs },
      Math.min(timeoutMs, 10000)
    )
    try {
      return Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
    } finally {
      await client.end().catch(() => {})
    }
  } catch (err) {
    log.warn(`could not count the rows of ${table}: ${errorMessage(err)}`, 'PGLG_W_AUDIT_INCOMPLETE')
    return null
  }
}

/**
 * How many rows of the writes left in doubt (their connection broke before
 * the acknowledgement) the table holds: each probe counts its own. Null
 * when they could not all be counted in time.
 * @param {string} connectionString
 * @param {RunState['inDoubt']} writes
 * @param {number} timeoutMs
 * @param {import('../log.js').Logger} log
 * @returns {Promise<number | null>}
 */
export async function countInDoubtRows(connectionString, writes, timeoutMs, log) {
  writes = writes.filter(write => write.probe !== null)
  if (writes.length === 0) return 0
  try {
    const client = await connectWithin(
      { connectionString, applicationName: 'pgloadgen-verify', statementTimeoutMs: timeoutMs },
      Math.min(timeoutMs, 10000)
    )
    try {
      const deadline = Date.now() + timeoutMs
      let stored = 0
      for (const { probe } of writes) {
        if (Date.now() > deadline) throw new Error('out of time')
        const { text, params } = /** @type {{ text: string, params: unknown[] }} */ (probe)
        stored += Number((await client.query(text, params)).rows[0].n)
      }
      return stored
    } finally {
      await client.end().catch(() => {})
    }
  } catch (err) {
    log.warn(
      `could not look for the rows of the ${writes.length} writes left in doubt: ${errorMessage(err)}`,
      'PGLG_W_AUDIT_INCOMPLETE'
    )
    return null
  }
}
