// The original experiment's shape of workload: one table with a dense,
// sequence-backed id, and five request types that address it by id. manta
// and timeseries are this with their own table and statements.

/** @typedef {import('./contract.js').WorkloadModule} WorkloadModule */
/** @typedef {import('./db.js').Db} Db */
/** @typedef {import('./contract.js').ClientContext} ClientContext */

// The SQLSTATE the injected error provokes (undefined_function): failures
// with it are expected, anything else is a real error.
export const INJECTED_ERROR_SQLSTATE = '42883'
// Unnamed: a statement that fails at parse time cannot be kept prepared.
const INJECTED_ERROR = { name: '', text: 'SELECT pgloadgen_injected_error()' }
const NO_PARAMS = /** @type {const} */ ([])

export const DENSE_TABLE_TYPES = [
  { name: 'insert_row', weight: 60 },
  { name: 'read_row', weight: 20 },
  { name: 'update_row', weight: 18 },
  { name: 'injected_error', weight: 1, expectedError: INJECTED_ERROR_SQLSTATE },
  { name: 'fetch_max', weight: 1 }
]

/**
 * @typedef {object} DenseTableDefinition
 * @property {string} name
 * @property {string} description
 * @property {string} table        has a bigint id column with a unique index
 * @property {string} prefix       prepared statement names start with it
 * @property {URL} schema
 * @property {URL} drop
 * @property {string} insertSql    returns the new row's id, or with no fingerprintOf "id fingerprint"
 * @property {(random: () => number) => Array<string | number>} newRow      parameters of insertSql, from the client's
 *   random numbers (ctx.random)
 * @property {string} fingerprintSql  an expression over the row that tells the row inserted from a later one given its
 *   id; updates leave it alone
 * @property {(row: Array<string | number>) => number} [fingerprintOf]  its value from newRow()'s parameters
 * @property {string} updateSql    $1 is the id
 * @property {(id: number, random: () => number) => Array<string | number>} changedRow  parameters of updateSql
 * @property {number} pointsPerRow  metric values in a row (0: none)
 */

/**
 * The five request types from a table and two statements: insert_row
 * inserts newRow(); read_row reads a random id; update_row locks a random
 * row FOR UPDATE and updates that same row, in one transaction; fetch_max
 * refreshes the max id; injected_error fails on the server.
 * @param {DenseTableDefinition} definition
 * @returns {WorkloadModule}
 */
export function denseTableWorkload({
  name,
  description,
  table,
  prefix,
  schema,
  drop,
  insertSql,
  newRow,
  fingerprintSql,
  fingerprintOf,
  updateSql,
  changedRow,
  pointsPerRow
}) {
  const insert = { name: `${prefix}_insert`, text: insertSql }
  const read = { name: `${prefix}_read`, text: `SELECT * FROM ${table} WHERE id = $1` }
  const lock = { name: `${prefix}_lock`, text: `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE` }
  const update = { name: `${prefix}_update`, text: updateSql }
  const fetchMax = { name: `${prefix}_fetch_max`, text: `SELECT max(id) FROM ${table}` }
  return {
    name,
    description,
    schema,
    drop,
    table,
    ids: { table, fingerprint: fingerprintSql },
    fill: 'insert_row=1',
    types: DENSE_TABLE_TYPES,
    requests: {
      /** @param {Db} db @param {ClientContext} ctx */
      async insert_row(db, ctx) {
        const row = newRow(ctx.random)
        let result
        try {
          result = await db.query(insert, row)
        } catch (err) {
          // no acknowledgement: in doubt when the connection broke or timed out (looked for at exit)
          ctx.ids.insertFailed(err, fingerprintOf ? fingerprintOf(row) : 0)
          throw err
        }
        if (fingerprintOf) {
          ctx.ids.noteInserted(Number(result.first), fingerprintOf(row))
        } else {
          const returned = String(result.first)
          const space = returned.indexOf(' ')
          ctx.ids.noteInserted(Number(returned.slice(0, space)), Number(returned.slice(space + 1)))
        }
        ctx.written(1, pointsPerRow)
      },

      /** @param {Db} db @param {ClientContext} ctx */
      async read_row(db, ctx) {
        const result = await db.query(read, [ctx.ids.randomId()])
        return result.rowCount === 1
      },

      /** @param {Db} db @param {ClientContext} ctx */
      async update_row(db, ctx) {
        const id = ctx.ids.randomId()
        const [, updated] = await db.batch([
          [lock, [id]],
          [update, changedRow(id, ctx.random)]
        ])
        return updated.rowCount === 1
      },

      /** @param {Db} db @param {ClientContext} ctx */
      async fetch_max(db, ctx) {
        const result = await db.query(fetchMax, NO_PARAMS)
        ctx.ids.noteMaxId(Number(result.first ?? 0))
      },

      /** @param {Db} db */
      async injected_error(db) {
        await db.query(INJECTED_ERROR, NO_PARAMS)
      }
    }
  }
}
