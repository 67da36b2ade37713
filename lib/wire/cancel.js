import { openSocket } from './transport.js'

// PostgreSQL's CancelRequest: a statement running on a backend is stopped by
// a message sent on a connection of its own, naming the backend by the
// process id and secret key its BackendKeyData gave at start-up. The server
// answers nothing and closes that connection; the statement, if it was still
// running, ends with SQLSTATE 57014 on its own connection. The cancel
// connection is encrypted as the main one is (an SSLRequest first, then the
// CancelRequest inside TLS), so that it reaches a server that refuses
// unencrypted connections.

const CANCEL_REQUEST_CODE = 80877102
/** The longest secret key protocol 3.2 allows (3.0's is 4 bytes). */
export const MAX_CANCEL_KEY_BYTES = 256

/**
 * @typedef {object} BackendKey
 * @property {number} pid     the backend's process id
 * @property {Buffer} secret  its secret key: 4 bytes in protocol 3.0, up to 256 in 3.2
 */

/**
 * The bytes of a CancelRequest: its length, the cancel code, the process id
 * and the secret key.
 * @param {BackendKey} key
 * @returns {Buffer}
 */
export function cancelRequestBytes({ pid, secret }) {
  if (secret.length < 4 || secret.length > MAX_CANCEL_KEY_BYTES) {
    throw new RangeError(`a cancel key has 4 to ${MAX_CANCEL_KEY_BYTES} bytes, not ${secret.length}`)
  }
  const message = Buffer.alloc(12 + secret.length)
  message.writeInt32BE(message.length, 0)
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4)
  message.writeInt32BE(pid, 8)
  secret.copy(message, 12)
  return message
}

/**
 * The BackendKeyData message's body, read: the process id, then the key,
 * whose length is what is left of the message.
 * @param {Buffer} buf
 * @param {number} start  first byte of the body
 * @param {number} end
 * @returns {BackendKey}
 */
export function readBackendKey(buf, start, end) {
  return { pid: buf.readInt32BE(start), secret: Buffer.from(buf.subarray(start + 4, end)) }
}

/**
 * Sends a CancelRequest for key to the server of config, bounded by
 * timeoutMs from the first byte to the server's close. Never rejects.
 * @param {import('./connection-config.js').WireConfig} config
 * @param {BackendKey} key
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} whether the server took it (it closed the connection after reading it)
 */
export function sendCancel(config, key, timeoutMs) {
  return new Promise(resolve => {
    /** @type {import('node:net').Socket | null} */
    let socket = null
    let settled = false
    const finish = (/** @type {boolean} */ taken) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket?.destroy()
      resolve(taken)
    }
    const timer = setTimeout(() => finish(false), timeoutMs)
    timer.unref()
    const created = (/** @type {import('node:net').Socket} */ s) => {
      socket = s
      s.on('error', () => finish(false))
    }
    openSocket(config, created, () => {}).then(
      open => {
        socket = open
        if (settled) return open.destroy()
        open.on('error', () => finish(false))
        open.once('close', () => finish(true))
        open.write(cancelRequestBytes(key))
      },
      () => finish(false)
    )
  })
}
