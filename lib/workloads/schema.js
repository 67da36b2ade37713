// Serialises schema changes of concurrent generators on one database.
const SCHEMA_LOCK_KEY = 0x70676c67 // "pglg"

/**
 * Creates what is missing of the workload's schema; with reset, drops it first.
 * @param {import('pg').Client} client
 * @param {import('./contract.js').Workload} workload
 * @param {{ reset?: boolean }} [options]
 */
export async function prepareSchema(client, workload, { reset = false } = {}) {
  const sql = (reset ? (workload.dropSql ?? '') : '') + (workload.schemaSql ?? '')
  if (sql.trim() === '') return
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY])
    await client.query(sql)
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
}

/**
 * The highest id of a dense-id table.
 * @param {import('pg').Client} client
 * @param {string} table
 * @returns {Promise<number>}
 */
export async function readMaxId(client, table) {
  const result = await client.query(`SELECT max(id) AS max FROM ${table}`)
  return Number(result.rows[0].max ?? 0)
}
