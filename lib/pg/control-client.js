import { Socket } from 'node:net'
import pg from 'pg'
import { errorMessage } from '../helpers/error-message.js'
import { createLogger } from '../log.js'
import { watchForDeadPeer } from '../wire/dead-peer.js'
import { clientConfig } from './connection.js'
import { codedServerError } from './server-errors.js'

// A short-lived node-postgres connection for control work (a VACUUM, a
// catalogue read, CREATE DATABASE), beside the load's own wire clients.
// Every such connection is opened and closed here, so that each one gets the
// same keepalive, the same handling of a connection that dies while idle,
// and the same coded error when it cannot be made.

/**
 * @typedef {object} ControlClientOptions
 * @property {string} connectionString
 * @property {string} [applicationName]  what pg_stat_activity shows
 * @property {number} [connectTimeoutMs]  0 or absent: node-postgres waits as long as the kernel does
 * @property {import('../log.js').Logger} [log]  where a connection lost while idle is reported
 */

/**
 * Connects a control client. Close it with closeControlClient, or use
 * withControlClient, which always does.
 * @param {ControlClientOptions} options
 * @returns {Promise<pg.Client>}
 * @throws {import('../errors.js').ServerUnavailableError} when the connection cannot be made (its cause: the driver's)
 */
export async function openControlClient({ connectionString, applicationName, connectTimeoutMs, log }) {
  const client = new pg.Client(clientConfig({ connectionString, applicationName, connectTimeoutMs }))
  // node-postgres emits 'error' when the connection breaks (a socket error,
  // or the server ending the session: a restart, pg_terminate_backend). With
  // no listener that would crash the process, though nothing is lost: a
  // statement running at the time fails with the same error, and every later
  // one is refused, so the caller learns of it where it can act. A
  // connection lost while idle has no statement to fail, and would otherwise
  // leave no trace: it is reported as a warning, naming the connection.
  client.on('error', err => {
    ;(log ?? createLogger()).warn(
      `control connection ${applicationName ?? 'pgloadgen'} lost: ${errorMessage(err)}`,
      'PGLG_W_CONTROL_LOST'
    )
  })
  try {
    await client.connect()
  } catch (err) {
    await client.end().catch(() => {})
    throw codedServerError(errorMessage(err), err, 'PGLG_SERVER_UNAVAILABLE')
  }
  const stream = /** @type {{ connection?: { stream?: unknown } }} */ (client).connection?.stream
  if (stream instanceof Socket) watchForDeadPeer(stream)
  return client
}

/**
 * Ends a control client; never throws, as it runs where another error may
 * already be on its way (a finally), and a connection that failed to end is
 * closed by the server anyway.
 * @param {pg.Client | null | undefined} client
 */
export async function closeControlClient(client) {
  if (!client) return
  await client.end().catch(() => {})
}

/**
 * Opens a control client, runs work with it and always ends it.
 * @template T
 * @param {ControlClientOptions} options
 * @param {(client: pg.Client) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withControlClient(options, work) {
  const client = await openControlClient(options)
  try {
    return await work(client)
  } finally {
    await closeControlClient(client)
  }
}
