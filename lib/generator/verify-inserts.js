import os from 'node:os'
import { FINGERPRINTS, foldFingerprint } from './ack-ledger.js'

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
 * @property {number | null} inDoubtStored  of the inserts left in doubt, how many the table holds (null: too many ids
 *   to look through)
 */

// The most ids between the run's first and the sequence's last that the
// look for in-doubt inserts goes through: each is a cell of the ledger.
const MAX_UNACKNOWLEDGED_SCAN = 50_000_000
// The most unacknowledged ids it reads rows for.
const MAX_UNACKNOWLEDGED_IDS = 100_000

// Ids a query: a slice of the ledger's cells, sent as they are.
const SLICE_IDS = 8192

// The types of a fingerprint expression the server can fold as
// foldFingerprint does (int2, int4, int8): for an integer a JavaScript
// number holds exactly, the two agree.
const INTEGER_TYPES = new Set([21, 23, 20])

// A cell as the server reads it from the slice's bytes (a Uint16Array is
// in the machine's byte order).
const CELL_SQL =
  os.endianness() === 'LE'
    ? 'get_byte($1::bytea, 2 * i) + 256 * get_byte($1::bytea, 2 * i + 1)'
    : '256 * get_byte($1::bytea, 2 * i) + get_byte($1::bytea, 2 * i + 1)'

/**
 * The audit's statement over a slice of the ledger: $1 the slice's cells
 * (a Uint16Array's bytes), $2 the id of its first. Each acknowledged id,
 * with the folded fingerprint the ledger expects under it, meets the row
 * under it on the server, and what comes back is one row with how many
 * the server found as written, then only the ids it could not settle:
 * those without a row, and rows it did not find as written. Those are
 * judged here as before, so that the result is exactly what comparing
 * every row here gives; when every row is there, no row and no id is held
 * in this process, and no code of it runs per id. The server settles a row
 * when there is no fingerprint to compare, or when it folds an integer
 * fingerprint a JavaScript number holds exactly and finds the expected
 * value; for other types it settles none.
 * @param {string} table
 * @param {string | null} fingerprintSql
 * @param {boolean} serverFolds  the fingerprint is an integer type
 */
function auditSql(table, fingerprintSql, serverFolds) {
  const exact = `t.fp BETWEEN ${-Number.MAX_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER}`
  const folded = `1 + (t.fp % ${FINGERPRINTS} + ${FINGERPRINTS}) % ${FINGERPRINTS}`
  const asWritten = fingerprintSql === null ? 'true' : serverFolds ? `${exact} AND ${folded} = a.want` : 'false'
  // The row of each id is looked up in a subquery over the table alone, so
  // that the fingerprint names the table's columns and is computed for that
  // row only; OFFSET 0 keeps it a lookup by the id index for each id (the
  // planner would otherwise hash the whole table for a few thousand ids).
  return `WITH a AS (
      SELECT $2::bigint + i AS id, ${CELL_SQL} AS want FROM generate_series(0, length($1::bytea) / 2 - 1) AS i
    ), j AS MATERIALIZED (
      SELECT a.id, t.fp, t.id IS NOT NULL AS found, coalesce(t.id IS NOT NULL AND ${asWritten}, false) AS settled
      FROM a LEFT JOIN LATERAL (
        SELECT id, ${fingerprintSql ?? '0'} AS fp FROM ${table} WHERE id = a.id OFFSET 0
      ) AS t ON true
      WHERE a.want <> 0
    )
    SELECT NULL::bigint AS id, NULL AS fp, NULL::boolean AS found, count(*) FILTER (WHERE settled) AS settled FROM j
    UNION ALL
    SELECT id, fp, found, NULL FROM j WHERE NOT settled`
}

/**
 * The highest id the table's sequence has handed out, or Infinity when the
 * id column has no sequence (then no absent row can be put down to one
 * that went back).
 * @param {import('pg').Client} client
 * @param {string} table
 */
async function sequenceHighWater(client, table) {
  const {
    rows: [{ seq }]
  } = await client.query("SELECT pg_get_serial_sequence($1, 'id') AS seq", [table])
  if (seq === null) return Infinity
  const {
    rows: [state]
  } = await client.query(`SELECT last_value, is_called FROM ${seq}`)
  return Number(state.last_value) - (state.is_called ? 0 : 1)
}

/**
 * Sorts every acknowledged insert into present, vanished or missing, slice
 * by slice over the unique id index. Gives up (null) past the deadline,
 * since a very long run may have acknowledged more ids than are worth
 * checking.
 * @param {import('pg').Client} client
 * @param {string} table
 * @param {string | null} fingerprintSql  an expression over the table's row; null: ids only
 * @param {import('./ack-ledger.js').AckLedger} ledger
 * @param {number} timeoutMs
 * @param {Map<string, number>} [incarnations]  the server's start times the run saw, and their incarnations
 * @param {{ inDoubt?: Array<{ fingerprint?: number }>, startMaxId?: number }} [doubt]  inserts left in doubt, and the
 *   table's max id at the start
 * @returns {Promise<InsertAudit | null>}
 */
