import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** @typedef {import('../wire/wire-connection.js').WireConnection} Connection */
/** @typedef {import('../wire/wire-connection.js').Statement} Statement */
/** @typedef {import('../wire/wire-connection.js').WireResult} WireResult */
/** @typedef {import('../generator/run-state.js').RunState} RunState */

/**
 * A request: runs on one connection and resolves to true when it touched a
 * row (false: a read or update whose random id had no row).
 * @typedef {(connection: Connection, state: RunState) => Promise<boolean>} Request
 */

/**
 * A workload is a schema plus the SQL of the five request types; the
 * generator knows nothing of tables.
 * @typedef {object} Workload
 * @property {string} name
 * @property {string} table           the table inserts go to and ids come from
 * @property {string} schemaFile      idempotent CREATE … IF NOT EXISTS
 * @property {string} dropFile        drops everything the schema creates
 * @property {Request} insert_row
 * @property {Request} read_row
 * @property {Request} update_row
 * @property {Request} injected_error
 * @property {Request} fetch_max
 * @property {Statement} maxIdStatement  the max-id query, for bookkeeping outside the mix
 */

// The SQLSTATE the injected error provokes (undefined_function): failures
// with it are expected, anything else is a real error.
export const INJECTED_ERROR_SQLSTATE = '42883'
// Unnamed: a statement that fails at parse time cannot be kept prepared.
const INJECTED_ERROR = { name: '', text: 'SELECT pgloadgen_injected_error()' }
const NO_PARAMS = /** @type {const} */ ([])

/** @param {string} name file in schema/ */
export function schemaPath (name) {
  return fileURLToPath(new URL(`../../schema/${name}`, import.meta.url))
}

/** @param {string} file */
export async function readSql (file) {
  return readFile(file, 'utf8')
}

/**
 * @typedef {object} WorkloadDefinition
 * @property {string} name
 * @property {string} table        has a bigint id column with a unique index
 * @property {string} prefix       prepared statement names start with it
 * @property {string} insertSql    returns the new row's id
 * @property {() => Array<string | number>} newRow      parameters of insertSql
 * @property {string} updateSql    $1 is the id
 * @property {(id: number) => Array<string | number>} changedRow  parameters of updateSql
 */

/**
 * Builds the five request types from a table and two statements:
 * insert_row inserts newRow(); read_row reads a random id; update_row locks a
 * random row FOR UPDATE and updates that same row, in one transaction;
 * fetch_max refreshes the max id; injected_error fails on the server.
 * @param {WorkloadDefinition} definition
 * @returns {Workload}
 */
export function defineWorkload ({ name, table, prefix, insertSql, newRow, updateSql, changedRow }) {
  const insert = { name: `${prefix}_insert`, text: insertSql }
  const read = { name: `${prefix}_read`, text: `SELECT * FROM ${table} WHERE id = $1` }
  const lock = { name: `${prefix}_lock`, text: `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE` }
  const update = { name: `${prefix}_update`, text: updateSql }
  const fetchMax = { name: `${prefix}_fetch_max`, text: `SELECT max(id) FROM ${table}` }
  return {
    name,
    table,
    maxIdStatement: fetchMax,
    schemaFile: schemaPath(`${name}.sql`),
    dropFile: schemaPath(`${name}.drop.sql`),

    async insert_row (connection, state) {
      const result = await connection.run(insert, newRow())
      state.noteInserted(Number(result.first))
      return true
    },

    async read_row (connection, state) {
      const result = await connection.run(read, [state.randomId()])
      return result.rowCount === 1
    },

    async update_row (connection, state) {
      const id = state.randomId()
      const [, updated] = await pipelinedTransaction(connection, [[lock, [id]], [update, changedRow(id)]])
      return updated.rowCount === 1
    },

    async fetch_max (connection, state) {
      const result = await connection.run(fetchMax, NO_PARAMS)
      state.noteMaxId(Number(result.first ?? 0))
      return true
    },

    async injected_error (connection) {
      await connection.run(INJECTED_ERROR, NO_PARAMS)
      return true
    }
  }
}

const BEGIN = { name: 'pgloadgen_begin', text: 'BEGIN' }
const COMMIT = { name: 'pgloadgen_commit', text: 'COMMIT' }

/**
 * Runs BEGIN, the statements, COMMIT as one transaction in one round trip:
 * they are pipelined and leave in a single write. If a statement fails, the
 * server skips the rest of the transaction and turns the COMMIT into a
 * rollback; the first error is thrown. Resolves to the statements' results.
 * @param {Connection} connection
 * @param {Array<[Statement, ReadonlyArray<string | number | null>]>} statements
 * @returns {Promise<WireResult[]>}
 */
export async function pipelinedTransaction (connection, statements) {
  connection.cork()
  const pending = [connection.run(BEGIN, NO_PARAMS)]
  for (const [statement, params] of statements) pending.push(connection.run(statement, params))
  pending.push(connection.run(COMMIT, NO_PARAMS))
  connection.uncork()
  const settled = await Promise.allSettled(pending)
  const results = []
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason
    results.push(outcome.value)
  }
  return results.slice(1, -1)
}
