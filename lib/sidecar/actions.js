import { performance } from 'node:perf_hooks'
import { InputError, rephrased } from '../errors.js'
import { shown } from '../helpers/quote.js'
import { errorMessage } from '../helpers/error-message.js'
import { quoteTable } from '../helpers/table-name.js'
import { closeControlClient, openControlClient, withControlClient } from '../pg/control-client.js'
import { RETENTION_FIELDS, checkRetentionSpec, isRetentionAction } from './retention-spec.js'
import { runRetention } from './retention.js'
import { VacuumAccount } from '../pgstats/vacuum-cost.js'
import { VACUUM_PHASES } from '../pgstats/rows.js'
import { runEvictCache } from './evict-cache.js'
import { AGE_XIDS_FIELDS, ageXidsOptions, runAgeXids } from './age-xids-action.js'
import { round } from '../helpers/numbers.js'

/** @typedef {import('./action-contract.js').ActionSpec} ActionSpec */
/** @typedef {import('./action-contract.js').ActionContext} ActionContext */
/** @typedef {import('./action-contract.js').ActionOutcome} ActionOutcome */

export const ACTIONS = /** @type {const} */ ([
  'vacuum',
  'checkpoint',
  'analyze',
  'reset-stats',
  'fillfactor',
  'evict-cache',
  'drop-partitions',
  'delete',
  'age-xids'
])
// Fields of an action besides its name, retention's aside.
export const ACTION_FIELDS = [
  'table',
  'freeze',
  'full',
  'analyze',
  'verbose',
  'fillfactor',
  'cost_delay',
  ...AGE_XIDS_FIELDS
]

/**
 * The SQL of an action, validated.
 * @param {ActionSpec} spec
 */
export function actionSql(spec) {
  switch (spec.action) {
    case 'vacuum': {
      if (!spec.table) throw new InputError('vacuum needs a table (--table)', { code: 'PGLG_MISSING_VALUE' })
      const options = ['FREEZE', 'FULL', 'ANALYZE', 'VERBOSE'].filter(
        o => spec[/** @type {'freeze'} */ (o.toLowerCase())]
      )
      return `VACUUM ${options.length ? `(${options.join(', ')}) ` : ''}${quoteTable(spec.table)}`
    }
    case 'analyze':
      return spec.table ? `ANALYZE ${quoteTable(spec.table)}` : 'ANALYZE'
    case 'checkpoint':
      return 'CHECKPOINT'
    case 'reset-stats':
      return 'SELECT pg_stat_reset()'
    case 'fillfactor':
      // Rows placed from then on get it; VACUUM FULL repacks those already there.
      if (!spec.table) throw new InputError('fillfactor needs a table (--table)', { code: 'PGLG_MISSING_VALUE' })
      if (
        !Number.isInteger(spec.fillfactor) ||
        /** @type {number} */ (spec.fillfactor) < 10 ||
        /** @type {number} */ (spec.fillfactor) > 100
      )
        throw new InputError(`fillfactor: a whole number from 10 to 100, got ${shown(spec.fillfactor)}`, {
          code: 'PGLG_INVALID_NUMBER'
        })
      return `ALTER TABLE ${quoteTable(spec.table)} SET (fillfactor = ${spec.fillfactor})`
    case 'drop-partitions':
    case 'delete':
      throw new InputError(`${spec.action} is several statements: check it with checkAction`)
    case 'evict-cache':
    case 'age-xids':
      throw new InputError(`${spec.action} runs no statement of its own: check it with checkAction`)
    default:
      throw new InputError(
        `unknown action ${shown(/** @type {{ action: unknown }} */ (spec).action)} (known: ${ACTIONS.join(', ')})`,
        { code: 'PGLG_INVALID_CHOICE' }
      )
  }
}

/**
 * Checks any action as a schedule or a plan gives it; problems name their
 * field (`actions[2].older_than: …`).
 * @param {ActionSpec} spec
 * @param {string} field   where the spec is
 */
