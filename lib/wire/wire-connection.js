import net from 'node:net'
import { readFile } from 'node:fs/promises'
import tls from 'node:tls'
import { MessageWriter } from './writer.js'
import { ScramClient, md5Password } from './scram.js'
import { parseConnectionString } from './connection-config.js'

/**
 * @typedef {object} Statement
 * @property {string} name   '' for an unnamed statement, parsed at every use
 * @property {string} text
 */

/**
 * What a statement came back with: its row count from the command tag and
 * the first column of its first row, as text.
 * @typedef {object} WireResult
 * @property {number} rowCount
 * @property {string | null} first
 */

/** An error from the server, with its SQLSTATE in code. */
export class ServerError extends Error {
  /** @param {Record<string, string>} fields */
  constructor (fields) {
    super(fields.M ?? 'unknown server error')
    this.name = 'ServerError'
    this.code = fields.C
    this.severity = fields.V ?? fields.S
  }
}

/** The connection failed: no SQLSTATE, like a socket error. */
export class ConnectionLostError extends Error {
  /** @param {string} message */
  constructor (message) {
    super(message)
    this.name = 'ConnectionLostError'
  }
}

class Operation {
  /**
   * @param {(result: WireResult) => void} resolve
   * @param {(err: Error) => void} reject
   * @param {string} parsedName  name of a statement this operation parses, if any
   */
  constructor (resolve, reject, parsedName) {
    this.resolve = resolve
    this.reject = reject
    this.parsedName = parsedName
    this.parseOk = false
    this.rowCount = 0
    /** @type {string | null} */
    this.first = null
    this.rows = 0
    /** @type {Error | null} */
    this.error = null
  }
}

const SSL_REQUEST_CODE = 80877103
const PROTOCOL_3 = 196608

// A minimal PostgreSQL wire-protocol client for the generator's hot path:
// prepared statements in the extended protocol with text parameters, any
// number of statements in flight (pipelining), and one socket write per
// batch. It reads only what the generator needs from the replies (row count
// and the first value). node-postgres remains the client everywhere else.
export class WireConnection {
  /**
   * @param {string} connectionString
   * @param {{ applicationName?: string, connectTimeoutMs?: number }} [options]
   * @returns {Promise<WireConnection>}
   */
  static async connect (connectionString, { applicationName = 'pgloadgen', connectTimeoutMs = 5000 } = {}) {
    const config = parseConnectionString(connectionString, applicationName)
    const connection = new WireConnection()
    await connection.open(config, connectTimeoutMs)
    return connection
  }

  constructor () {
    /** @type {net.Socket | tls.TLSSocket | null} */
    this.socket = null
    this.writer = new MessageWriter()
    /** @type {Operation[]} */
    this.operations = []
    /** @type {Set<string>} */
    this.prepared = new Set()
    this.corked = 0
    this.broken = false
    /** @type {Buffer | null} */
    this.remainder = null
    /** @type {((err?: Error) => void) | null} startup completion */
    this.onReady = null
    /** @type {ScramClient | null} */
    this.scram = null
    /** @type {import('./connection-config.js').WireConfig | null} */
    this.config = null
  }

