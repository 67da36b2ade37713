import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'

/** @typedef {'prepared' | 'extended' | 'simple'} Protocol */

/**
 * -M, with pgbench's names: prepared (named statements, parsed once per
 * connection), extended (the unnamed statement, parsed at every use; what
 * a pooler in transaction mode needs) or simple (one Query message, values
 * inlined).
 * @param {string} value
 * @returns {Protocol}
 */
export function parseProtocol(value) {
  if (value !== 'prepared' && value !== 'extended' && value !== 'simple') {
    throw new InputError(`--protocol (-M) must be simple, extended or prepared, got ${quote(value)}`, {
      code: 'PGLG_INVALID_CHOICE'
    })
  }
  return value
}