export function checkAction(spec, field) {
  if (isRetentionAction(spec.action)) {
    checkRetentionSpec(spec, field)
    return
  }
  const foreign = RETENTION_FIELDS.find(key => /** @type {Record<string, unknown>} */ (spec)[key] !== undefined)
  if (foreign) {
    throw new InputError(`${field}.${foreign}: only for drop-partitions and delete`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  if (spec.fillfactor !== undefined && spec.action !== 'fillfactor') {
    throw new InputError(`${field}.fillfactor: only for the fillfactor action`, { code: 'PGLG_CONFLICTING_OPTIONS' })
  }
  const ageField = AGE_XIDS_FIELDS.find(key => /** @type {Record<string, unknown>} */ (spec)[key] !== undefined)
  if (ageField && spec.action !== 'age-xids') {
    throw new InputError(`${field}.${ageField}: only for age-xids`, { code: 'PGLG_CONFLICTING_OPTIONS' })
  }
  if (spec.action === 'age-xids') {
    const other = ACTION_FIELDS.find(
      key =>
        !AGE_XIDS_FIELDS.includes(key) &&
        key !== 'table' &&
        /** @type {Record<string, unknown>} */ (spec)[key] !== undefined
    )
    if (other) {
      throw new InputError(`${field}.${other}: not a field of age-xids (${AGE_XIDS_FIELDS.join(', ')})`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
    ageXidsOptions(spec, field)
    return
  }
  if (spec.cost_delay !== undefined) {
    if (spec.action !== 'vacuum') {
      throw new InputError(`${field}.cost_delay: only for vacuum`, { code: 'PGLG_CONFLICTING_OPTIONS' })
    }
    costDelayMs(spec.cost_delay, `${field}.cost_delay`)
  }
  if (spec.action === 'evict-cache') {
    const flag = ['freeze', 'full', 'analyze', 'verbose'].find(key => spec[/** @type {'freeze'} */ (key)] !== undefined)
    if (flag) throw new InputError(`${field}.${flag}: only for vacuum`, { code: 'PGLG_CONFLICTING_OPTIONS' })
    if (!spec.table) throw new InputError(`${field}: evict-cache needs a table`, { code: 'PGLG_MISSING_VALUE' })
    try {
      quoteTable(spec.table)
    } catch (err) {
      if (err instanceof InputError) throw rephrased(err, `${field}.table: ${err.message}`)
      throw err
    }
    return
  }
  try {
    actionSql(spec)
  } catch (err) {
    if (err instanceof InputError) throw rephrased(err, `${field}: ${err.message}`)
    throw err
  }
}

/**
 * A vacuum's cost delay in milliseconds: a number of ms, or text such as
 * "20ms" or "0"; 0 to 100, the range PostgreSQL takes.
 * @param {unknown} value
 * @param {string} field
 */
export function costDelayMs(value, field) {
  const match =
    typeof value === 'number'
      ? [String(value), String(value)]
      : typeof value === 'string'
        ? /^\s*(\d+(?:\.\d+)?)\s*(?:ms)?\s*$/.exec(value)
        : null
  const ms = match ? Number(match[1]) : NaN
  if (!(ms >= 0 && ms <= 100)) {
    throw new InputError(`${field}: expected a delay from 0 to 100 ms, such as 20ms, got ${shown(value)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return ms
}

/** @param {ActionSpec} spec */
function describe(spec) {
  if (spec.action !== 'vacuum') return spec.action
  const flags = ['freeze', 'full', 'analyze'].filter(f => spec[/** @type {'freeze'} */ (f)])
  if (spec.cost_delay !== undefined) flags.push(`cost delay ${costDelayMs(spec.cost_delay, 'cost_delay')} ms`)
  return flags.length ? `vacuum (${flags.join(', ')})` : 'vacuum'
}

/**
 * Runs one action on its own connection and records its start and end in
 * the event log. A vacuum's progress is followed from a second connection
 * and logged at each phase change. Retention actions (drop-partitions, delete) run in retention.js; their
 * outcome carries removed_rows. evict-cache runs in evict-cache.js; its
 * outcome's detail says what was evicted.
 * @param {ActionSpec} spec
 * @param {ActionContext} context
 * @param {(pid: number) => void} [onBackend]  told the backend running it, so that it can be cancelled
 * @returns {Promise<ActionOutcome>}
 */
export async function runAction(spec, context, onBackend) {
  if (isRetentionAction(spec.action)) return runRetention(spec, context, onBackend)
  if (spec.action === 'evict-cache') return runEvictCache(spec, context)
  // a refusal (a right the role lacks) is the action's failure here; the command exits 2 on it
  if (spec.action === 'age-xids') {
    return runAgeXids(spec, context, onBackend).catch(err => {
      context.log.warn(`age-xids refused: ${errorMessage(err)}`, 'PGLG_W_ACTION_FAILED')
      return { ok: false, duration_s: 0, error: errorMessage(err) }
    })
  }
  const { connectionString, events, log, progressIntervalMs = 250 } = context
  const sql = actionSql(spec)
  const name = spec.action === 'vacuum' && spec.freeze ? 'vacuum_freeze' : spec.action
  const base = { action: name, ...(spec.table && { table: spec.table }) }
  /** @type {import('pg').Client | null} */
  let client = null
  const started = performance.now()
  let follower = null
  try {
    client = await openControlClient({ connectionString, applicationName: 'pgloadgen-sidecar', log })
    // what a (non-FULL) vacuum cost: run with VERBOSE, whose report it reads
    const measured = spec.action === 'vacuum' && !spec.full && spec.table
    const account = measured ? new VacuumAccount(client, quoteTable(/** @type {string} */ (spec.table))) : null
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    onBackend?.(pid)
    // throttled as autovacuum is, by this session's setting
    if (spec.cost_delay !== undefined) {
      await client.query(`SET vacuum_cost_delay = '${costDelayMs(spec.cost_delay, 'cost_delay')}ms'`)
    }
    await account?.start()
    await events.record({
      kind: 'start',
      ...base,
      detail: {
        sql,
        ...(spec.cost_delay !== undefined && { cost_delay_ms: costDelayMs(spec.cost_delay, 'cost_delay') })
      }
    })
    log.info(`${describe(spec)}${spec.table ? ` of ${spec.table}` : ''} started`)
    if (spec.action === 'vacuum') {
      follower = followVacuum(connectionString, pid, {
        events,
        log,
        base,
        intervalMs: progressIntervalMs,
        clock: account?.clock
      })
    }
    await client.query(account ? actionSql({ ...spec, verbose: true }) : sql)
    const endMs = performance.now()
    const duration = (endMs - started) / 1000
    await follower?.stop()
    const detail = account ? { cost: await account.finish(endMs) } : undefined
    await events.record({ kind: 'end', ...base, duration_s: round(duration, 3), ok: true, ...(detail && { detail }) })
    log.info(`${describe(spec)}${spec.table ? ` of ${spec.table}` : ''} finished in ${duration.toFixed(1)} s`)
    return { ok: true, duration_s: round(duration, 3), ...(detail && { detail }) }
  } catch (err) {
    const duration = (performance.now() - started) / 1000
    await follower?.stop()
    const message = errorMessage(err)
    await events.record({ kind: 'end', ...base, duration_s: round(duration, 3), ok: false, error: message })
    log.warn(`${describe(spec)} failed after ${duration.toFixed(1)} s: ${message}`, 'PGLG_W_ACTION_FAILED')
    return { ok: false, duration_s: round(duration, 3), error: message }
  } finally {
    await closeControlClient(client)
  }
}

/**
 * Polls pg_stat_progress_vacuum for one backend and records a point event at
 * each phase change.
 * @param {string} connectionString
 * @param {number} pid
 * @param {{ events: import('../recorder/event-log.js').EventLog, log: import('../log.js').Logger,
 *     base: { action: string, table?: string }, intervalMs: number, clock?:
 * import('../pgstats/vacuum-cost.js').PhaseClock }} options
 */
function followVacuum(connectionString, pid, { events, log, base, intervalMs, clock }) {
  /** @type {import('pg').Client | null} */
  let client = null
  let stopped = false
  let lastPhase = ''
  /** @type {() => void} */
  let wake = () => {}
  const done = (async () => {
    try {
      client = await openControlClient({ connectionString, applicationName: 'pgloadgen-sidecar-progress', log })
      while (!stopped) {
        const { rows } = await client.query(
          'SELECT phase, heap_blks_total, heap_blks_scanned, heap_blks_vacuumed FROM pg_stat_progress_vacuum WHERE pid = $1',
          [pid]
        )
        const row = rows[0]
        if (row) clock?.observe(row.phase)
        if (row && row.phase !== lastPhase) {
          lastPhase = row.phase
          const scanned = row.heap_blks_total > 0 ? Math.round((100 * row.heap_blks_scanned) / row.heap_blks_total) : 0
          log.info(`${base.action}: ${row.phase} (${scanned} % of heap scanned)`)
          await events.record({
            kind: 'point',
            ...base,
            detail: {
              phase: row.phase,
              phase_number: VACUUM_PHASES.indexOf(row.phase),
              heap_blks_total: Number(row.heap_blks_total),
              heap_blks_scanned: Number(row.heap_blks_scanned)
            }
          })
        }
        await new Promise(resolve => {
          const timer = setTimeout(resolve, intervalMs)
          wake = () => {
            clearTimeout(timer)
            resolve(undefined)
          }
        })
      }
    } catch {
      // progress is informative; the action's own outcome is what counts
    } finally {
      await closeControlClient(client)
    }
  })()
  return {
    stop: async () => {
      stopped = true
      wake()
      await done
    }
  }
}

/**
 * Asks the server to cancel what the given backends are running.
 * @param {string} connectionString
 * @param {number[]} pids
 */
export async function cancelBackends(connectionString, pids) {
  if (pids.length === 0) return
  await withControlClient({ connectionString, applicationName: 'pgloadgen-sidecar' }, async client => {
    await client.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [pids])
  })
}
