import net from 'node:net'
import { readFile } from 'node:fs/promises'
import { ConnectionLostError } from './errors.js'

const SSL_REQUEST_CODE = 80877103

// Bytes the server's replies are read into, per connection. Replies of the
// hot path are a few dozen bytes; a longer one arrives in several reads.
const READ_BUFFER_BYTES = 65536

// Read buffers of closed sockets, handed to the next ones. A buffer lives
// outside the JavaScript heap and is freed only when a full collection
// finds its socket gone: under reconnects (a restart, backends killed, a
// connect retried with backoff) a new 64 KiB each time piled up to tens of
// MiB between two collections, and the allocator kept the high-water mark
// as resident memory. At most this many wait here.
const SPARE_READ_BUFFERS = 16
/** @type {Buffer[]} */
const spareReadBuffers = []

/** @param {Buffer} buffer  a socket's, once it has closed: no read is delivered after 'close' */
function giveBackReadBuffer(buffer) {
  if (spareReadBuffers.length < SPARE_READ_BUFFERS) spareReadBuffers.push(buffer)
}

/**
 * Opens the socket to the server, encrypted when the sslmode asks for it,
 * and delivers what the server sends to onChunk: a buffer and how many of
 * its bytes were read (all of them, when length is undefined). A chunk is
 * only valid during the call: an unencrypted socket reads every reply into
 * the same buffer (net's onread), which spares the allocation of a buffer
 * and the stream machinery per reply.
 * @param {import('./connection-config.js').WireConfig} config
 * @param {(socket: net.Socket) => void} created  lets the caller time the attempt out
 * @param {(chunk: Buffer, length?: number) => void} onChunk
 * @returns {Promise<net.Socket | import('node:tls').TLSSocket>}
 */
export async function openSocket(config, created, onChunk) {
  if (config.sslmode === 'disable' || config.sslmode === 'allow') {
    const buffer = spareReadBuffers.pop() ?? Buffer.allocUnsafe(READ_BUFFER_BYTES)
    const onread = {
      buffer,
      callback: (/** @type {number} */ bytes) => {
        onChunk(buffer, bytes)
        return true // keep reading
      }
    }
    return rawConnect(
      config,
      socket => {
        socket.once('close', () => giveBackReadBuffer(buffer))
        created(socket)
      },
      onread
    )
  }
  const socket = await startTls(await rawConnect(config, created, null), config)
  socket.on('data', onChunk)
  return socket
}

/**
 * @param {import('./connection-config.js').WireConfig} config
 * @param {(socket: net.Socket) => void} created
 * @param {net.OnReadOpts | null} onread
 * @returns {Promise<net.Socket>}
 */
function rawConnect(config, created, onread) {
  return new Promise((resolve, reject) => {
    const socket = config.host.startsWith('/')
      ? net.connect({ path: `${config.host}/.s.PGSQL.${config.port}`, ...(onread && { onread }) })
      : net.connect({ host: config.host, port: config.port, ...(onread && { onread }) })
    created(socket)
    socket.once('connect', () => {
      socket.removeListener('error', reject)
      resolve(socket)
    })
    socket.once('error', err =>
      reject(
        err instanceof ConnectionLostError
          ? err
          : new ConnectionLostError(err.message || /** @type {any} */ (err).code || 'connect failed')
      )
    )
  })
}

/**
 * @param {net.Socket} socket
 * @param {import('./connection-config.js').WireConfig} config
 * @returns {Promise<net.Socket | import('node:tls').TLSSocket>}
 */
async function startTls(socket, config) {
  const request = Buffer.alloc(8)
  request.writeInt32BE(8, 0)
  request.writeInt32BE(SSL_REQUEST_CODE, 4)
  const answer = await new Promise((resolve, reject) => {
    socket.once('data', chunk => resolve(String.fromCharCode(chunk[0])))
    socket.once('error', reject)
    socket.write(request)
  })
  if (answer !== 'S') {
    if (config.sslmode === 'prefer') return socket
    throw new ConnectionLostError('the server does not support SSL')
  }
  // Loaded here, not at the top: importing node:tls as a module parses
  // Node's root certificates (its module facade reads every export, the
  // rootCertificates getter too), memory a connection without SSL never uses.
  const tls = (await import('node:tls')).default
  const options = await tlsOptions(config, tls.checkServerIdentity)
  return new Promise((resolve, reject) => {
    // host is what verify-full checks the certificate against; without it
    // Node would check the name "localhost". SNI takes names only.
    const secure = tls.connect(
      { socket, host: config.host, servername: net.isIP(config.host) ? undefined : config.host, ...options },
      () => resolve(secure)
    )
    secure.once('error', err => reject(new ConnectionLostError(`SSL: ${err.message}`, { cause: err })))
  })
}

/**
 * libpq's meaning of each sslmode: prefer and require encrypt without
 * checking the server, unless require is given a root certificate, which
 * makes it verify-ca; verify-ca checks the chain, verify-full the host name
 * too.
 * @param {import('./connection-config.js').WireConfig} config
 * @param {typeof import('node:tls').checkServerIdentity} checkServerIdentity
 * @returns {Promise<import('node:tls').ConnectionOptions>}
 */
async function tlsOptions(config, checkServerIdentity) {
  const [ca, cert, key] = await Promise.all(
    [config.sslrootcert, config.sslcert, config.sslkey].map(file => (file ? readFile(file) : undefined))
  )
  const verifyChain =
    config.sslmode === 'verify-ca' ||
    config.sslmode === 'verify-full' ||
    (config.sslmode === 'require' && ca !== undefined)
  return {
    ...(ca && { ca }),
    ...(cert && { cert }),
    ...(key && { key }),
    rejectUnauthorized: verifyChain,
    checkServerIdentity: config.sslmode === 'verify-full' ? checkServerIdentity : () => undefined
  }
}
