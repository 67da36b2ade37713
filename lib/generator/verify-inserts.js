/**
 * Counts the acknowledged inserts whose rows are not in the table, batch by
 * batch over the unique id index. Gives up (null) past the deadline, since a
 * very long run may have acknowledged more ids than are worth checking.
 * @param {import('pg').Client} client
 * @param {string} table
 * @param {import('./ack-set.js').AckSet} acknowledged
 * @param {number} timeoutMs
 * @returns {Promise<number | null>}
 */
export async function countMissingInserts (client, table, acknowledged, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  let missing = 0
  for (const batch of acknowledged.batches(50000)) {
    if (Date.now() > deadline) return null
    const result = await client.query(`SELECT count(*) AS present FROM ${table} WHERE id = ANY($1::bigint[])`, [batch])
    missing += batch.length - Number(result.rows[0].present)
  }
  return missing
}
