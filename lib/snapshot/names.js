import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'

/**
 * Snapshot names become ZFS snapshot names and directory names.
 * @param {unknown} name
 * @returns {string}
 */
export function checkSnapshotName(name) {
  const text = String(name ?? '')
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(text)) {
    throw new InputError(
      `snapshot name must be 1-64 letters, digits, dots, dashes or underscores, got ${quote(text)}`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }
  return text
}

/**
 * @typedef {object} SnapshotInfo
 * @property {string} name
 * @property {string} created   ISO time
 * @property {number | null} bytes  space it holds, when the driver knows
 */
