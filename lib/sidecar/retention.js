// Retention as sidecar actions: drop-partitions (DROP TABLE of the partitions
// older than a cutoff) and delete (DELETE of the rows older than it, in
// batches). The cutoff is the reference time minus older_than; the
// reference is the newest time in the table (the lab's simulated time runs
// in the past), or the server's clock with relative_to: clock.

import { performance } from 'node:perf_hooks'
import { errorMessage } from '../helpers/error-message.js'
import { quoteTable } from '../helpers/table-name.js'
import { closeControlClient, openControlClient } from '../pg/control-client.js'
import { dropOldPartitions, deleteOldRows } from './retention-work.js'
import { checkRetentionSpec } from './retention-spec.js'

// First key of the advisory lock a retention action holds on its table
// ("pglr"): two at once on one table, from this process or another, would
// only fight over the same rows; the later one is skipped, as a cron job
// that finds the previous run still going.
const RETENTION_LOCK = 0x70676c72

/**
 * Runs a retention action on its own connection, between a start and an end
 * event; the end's detail says what was removed, also after a failure
 * (what was committed before it).
 * @param {import('./action-contract.js').ActionSpec} spec
 * @param {import('./action-contract.js').ActionContext} context
 * @param {(pid: number) => void} [onBackend]
 * @returns {Promise<import('./action-contract.js').ActionOutcome>}
 */
export async function runRetention(spec, { connectionString, events, log, onRowsRemoved }, onBackend) {
  const retention = checkRetentionSpec(spec, '')
  const { action, table } = retention
  const base = { action, table }
  /** @type {import('pg').Client | null} */
  let client = null
  // called once the client is connected, below
  /** @type {import('./retention-work.js').Sql} */
  const sql = async (text, params) => (await /** @type {import('pg').Client} */ (client).query(text, params)).rows
  const started = performance.now()
  /** @type {Record<string, unknown>} */
  const detail = {}
  let removedRows = 0
  /** @param {number} rows */
  const removed = rows => {
    removedRows += rows
    if (rows > 0) onRowsRemoved?.(rows, table)
  }
  const took = () => Math.round(performance.now() - started) / 1000
  let recordedStart = false
  const recordStart = async () => {
    recordedStart = true
    await events.record({ kind: 'start', ...base, detail: startDetail(retention) })
  }
  try {
    client = await openControlClient({ connectionString, applicationName: 'pgloadgen-sidecar', log })
    onBackend?.((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
    await recordStart()
    // One line per action on the console: its end says what it did.
    log.debug(`${action} of ${table} (older than ${retention.olderThanS} s) started`)
    // A missing table locks nothing (NULL): the work then says it is missing.
    const [lock] = await sql('SELECT pg_try_advisory_lock($1, to_regclass($2)::oid::int4) IS NOT FALSE AS got', [
      RETENTION_LOCK,
      quoteTable(table)
    ])
    if (!lock.got) {
      detail.skipped = `another retention action on ${table} is running`
      const duration = took()
      await events.record({ kind: 'end', ...base, duration_s: duration, ok: true, detail })
      log.info(`${action} of ${table} skipped: ${detail.skipped}`)
      return { ok: true, duration_s: duration, removed_rows: 0, detail }
    }
    if (action === 'drop-partitions') await dropOldPartitions(sql, retention, detail, removed)
    else await deleteOldRows(sql, retention, detail, removed)
    const duration = took()
    await events.record({ kind: 'end', ...base, duration_s: duration, ok: true, detail })
    log.info(`${action} of ${table} finished in ${duration.toFixed(1)} s: ${summaryLine(action, detail)}`)
    return { ok: true, duration_s: duration, removed_rows: removedRows, detail }
  } catch (err) {
    const duration = took()
    const message = errorMessage(err)
    // An end always follows a start, also when the server could not be reached.
    if (!recordedStart) await recordStart()
    await events.record({ kind: 'end', ...base, duration_s: duration, ok: false, error: message, detail })
    log.warn(
      `${action} of ${table} failed after ${duration.toFixed(1)} s: ${message}${removedRows > 0 ? ` (${summaryLine(action, detail)} before)` : ''}`,
      'PGLG_W_ACTION_FAILED'
    )
    return { ok: false, duration_s: duration, error: message, removed_rows: removedRows, detail }
  } finally {
    await closeControlClient(client)
  }
}

/** @param {import('./retention-spec.js').Retention} r */
function startDetail(r) {
  return r.action === 'delete'
    ? { older_than_s: r.olderThanS, relative_to: r.relativeTo, batch: r.batch, time_column: r.timeColumn }
    : { older_than_s: r.olderThanS, relative_to: r.relativeTo }
}

/**
 * @param {string} action
 * @param {Record<string, unknown>} detail
 */
function summaryLine(action, detail) {
  if (action === 'drop-partitions') {
    return `${detail.dropped ?? 0} partitions dropped (${detail.rows ?? 0} rows, ${detail.bytes ?? 0} bytes)`
  }
  return `${detail.rows_deleted ?? 0} rows deleted in ${detail.batches ?? 0} batches`
}
