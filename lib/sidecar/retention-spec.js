// What a retention action may say, checked before anything connects (kept
// apart from the work so the CLI can check it without loading a client).
// Both actions remove data, so a schedule or plan must say `yes: true` and
// the CLI `--yes`.

import { InputError, RefusedActionError, rephrased } from '../errors.js'
import { shown } from '../helpers/quote.js'
import { parseOffset } from '../helpers/durations.js'
import { quoteTable } from '../helpers/table-name.js'

export const RETENTION_ACTIONS = /** @type {const} */ (['drop-partitions', 'delete'])
export const RETENTION_FIELDS = ['older_than', 'relative_to', 'batch', 'time_column', 'yes']
export const DEFAULT_BATCH = 10000
export const MAX_BATCH = 1000000
const OWN_FIELDS = {
  'drop-partitions': ['action', 'table', 'older_than', 'relative_to', 'yes'],
  delete: ['action', 'table', 'older_than', 'relative_to', 'batch', 'time_column', 'yes']
}

/**
 * A retention action, checked: what runRetention works from.
 * @typedef {object} Retention
 * @property {'drop-partitions' | 'delete'} action
 * @property {string} table
 * @property {number} olderThanS
 * @property {'data' | 'clock'} relativeTo
 * @property {number} batch          delete: rows per transaction
 * @property {string} timeColumn     delete: the column compared with the cutoff
 */

/**
 * Whether two table names as given name the same table: equal, or equal
 * once a leading public. is dropped (a session's usual search path).
 * @param {string | null | undefined} a
 * @param {string | null | undefined} b
 */
export function isSameTable(a, b) {
  if (!a || !b) return false
  const bare = (/** @type {string} */ name) => name.replace(/^(public|"public")\./, '').replaceAll('"', '')
  return bare(a) === bare(b)
}

/**
 * @param {unknown} action
 * @returns {action is 'drop-partitions' | 'delete'}
 */
export function isRetentionAction(action) {
  return RETENTION_ACTIONS.includes(/** @type {any} */ (action))
}

/**
 * Checks a retention action as a schedule, a plan or the CLI gives it.
 * Every problem names its field: `${field}.older_than: …`.
 * @param {import('./action-contract.js').ActionSpec} spec
 * @param {string} field   where the spec is, e.g. actions[2] or variants[0].steps[1].action
 * @returns {Retention}
 */
export function checkRetentionSpec(spec, field) {
  if (!isRetentionAction(spec.action)) {
    throw new InputError(
      `${field ? `${field}.action` : 'action'}: ${RETENTION_ACTIONS.join(' or ')}, got ${shown(spec.action)}`,
      { code: 'PGLG_INVALID_CHOICE' }
    )
  }
  const action = spec.action
  const at = (/** @type {string} */ key) => (field ? `${field}.${key}` : key)
  for (const key of Object.keys(spec)) {
    if (/** @type {Record<string, unknown>} */ (spec)[key] === undefined) continue
    if (!OWN_FIELDS[action].includes(key)) {
      throw new InputError(
        `${at(key)}: not a field of ${action}${key === 'time_column' ? ' (its partitions are of the partition key)' : ''}`,
        { code: 'PGLG_UNKNOWN_OPTION' }
      )
    }
  }
  if (typeof spec.table !== 'string' || spec.table === '') {
    throw new InputError(`${at('table')}: ${action} needs a table`, { code: 'PGLG_MISSING_VALUE' })
  }
  try {
    quoteTable(spec.table)
  } catch (err) {
    const message = `${at('table')}: ${/** @type {Error} */ (err).message}`
    throw err instanceof InputError ? rephrased(err, message) : new InputError(message, { cause: err })
  }
  if (spec.older_than === undefined || spec.older_than === null || spec.older_than === '') {
    throw new InputError(`${at('older_than')}: ${action} needs older_than, a duration (like 10m)`, {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  const olderThanS = parseOffset(spec.older_than, at('older_than'))
  if (!(olderThanS > 0)) {
    throw new InputError(`${at('older_than')}: must be more than 0`, { code: 'PGLG_INVALID_NUMBER' })
  }
  const relativeTo = spec.relative_to ?? 'data'
  if (relativeTo !== 'data' && relativeTo !== 'clock') {
    throw new InputError(
      `${at('relative_to')}: data (the newest time in the table) or clock, got ${shown(relativeTo)}`,
      { code: 'PGLG_INVALID_CHOICE' }
    )
  }
  const batch = spec.batch ?? DEFAULT_BATCH
  if (!Number.isInteger(batch) || batch < 1 || batch > MAX_BATCH) {
    throw new InputError(`${at('batch')}: expected a whole number from 1 to ${MAX_BATCH}, got ${shown(spec.batch)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  const timeColumn = spec.time_column ?? 'time'
  if (typeof timeColumn !== 'string' || !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(timeColumn)) {
    throw new InputError(`${at('time_column')}: not a column name: ${shown(spec.time_column)}`, {
      code: 'PGLG_INVALID_NAME'
    })
  }
  if (spec.yes !== true) {
    throw new RefusedActionError(
      `${at('yes')}: ${action} ${action === 'delete' ? 'deletes rows' : 'drops partitions'} of ${spec.table}: say yes: true to let it run`
    )
  }
  return { action, table: spec.table, olderThanS, relativeTo, batch, timeColumn }
}
