import { InputError } from '../errors.js'
import { quote } from './quote.js'

/**
 * A table name as SQL: "name" or "schema"."name", quoted; anything else is
 * refused rather than spliced into a statement.
 * @param {string} name
 */
export function quoteTable(name) {
  const parts = String(name).split('.')
  // PostgreSQL cuts a longer name to 63 bytes (NAMEDATALEN - 1): it would name another table
  if (parts.length > 2 || parts.some(p => !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(p) || p.length > 63)) {
    throw new InputError(
      `not a table name: ${quote(name)} (expected name or schema.name, each of letters, digits, _ and $, at most 63)`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }
  return parts.map(p => `"${p}"`).join('.')
}