  /**
   * @param {import('./connection-config.js').WireConfig} config
   * @param {number} timeoutMs
   */
  async open (config, timeoutMs) {
    this.config = config
    const timedOut = new ConnectionLostError(`timeout after ${timeoutMs} ms connecting to ${config.host}:${config.port}`)
    // The timer covers every step: TCP connect, TLS, authentication.
    const timer = setTimeout(() => {
      pendingSocket?.destroy(timedOut)
      this.fail(timedOut)
    }, timeoutMs)
    /** @type {net.Socket | null} */
    let pendingSocket = null
    try {
      let socket = await rawConnect(config, (s) => { pendingSocket = s })
      this.socket = socket
      if (config.sslmode !== 'disable' && config.sslmode !== 'allow') socket = await this.startTls(socket, config)
      this.socket = socket
      socket.setNoDelay(true)
      socket.setKeepAlive(true, 15000)
      socket.on('data', chunk => this.onData(chunk))
      socket.on('error', err => this.fail(new ConnectionLostError(err.message || /** @type {any} */ (err).code || 'socket error')))
      socket.on('close', () => this.fail(new ConnectionLostError('connection closed by the server')))
      await new Promise((resolve, reject) => {
        this.onReady = (err) => err ? reject(err) : resolve(undefined)
        this.sendStartup(config)
      })
    } catch (err) {
      this.destroy()
      throw err
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * @param {net.Socket} socket
   * @param {import('./connection-config.js').WireConfig} config
   * @returns {Promise<net.Socket | tls.TLSSocket>}
   */
  async startTls (socket, config) {
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
    const options = await tlsOptions(config)
    return new Promise((resolve, reject) => {
      // host is what verify-full checks the certificate against; without it
      // Node would check the name "localhost". SNI takes names only.
      const secure = tls.connect({ socket, host: config.host, servername: net.isIP(config.host) ? undefined : config.host, ...options }, () => resolve(secure))
      secure.once('error', err => reject(new ConnectionLostError(`SSL: ${err.message}`)))
    })
  }

  /** @param {import('./connection-config.js').WireConfig} config */
  sendStartup (config) {
    const w = this.writer
    const at = w.length
    w.int32(0)
    w.int32(PROTOCOL_3)
    for (const [key, value] of [['user', config.user], ['database', config.database], ['application_name', config.applicationName], ['client_encoding', 'UTF8']]) {
      w.cstring(key)
      w.cstring(value)
    }
    w.buffer[w.length++] = 0
    w.buffer.writeInt32BE(w.length - at, at)
    this.flush()
  }

  /**
   * Sends a statement (parsing it first on this connection if needed).
   * @param {Statement} statement
   * @param {ReadonlyArray<string | number | null>} params
   * @returns {Promise<WireResult>}
   */
  run (statement, params) {
    if (this.broken) return Promise.reject(new ConnectionLostError('connection is closed'))
    const w = this.writer
    let parsedName = ''
    if (statement.name === '' || !this.prepared.has(statement.name)) {
      const parse = w.begin(0x50) // P
      w.cstring(statement.name)
      w.cstring(statement.text)
      w.int16(0)
      w.end(parse)
      if (statement.name !== '') {
        this.prepared.add(statement.name)
        parsedName = statement.name
      }
    }
    const bind = w.begin(0x42) // B
    w.cstring('')
    w.cstring(statement.name)
    w.int16(0)
    w.int16(params.length)
    for (let i = 0; i < params.length; i++) w.param(params[i])
    w.int16(0)
    w.end(bind)
    const execute = w.begin(0x45) // E
    w.cstring('')
    w.int32(0)
    w.end(execute)
    w.end(w.begin(0x53)) // S
    return new Promise((resolve, reject) => {
      this.operations.push(new Operation(resolve, reject, parsedName))
      if (this.corked === 0) this.flush()
    })
  }

  /** Holds writes until uncork, so that a batch leaves in one write. */
  cork () {
    this.corked++
  }

  uncork () {
    if (--this.corked === 0) this.flush()
  }

  flush () {
    if (this.writer.length === 0 || !this.socket) return
    this.socket.write(this.writer.take())
  }

  /** @param {Buffer} chunk */
  onData (chunk) {
    let buf = chunk
    if (this.remainder) {
      buf = Buffer.concat([this.remainder, chunk])
      this.remainder = null
    }
    let offset = 0
    while (buf.length - offset >= 5) {
      const length = buf.readInt32BE(offset + 1)
      const end = offset + 1 + length
      if (end > buf.length) break
      this.handle(buf[offset], buf, offset + 5, end)
      offset = end
    }
    if (offset < buf.length) this.remainder = buf.subarray(offset)
  }

  /**
   * @param {number} type
   * @param {Buffer} buf
   * @param {number} start  first byte of the body
   * @param {number} end
   */
  handle (type, buf, start, end) {
    const op = this.operations[0]
    switch (type) {
      case 0x44: // D DataRow
        if (op && op.rows++ === 0 && buf.readInt16BE(start) > 0) {
          const length = buf.readInt32BE(start + 2)
          op.first = length < 0 ? null : buf.toString('utf8', start + 6, start + 6 + length)
        }
        break
      case 0x43: // C CommandComplete: the row count is the tag's last word
        if (op) op.rowCount = tagRowCount(buf, start, end - 1)
        break
      case 0x31: // 1 ParseComplete
        if (op) op.parseOk = true
        break
      case 0x5a: // Z ReadyForQuery
        if (this.onReady) {
          const ready = this.onReady
          this.onReady = null
          ready()
        } else if (op) {
          this.operations.shift()
          if (op.error) {
            if (op.parsedName && !op.parseOk) this.prepared.delete(op.parsedName)
            op.reject(op.error)
          } else {
            op.resolve(op)
          }
        }
        break
      case 0x45: { // E ErrorResponse
        const error = new ServerError(errorFields(buf, start, end))
        if (this.onReady) {
          const ready = this.onReady
          this.onReady = null
          ready(error)
        } else if (op && !op.error) {
          op.error = error
        }
        break
      }
      case 0x52: // R Authentication*
        this.authenticate(buf.readInt32BE(start), buf, start + 4, end).catch(err => this.fail(err))
        break
      default: // S ParameterStatus, K BackendKeyData, N Notice, 2 BindComplete, n NoData, …
    }
  }

  /**
   * @param {number} code
   * @param {Buffer} buf
   * @param {number} start
   * @param {number} end
   */
  async authenticate (code, buf, start, end) {
    const config = /** @type {import('./connection-config.js').WireConfig} */ (this.config)
    const password = () => {
      if (config.password === null) throw new ConnectionLostError(`the server asks for a password for user "${config.user}" and none was given`)
      return config.password
    }
    const w = this.writer
    switch (code) {
      case 0: // AuthenticationOk
        return
      case 3: { // cleartext
        const at = w.begin(0x70)
        w.cstring(password())
        w.end(at)
        return this.flush()
      }
      case 5: { // MD5
        const at = w.begin(0x70)
        w.cstring(md5Password(config.user, password(), buf.subarray(start, start + 4)))
        w.end(at)
        return this.flush()
      }
      case 10: { // SASL
        const mechanisms = buf.toString('utf8', start, end).split('\0')
        if (!mechanisms.includes('SCRAM-SHA-256')) throw new ConnectionLostError(`unsupported SASL mechanisms: ${mechanisms.filter(Boolean).join(', ')}`)
        this.scram = new ScramClient(password())
        const initial = this.scram.initialResponse()
        const at = w.begin(0x70)
        w.cstring('SCRAM-SHA-256')
        w.int32(initial.length)
        w.bytes(initial)
        w.end(at)
        return this.flush()
      }
      case 11: { // SASLContinue
        const scram = /** @type {ScramClient} */ (this.scram)
        const final = await scram.respond(buf.toString('utf8', start, end))
        const at = w.begin(0x70)
        w.bytes(final)
        w.end(at)
        return this.flush()
      }
      case 12: // SASLFinal
        return /** @type {ScramClient} */ (this.scram).verify(buf.toString('utf8', start, end))
      default:
        throw new ConnectionLostError(`unsupported authentication method (code ${code})`)
    }
  }

  /**
   * The connection is unusable: every operation in flight fails, with the
   * server's own error when it sent one (a terminated backend says why).
   * @param {Error} err
   */
  fail (err) {
    if (!this.broken) {
      this.broken = true
      if (this.onReady) {
        const ready = this.onReady
        this.onReady = null
        ready(err)
      }
      const operations = this.operations
      this.operations = []
      for (const op of operations) op.reject(op.error ?? err)
    }
    this.socket?.destroy()
  }

  /** Polite close: Terminate, then end the socket. */
  async close () {
    if (!this.socket || this.broken) return
    const socket = this.socket
    this.broken = true
    await new Promise(resolve => {
      socket.once('close', resolve)
      socket.end(Buffer.from([0x58, 0, 0, 0, 4])) // X Terminate
      setTimeout(() => socket.destroy(), 1000).unref()
    })
  }

  destroy () {
    this.fail(new ConnectionLostError('connection closed by the client'))
  }
}

/**
 * @param {import('./connection-config.js').WireConfig} config
 * @param {(socket: net.Socket) => void} created  lets the caller time the attempt out
 * @returns {Promise<net.Socket>}
 */
function rawConnect (config, created) {
  return new Promise((resolve, reject) => {
    const socket = config.host.startsWith('/')
      ? net.connect({ path: `${config.host}/.s.PGSQL.${config.port}` })
      : net.connect({ host: config.host, port: config.port })
    created(socket)
    socket.once('connect', () => {
      socket.removeListener('error', reject)
      resolve(socket)
    })
    socket.once('error', (err) => reject(err instanceof ConnectionLostError ? err : new ConnectionLostError(err.message || /** @type {any} */ (err).code || 'connect failed')))
  })
}

/**
 * Parses the trailing number of a command tag ("INSERT 0 1", "UPDATE 3").
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end  index of the terminating zero
 */
function tagRowCount (buf, start, end) {
  let n = 0
  let scale = 1
  for (let i = end - 1; i >= start; i--) {
    const c = buf[i]
    if (c < 0x30 || c > 0x39) break
    n += (c - 0x30) * scale
    scale *= 10
  }
  return n
}

/**
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end
 * @returns {Record<string, string>}
 */
function errorFields (buf, start, end) {
  /** @type {Record<string, string>} */
  const fields = {}
  let i = start
  while (i < end && buf[i] !== 0) {
    const code = String.fromCharCode(buf[i])
    const stop = buf.indexOf(0, i + 1)
    fields[code] = buf.toString('utf8', i + 1, stop)
    i = stop + 1
  }
  return fields
}

/**
 * libpq's meaning of each sslmode: prefer and require encrypt without
 * checking the server, unless require is given a root certificate, which
 * makes it verify-ca; verify-ca checks the chain, verify-full the host name
 * too.
 * @param {import('./connection-config.js').WireConfig} config
 * @returns {Promise<tls.ConnectionOptions>}
 */
async function tlsOptions (config) {
  const [ca, cert, key] = await Promise.all([config.sslrootcert, config.sslcert, config.sslkey].map(file => file ? readFile(file) : undefined))
  const verifyChain = config.sslmode === 'verify-ca' || config.sslmode === 'verify-full' || (config.sslmode === 'require' && ca !== undefined)
  return {
    ...(ca && { ca }),
    ...(cert && { cert }),
    ...(key && { key }),
    rejectUnauthorized: verifyChain,
    checkServerIdentity: config.sslmode === 'verify-full' ? tls.checkServerIdentity : () => undefined
  }
}