export async function auditInserts(
  client,
  table,
  fingerprintSql,
  ledger,
  timeoutMs,
  incarnations = new Map(),
  { inDoubt = [], startMaxId = 0 } = {}
) {
  const deadline = Date.now() + timeoutMs
  const audit = { present: 0, vanished: ledger.replaced, missing: 0, inDoubtStored: /** @type {number | null} */ (0) }
  const highWater = await sequenceHighWater(client, table)
  // a server restarted since the run's last connection: every acknowledgement is of an earlier incarnation
  const {
    rows: [{ started }]
  } = await client.query('SELECT pg_postmaster_start_time()::text AS started')
  const restartedSince = incarnations.size > 0 && incarnations.get(started) !== ledger.incarnation
  const serverFolds =
    fingerprintSql !== null &&
    INTEGER_TYPES.has(
      (await client.query({ text: `SELECT ${fingerprintSql} AS fp FROM ${table} LIMIT 0`, rowMode: 'array' })).fields[0]
        .dataTypeID
    )
  const select = auditSql(table, fingerprintSql, serverFolds)
  for (const { firstId, cells } of ledger.slices(SLICE_IDS)) {
    if (Date.now() > deadline) return null
    // node-postgres sends a Buffer as a binary parameter: the cells' bytes, not copied here
    const bytes = Buffer.from(cells.buffer, cells.byteOffset, cells.byteLength)
    const { rows } = await client.query({ text: select, values: [bytes, firstId], rowMode: 'array' })
    audit.present += Number(rows[0][3])
    for (let r = 1; r < rows.length; r++) {
      const [rawId, fingerprint, found] = rows[r]
      const id = Number(rawId)
      if (!found) {
        if (id > highWater || restartedSince || ledger.fromEarlierIncarnation(id)) audit.vanished++
        else audit.missing++
      } else if (fingerprintSql !== null && foldFingerprint(Number(fingerprint)) !== ledger.get(id)) {
        audit.vanished++
      } else {
        audit.present++
      }
    }
  }
  if (inDoubt.length > 0) {
    audit.inDoubtStored = await findInDoubtInserts(
      client,
      table,
      fingerprintSql,
      ledger,
      inDoubt,
      startMaxId,
      highWater
    )
  }
  return audit
}

/**
 * How many inserts left in doubt (sent, their connection cut before the
 * acknowledgement) did commit. Each took an id from the sequence above the
 * table's max id at the start, and nobody acknowledged that id: the rows
 * under such ids are those inserts, or another writer's. A row counts when
 * its fingerprint is one of an in-doubt insert's (each matched once), or
 * when the insert's fingerprint is unknown (0).
 * @param {import('pg').Client} client
 * @param {string} table
 * @param {string | null} fingerprintSql
 * @param {import('./ack-ledger.js').AckLedger} ledger
 * @param {Array<{ fingerprint?: number }>} inDoubt
 * @param {number} startMaxId
 * @param {number} highWater  the sequence's last id (Infinity: no sequence)
 * @returns {Promise<number | null>}
 */
async function findInDoubtInserts(client, table, fingerprintSql, ledger, inDoubt, startMaxId, highWater) {
  let last = highWater
  if (!Number.isFinite(last)) {
    const {
      rows: [{ max }]
    } = await client.query(`SELECT coalesce(max(id), 0) AS max FROM ${table}`)
    last = Number(max)
  }
  if (last - startMaxId > MAX_UNACKNOWLEDGED_SCAN) return null
  const unacknowledged = []
  for (let id = startMaxId + 1; id <= last; id++) {
    if (ledger.has(id)) continue
    if (unacknowledged.length === MAX_UNACKNOWLEDGED_IDS) return null
    unacknowledged.push(id)
  }
  if (unacknowledged.length === 0) return 0
  const { rows } = await client.query(
    `SELECT ${fingerprintSql ?? '0'} AS fp FROM ${table} WHERE id = ANY($1::bigint[])`,
    [unacknowledged]
  )
  /** @type {Map<number, number>} in-doubt inserts by folded fingerprint */
  const wanted = new Map()
  let unknown = 0
  for (const write of inDoubt) {
    if (!write.fingerprint) unknown++
    else wanted.set(foldFingerprint(write.fingerprint), (wanted.get(foldFingerprint(write.fingerprint)) ?? 0) + 1)
  }
  let stored = 0
  for (const row of rows) {
    const key = foldFingerprint(Number(row.fp))
    const left = wanted.get(key) ?? 0
    if (left > 0) {
      wanted.set(key, left - 1)
      stored++
    } else if (unknown > 0) {
      unknown--
      stored++
    }
  }
  return stored
}
