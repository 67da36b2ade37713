import { UsageError } from '../errors.js'

/**
 * A table name as SQL: "name" or "schema"."name", quoted; anything else is
 * refused rather than spliced into a statement.
 * @param {string} name
 */
export function quoteTable (name) {
  const parts = String(name).split('.')
  if (parts.length > 2 || parts.some(p => !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(p))) {
    throw new UsageError(`not a table name: "${name}" (expected name or schema.name)`)
  }
  return parts.map(p => `"${p}"`).join('.')
}
