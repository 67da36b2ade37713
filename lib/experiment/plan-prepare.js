import { InputError } from '../errors.js'
import { printable } from '../helpers/quote.js'
import { formatMix, mixOf } from '../config/mix.js'
import { checkSetting } from '../config/run-setting-checks.js'
import { parseInitOptions, InitOptionError } from '../pgbench/init.js'
import { parseOffset, parseQuantity } from '../helpers/durations.js'
import { checkSnapshotName } from '../snapshot/names.js'
import { object, positiveInteger, wrap } from './plan-fields.js'
import { fieldNames } from './plan-table.js'
import { parseActionSpec } from './plan-steps.js'

// A plan's prepare phase (prepare): what fills the table, when the snapshot
// every variant rolls back to is taken, and what runs before it. The fields
// it takes are plan-table.js's.
const PREPARE_FIELDS = fieldNames('prepare')
const PGBENCH_INIT_FIELDS = fieldNames('prepare.pgbench_init')

/**
 * @param {unknown} value
 * @param {number} concurrency
 * @param {import('../workloads/contract.js').Workload} workload
 */
export function parsePrepare(value, concurrency, workload) {
  const prepare = object(value, 'prepare')
  for (const key of Object.keys(prepare)) {
    if (!PREPARE_FIELDS.includes(key)) {
      throw new InputError(`prepare.${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
    }
  }
  // pgbench's tables, created and filled before the load (pgloadgen init's options).
  const init = prepare.pgbench_init === undefined ? null : parsePgbenchInit(prepare.pgbench_init)
  const rows = prepare.rows === undefined ? null : positiveInteger(prepare.rows, 'prepare.rows')
  const tableBytes =
    prepare.table_size === undefined ? null : parseQuantity(String(prepare.table_size), 'prepare.table_size')
  const seconds = prepare.duration === undefined ? null : parseOffset(prepare.duration, 'prepare.duration')
  if (rows === null && tableBytes === null && seconds === null) {
    throw new InputError('prepare: give rows, table_size or duration: when to take the snapshot', {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  if ((rows !== null || tableBytes !== null) && workload.table === null) {
    throw new InputError(
      `prepare: rows and table_size measure the workload's table, and ${workload.name} declares none; give duration`,
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  // By default the prepare phase grows the table with the workload's own
  // filling mix (insert_row=1 for manta and timeseries), else its default mix.
  const mix =
    prepare.mix === undefined
      ? (workload.fill ?? formatMix(mixOf(workload.types, workload.weights)))
      : /** @type {string} */ (prepare.mix)
  if (prepare.mix !== undefined) checkSetting('mix', prepare.mix, 'prepare.mix', { types: workload.types })
  if (prepare.actions !== undefined && !Array.isArray(prepare.actions)) {
    throw new InputError('prepare.actions: expected a list of actions', { code: 'PGLG_INVALID_VALUE' })
  }
  // Run after the load and before the snapshot: a VACUUM here gives every
  // variant a table whose pages are all-visible, as days of autovacuum do.
  const actions = Array.from(prepare.actions ?? [], (/** @type {unknown} */ a, /** @type {number} */ i) =>
    parseActionSpec(a, `prepare.actions[${i}]`)
  )
  const batches = prepare.batches === undefined ? 1 : positiveInteger(prepare.batches, 'prepare.batches', 100)
  if (batches > 1 && rows === null) {
    throw new InputError('prepare.batches: needs prepare.rows, the rows it splits', {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  if (prepare.batch_actions !== undefined && !Array.isArray(prepare.batch_actions)) {
    throw new InputError('prepare.batch_actions: expected a list of actions', { code: 'PGLG_INVALID_VALUE' })
  }
  const batchActions = Array.from(prepare.batch_actions ?? [], (/** @type {unknown} */ a, /** @type {number} */ i) =>
    parseActionSpec(a, `prepare.batch_actions[${i}]`)
  )
  return {
    init,
    rows,
    batches,
    batchActions,
    tableBytes,
    seconds,
    concurrency:
      prepare.concurrency === undefined
        ? concurrency
        : checkSetting('concurrency', prepare.concurrency, 'prepare.concurrency'),
    mix,
    actions,
    snapshot:
      prepare.snapshot === undefined ? 'prepared' : wrap('prepare.snapshot', () => checkSnapshotName(prepare.snapshot))
  }
}

/**
 * prepare.pgbench_init: { scale, fillfactor, foreign_keys, unlogged, init_steps, partitions, partition_method }
 * @param {unknown} value
 */
function parsePgbenchInit(value) {
  const init = object(value, 'prepare.pgbench_init')
  const known = PGBENCH_INIT_FIELDS
  for (const key of Object.keys(init))
    if (!known.includes(key)) {
      throw new InputError(`prepare.pgbench_init.${printable(key, 40)}: unknown field (known: ${known.join(', ')})`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
  try {
    return parseInitOptions({
      scale: /** @type {any} */ (init.scale),
      fillfactor: /** @type {any} */ (init.fillfactor),
      foreignKeys: init.foreign_keys === true,
      unlogged: init.unlogged === true,
      initSteps: /** @type {any} */ (init.init_steps),
      partitions: /** @type {any} */ (init.partitions),
      partitionMethod: /** @type {any} */ (init.partition_method)
    })
  } catch (err) {
    if (err instanceof InitOptionError) throw new InputError(`prepare.pgbench_init: ${err.message}`, { cause: err })
    throw err
  }
}
