import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { UsageError } from '../errors.js'
import { errorMessage } from '../generator/connection.js'
import { quoteTable } from './table-name.js'

/**
 * @typedef {object} ActionSpec
 * @property {'vacuum' | 'checkpoint' | 'analyze' | 'reset-stats'} action
 * @property {string} [table]
 * @property {boolean} [freeze]
 * @property {boolean} [full]
 * @property {boolean} [analyze]
 * @property {boolean} [verbose]
 */

/**
 * @typedef {object} ActionContext
 * @property {string} connectionString
 * @property {import('./events.js').EventLog} events
 * @property {import('../log.js').Logger} log
 * @property {number} [progressIntervalMs]
 */

export const ACTIONS = /** @type {const} */ (['vacuum', 'checkpoint', 'analyze', 'reset-stats'])

const PHASES = ['initializing', 'scanning heap', 'vacuuming indexes', 'vacuuming heap', 'cleaning up indexes', 'truncating heap', 'performing final cleanup']

/**
 * The SQL of an action, validated.
 * @param {ActionSpec} spec
 */
export function actionSql (spec) {
  switch (spec.action) {
    case 'vacuum': {
      if (!spec.table) throw new UsageError('vacuum needs a table (--table)')
      const options = ['FREEZE', 'FULL', 'ANALYZE', 'VERBOSE'].filter(o => spec[/** @type {'freeze'} */ (o.toLowerCase())])
      return `VACUUM ${options.length ? `(${options.join(', ')}) ` : ''}${quoteTable(spec.table)}`
    }
    case 'analyze':
      return spec.table ? `ANALYZE ${quoteTable(spec.table)}` : 'ANALYZE'
    case 'checkpoint':
      return 'CHECKPOINT'
    case 'reset-stats':
      return 'SELECT pg_stat_reset()'
    default:
      throw new UsageError(`unknown action "${/** @type {{ action: string }} */ (spec).action}" (known: ${ACTIONS.join(', ')})`)
  }
}

/** @param {ActionSpec} spec */
function describe (spec) {
  if (spec.action !== 'vacuum') return spec.action
  const flags = ['freeze', 'full', 'analyze'].filter(f => spec[/** @type {'freeze'} */ (f)])
  return flags.length ? `vacuum (${flags.join(', ')})` : 'vacuum'
}

/**
 * Runs one action on its own connection and records its start and end in
 * the event log. A vacuum's progress is followed from a second connection
 * and logged at each phase change.
 * @param {ActionSpec} spec
 * @param {ActionContext} context
 * @param {(pid: number) => void} [onBackend]  told the backend running it, so that it can be cancelled
 * @returns {Promise<{ ok: boolean, duration_s: number, error?: string }>}
 */
export async function runAction (spec, { connectionString, events, log, progressIntervalMs = 1000 }, onBackend) {
  const sql = actionSql(spec)
  const name = spec.action === 'vacuum' && spec.freeze ? 'vacuum_freeze' : spec.action
  const base = { action: name, ...(spec.table && { table: spec.table }) }
  const client = new pg.Client({ connectionString, application_name: 'pgloadgen-sidecar' })
  client.on('error', () => {})
  const started = performance.now()
  let follower = null
  try {
    await client.connect()
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    onBackend?.(pid)
    await events.record({ kind: 'start', ...base, detail: { sql } })
    log.info(`${describe(spec)}${spec.table ? ` of ${spec.table}` : ''} started`)
    if (spec.action === 'vacuum') follower = followVacuum(connectionString, pid, { events, log, base, intervalMs: progressIntervalMs })
    await client.query(sql)
    const duration = (performance.now() - started) / 1000
    await follower?.stop()
    await events.record({ kind: 'end', ...base, duration_s: round(duration), ok: true })
    log.info(`${describe(spec)}${spec.table ? ` of ${spec.table}` : ''} finished in ${duration.toFixed(1)} s`)
    return { ok: true, duration_s: round(duration) }
  } catch (err) {
    const duration = (performance.now() - started) / 1000
    await follower?.stop()
    const message = errorMessage(err)
    await events.record({ kind: 'end', ...base, duration_s: round(duration), ok: false, error: message })
    log.warn(`${describe(spec)} failed after ${duration.toFixed(1)} s: ${message}`)
    return { ok: false, duration_s: round(duration), error: message }
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Polls pg_stat_progress_vacuum for one backend and records a point event at
 * each phase change.
 * @param {string} connectionString
 * @param {number} pid
 * @param {{ events: import('./events.js').EventLog, log: import('../log.js').Logger, base: { action: string, table?: string }, intervalMs: number }} options
 */
function followVacuum (connectionString, pid, { events, log, base, intervalMs }) {
  const client = new pg.Client({ connectionString, application_name: 'pgloadgen-sidecar-progress' })
  client.on('error', () => {})
  let stopped = false
  let lastPhase = ''
  /** @type {() => void} */
  let wake = () => {}
  const done = (async () => {
    try {
      await client.connect()
      while (!stopped) {
        const { rows } = await client.query('SELECT phase, heap_blks_total, heap_blks_scanned, heap_blks_vacuumed FROM pg_stat_progress_vacuum WHERE pid = $1', [pid])
        const row = rows[0]
        if (row && row.phase !== lastPhase) {
          lastPhase = row.phase
          const scanned = row.heap_blks_total > 0 ? Math.round(100 * row.heap_blks_scanned / row.heap_blks_total) : 0
          log.info(`${base.action}: ${row.phase} (${scanned} % of heap scanned)`)
          await events.record({ kind: 'point', ...base, detail: { phase: row.phase, phase_number: PHASES.indexOf(row.phase), heap_blks_total: Number(row.heap_blks_total), heap_blks_scanned: Number(row.heap_blks_scanned) } })
        }
        await new Promise(resolve => {
          const timer = setTimeout(resolve, intervalMs)
          wake = () => { clearTimeout(timer); resolve(undefined) }
        })
      }
    } catch {
      // progress is informative; the action's own outcome is what counts
    } finally {
      await client.end().catch(() => {})
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
export async function cancelBackends (connectionString, pids) {
  if (pids.length === 0) return
  const client = new pg.Client({ connectionString, application_name: 'pgloadgen-sidecar' })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [pids])
  } finally {
    await client.end().catch(() => {})
  }
}

/** @param {number} n */
function round (n) {
  return Math.round(n * 1000) / 1000
}
