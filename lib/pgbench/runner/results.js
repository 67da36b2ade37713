import { ScriptRuntimeError } from '../errors.js'
import { KEEP_ONE } from '../script/commands.js'

// \gset and \aset (pgbench's readCommandResponse): \gset stores the single
// row of the last query's result, and fails when there is not exactly one;
// \aset stores the last row of every query that returned rows. Each column
// becomes the variable named prefix + column name, holding the value's text
// (a NULL becomes the empty string, as PQgetvalue gives it).

/**
 * @param {import('../script/commands.js').SqlCommand} command
 * @param {ReadonlyArray<import('../../wire/wire-connection.js').WireResult>} results  one per query
 * @param {import('../variables.js').Variables} variables
 */
export function keepResults(command, results, variables) {
  if (command.keep === KEEP_ONE) {
    const last = results[results.length - 1]
    const rows = last?.rows ?? []
    if (rows.length !== 1) throw new ScriptRuntimeError(`expected one row, got ${rows.length}`)
    store(command.prefix, last.fields ?? [], rows[0], variables, 'gset')
    return
  }
  for (const result of results) {
    const rows = result.rows
    if (rows === undefined || rows.length === 0) continue
    store(command.prefix, result.fields ?? [], rows[rows.length - 1], variables, 'aset')
  }
}

/**
 * @param {string} prefix
 * @param {ReadonlyArray<string>} fields
 * @param {ReadonlyArray<string | null>} row
 * @param {import('../variables.js').Variables} variables
 * @param {string} context
 */
function store(prefix, fields, row, variables, context) {
  for (let i = 0; i < fields.length; i++) {
    // a new variable's name must be valid: "gset: invalid variable name: ..."
    variables.set(prefix === '' ? fields[i] : prefix + fields[i], row[i] ?? '', context)
  }
}
