import { openSocket } from './transport.js'
import { Authenticator } from './authentication.js'
import { ConnectionLostError } from './errors.js'
import { writeStartup } from './frontend-messages.js'
import { watchForDeadPeer } from './dead-peer.js'

/** @typedef {import('./wire-connection.js').WireConnection} WireConnection */

/**
 * Brings a connection up: the socket (encrypted as the sslmode says), the
 * startup message, authentication, and the server's first ReadyForQuery.
 * One timer covers every step. On failure the connection is destroyed and
 * the error thrown.
 * @param {WireConnection} connection
 * @param {import('./connection-config.js').WireConfig} config
 * @param {number} timeoutMs
 */
export async function startSession(connection, config, timeoutMs) {
  connection.authenticator = new Authenticator(config)
  const timedOut = new ConnectionLostError(`timeout after ${timeoutMs} ms connecting to ${config.host}:${config.port}`)
  /** @type {import('node:net').Socket | null} */
  let pendingSocket = null
  const timer = setTimeout(() => {
    pendingSocket?.destroy(timedOut)
    connection.fail(timedOut)
  }, timeoutMs)
  try {
    const socket = await openSocket(
      config,
      s => {
        pendingSocket = s
      },
      (chunk, length) => connection.reader.push(chunk, length)
    )
    connection.socket = socket
    if (connection.broken) throw timedOut
    socket.setNoDelay(true)
    watchForDeadPeer(socket)
    socket.on('error', err =>
      connection.fail(new ConnectionLostError(err.message || /** @type {any} */ (err).code || 'socket error'))
    )
    socket.on('close', () => connection.fail(new ConnectionLostError('connection closed by the server')))
    await new Promise((resolve, reject) => {
      // settled by the first ReadyForQuery, or an ErrorResponse before it
      connection.onReady = err => (err ? reject(err) : resolve(undefined))
      writeStartup(connection.writer, config)
      connection.flush()
    })
  } catch (err) {
    connection.destroy()
    throw err
  } finally {
    clearTimeout(timer)
  }
}
