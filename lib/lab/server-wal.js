import { connectWithin } from '../pg/connection.js'

// The WAL the whole server wrote while a load ran: the insert position at
// its start and at its end (pg_current_wal_insert_lsn, every major the lab
// runs), so that runs on different majors or settings compare their WAL
// alike. Best effort: a standby, or a server out of reach, gives null.

/**
 * @param {string} connectionString
 * @returns {Promise<string | null>} an LSN
 */
export async function walPosition(connectionString) {
  try {
    const client = await connectWithin(
      { connectionString, applicationName: 'pgloadgen-wal', statementTimeoutMs: 5000 },
      5000
    )
    try {
      return String((await client.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0].lsn)
    } finally {
      await client.end().catch(() => {})
    }
  } catch {
    return null
  }
}

/**
 * Bytes of WAL from the LSN `from` to now.
 * @param {string} connectionString
 * @param {string | null} from
 * @returns {Promise<number | null>}
 */
export async function walSince(connectionString, from) {
  if (from === null) return null
  const to = await walPosition(connectionString)
  return to === null ? null : lsnBytes(to) - lsnBytes(from)
}

/**
 * An LSN (hi/lo in hexadecimal) as a byte position.
 * @param {string} lsn
 */
export function lsnBytes(lsn) {
  const [hi, lo] = lsn.split('/')
  return parseInt(hi, 16) * 2 ** 32 + parseInt(lo, 16)
}
