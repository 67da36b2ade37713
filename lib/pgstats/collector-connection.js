// The collector's one dedicated connection: a statement timeout on the
// server, a guard on the client for a server that stops answering, and a
// `broken` flag once the connection cannot be used any more.
import { openConnection } from '../pg/connection.js'

/** @typedef {import('pg').Client & { broken: boolean }} StatsClient */

export const APPLICATION_NAME = 'pgloadgen-stats'

/**
 * @param {{ connectionString: string, statementTimeoutMs: number, connectTimeoutMs: number }} options
 * @returns {Promise<StatsClient>}
 */
export function openStatsConnection({ connectionString, statementTimeoutMs, connectTimeoutMs }) {
  return openConnection({ connectionString, statementTimeoutMs, connectTimeoutMs, applicationName: APPLICATION_NAME })
}

/**
 * Runs a statement; when no reply arrives within guardMs (the server's own
 * statement_timeout did not end it: the server or the network is stuck), the
 * connection is closed and marked broken, so that nothing queues behind it.
 * @param {StatsClient} client
 * @param {string} sql
 * @param {unknown[]} params
 * @param {number} guardMs
 * @returns {Promise<import('./rows.js').Row[]>}
 */
export async function timedQuery(client, sql, params, guardMs) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  const guard = new Promise((_resolve, reject) => {
    timer = setTimeout(() => {
      client.broken = true
      client.end().catch(() => {})
      // a failed poll: the collector counts it and warns once
      reject(new Error(`no reply within ${guardMs} ms; connection closed`))
    }, guardMs)
  })
  try {
    const result = await Promise.race([client.query(sql, params), guard])
    return /** @type {import('pg').QueryResult} */ (result).rows
  } finally {
    clearTimeout(timer)
  }
}

/**
 * True when the error leaves the connection unusable: the client saw it end
 * or fail, the error has no SQLSTATE (a socket error), or the server is
 * shutting the session down (class 08, or 57P01-57P05; 57014, a statement
 * cancelled by the timeout, leaves the connection usable).
 * @param {StatsClient} client
 * @param {unknown} err
 */
export function isDeadConnection(client, err) {
  if (client.broken) return true
  const code = /** @type {{ code?: unknown }} */ (err)?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true
  return code.startsWith('08') || code.startsWith('57P')
}
