import { foldFingerprint } from './ack-ledger.js'

// The check at exit of every acknowledged insert of a dense-id table. Each
// one ends up in exactly one of three counts, so that what was lost is
// acknowledged − present whatever happened during the run:
// - present: the row under its id is there and carries its fingerprint;
// - vanished: the data went back in time underneath the run (a crash that
//   lost commits, a snapshot rollback) and the evidence says so: its id was
//   acknowledged again, a different row holds it now, or there is no row
//   under it and either the server restarted after acknowledging it or the
//   id lies above every id the sequence has handed out since;
// - missing: no row under its id, acknowledged by the server as it still
//   runs, and the sequence went past it.

/**
 * @typedef {object} InsertAudit
 * @property {number} present
 * @property {number} vanished
 * @property {number} missing
 */

const BATCH_IDS = 50000

/**
 * The highest id the table's sequence has handed out, or Infinity when the
 * id column has no sequence (then no absent row can be put down to one
 * that went back).
 * @param {import('pg').Client} client
 * @param {string} table
 */
async function sequenceHighWater (client, table) {
  const { rows: [{ seq }] } = await client.query("SELECT pg_get_serial_sequence($1, 'id') AS seq", [table])
  if (seq === null) return Infinity
  const { rows: [state] } = await client.query(`SELECT last_value, is_called FROM ${seq}`)
  return Number(state.last_value) - (state.is_called ? 0 : 1)
}

/**
 * Sorts every acknowledged insert into present, vanished or missing, batch
 * by batch over the unique id index. Gives up (null) past the deadline,
 * since a very long run may have acknowledged more ids than are worth
 * checking.
 * @param {import('pg').Client} client
 * @param {string} table
 * @param {string | null} fingerprintSql  an expression over the table's row; null: ids only
 * @param {import('./ack-ledger.js').AckLedger} ledger
 * @param {number} timeoutMs
 * @param {Map<string, number>} [incarnations]  the server's start times the run saw, and their incarnations
 * @returns {Promise<InsertAudit | null>}
 */
export async function auditInserts (client, table, fingerprintSql, ledger, timeoutMs, incarnations = new Map()) {
  const deadline = Date.now() + timeoutMs
  const audit = { present: 0, vanished: ledger.replaced, missing: 0 }
  const highWater = await sequenceHighWater(client, table)
  // a server restarted since the run's last connection: every acknowledgement is of an earlier incarnation
  const { rows: [{ started }] } = await client.query('SELECT pg_postmaster_start_time()::text AS started')
  const restartedSince = incarnations.size > 0 && incarnations.get(started) !== ledger.incarnation
  const select = `SELECT id, ${fingerprintSql ?? '0'} AS fp FROM ${table} WHERE id = ANY($1::bigint[])`
  for (const ids of ledger.batches(BATCH_IDS)) {
    if (Date.now() > deadline) return null
    const { rows } = await client.query(select, [ids])
    /** @type {Map<number, number>} */
    const stored = new Map(rows.map(row => [Number(row.id), Number(row.fp)]))
    for (const id of ids) {
      const fingerprint = stored.get(id)
      if (fingerprint === undefined) {
        if (id > highWater || restartedSince || ledger.fromEarlierIncarnation(id)) audit.vanished++
        else audit.missing++
      } else if (fingerprintSql !== null && foldFingerprint(fingerprint) !== ledger.get(id)) {
        audit.vanished++
      } else {
        audit.present++
      }
    }
  }
  return audit
}
