import pg from 'pg'
import { KEEPALIVE_IDLE_MS } from '../wire/dead-peer.js'

/**
 * @typedef {object} ConnectionOptions
 * @property {string} connectionString
 * @property {number} [connectTimeoutMs]
 * @property {string} [applicationName]
 * @property {number} [statementTimeoutMs]  the server ends statements that run longer
 */

/**
 * What every node-postgres connection of the lab is opened with, the control
 * connections (control-client.js) included: an idle connection to a server
 * that vanished is noticed in about 20 s (lib/wire/dead-peer.js).
 * @param {{ connectionString: string, applicationName?: string, connectTimeoutMs?: number }} options
 * @returns {pg.ClientConfig}
 */
export function clientConfig({ connectionString, applicationName, connectTimeoutMs }) {
  return {
    connectionString,
    ...(applicationName !== undefined && { application_name: applicationName }),
    ...(connectTimeoutMs !== undefined && { connectionTimeoutMillis: connectTimeoutMs }),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS
  }
}

/**
 * Opens one dedicated connection. The returned client carries a `broken`
 * flag that turns true as soon as the connection errors or ends, so that the
 * caller can tell a failed statement on a healthy connection from a dead one.
 * @param {ConnectionOptions} options
 * @returns {Promise<pg.Client & { broken: boolean }>}
 */
export async function openConnection({
  connectionString,
  connectTimeoutMs = 5000,
  applicationName = 'pgloadgen',
  statementTimeoutMs
}) {
  const client = /** @type {pg.Client & { broken: boolean }} */ (
    new pg.Client({
      ...clientConfig({ connectionString, applicationName, connectTimeoutMs }),
      ...(statementTimeoutMs !== undefined && { statement_timeout: statementTimeoutMs })
    })
  )
  client.broken = false
  // Without a listener an 'error' event would crash the process.
  client.on('error', () => {
    client.broken = true
  })
  client.on('end', () => {
    client.broken = true
  })
  try {
    await client.connect()
  } catch (err) {
    client.broken = true
    await client.end().catch(() => {})
    throw passwordMissing(err) ? new NoPasswordError(err) : err
  }
  return client
}

/**
 * The server asked for a password and none was given: node-postgres says
 * so in its own words, without a SQLSTATE. As the server's "password
 * authentication failed" (28P01), it will not fix itself by waiting.
 */
class NoPasswordError extends Error {
  /** @param {unknown} cause */
  constructor(cause) {
    super('the server asks for a password and none was given (put it in the URL, or in PGPASSWORD)', { cause })
    this.code = '28P01'
  }
}

/** @param {unknown} err */
function passwordMissing(err) {
  return /password must be a string/.test(/** @type {{ message?: unknown }} */ (err)?.message?.toString() ?? '')
}

/**
 * True when the server said the connection cannot be used any more: class
 * 08 (connection exception) or 57 (operator intervention, e.g.
 * pg_terminate_backend, shutdown), except 57014, a statement cancelled (a
 * cancel request, statement_timeout), after which the connection works. A
 * socket error marks the connection broken by itself; an error of the
 * workload's own code (a script's division by zero, a module's exception)
 * leaves it usable.
 * @param {unknown} err
 */
export function isConnectionError(err) {
  const code = /** @type {{ code?: unknown }} */ (err)?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code))
    return /** @type {{ name?: unknown }} */ (err)?.name === 'ConnectionLostError'
  return code.startsWith('08') || (code.startsWith('57') && code !== '57014')
}

/**
 * Connects, retrying until deadline; for the start of a run, where an
 * unreachable server must end in one clear error after a bounded wait.
 * @param {ConnectionOptions} options
 * @param {number} waitMs
 */
export async function connectWithin(options, waitMs) {
  const deadline = Date.now() + waitMs
  let delay = 100
  for (;;) {
    try {
      return await openConnection({
        ...options,
        connectTimeoutMs: Math.max(1000, Math.min(5000, deadline - Date.now()))
      })
    } catch (err) {
      if (Date.now() + delay >= deadline || !isRetryableConnectError(err)) throw err
      await new Promise(resolve => setTimeout(resolve, delay))
      delay = Math.min(delay * 2, 2000)
    }
  }
}

/**
 * Authentication or a missing database will not fix themselves by waiting.
 * @param {unknown} err
 */
function isRetryableConnectError(err) {
  const code = /** @type {{ code?: unknown }} */ (err)?.code
  return !(code === '28P01' || code === '28000' || code === '3D000')
}
