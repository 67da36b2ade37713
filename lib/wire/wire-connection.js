import { MessageWriter } from './writer.js'
import { parseConnectionString } from './connection-config.js'
import { openSocket } from './transport.js'
import { Authenticator } from './authentication.js'
import { watchForDeadPeer } from './dead-peer.js'
import { SYNC_MESSAGE, TERMINATE, writeExtended, writeQuery, writeStartup } from './frontend-messages.js'
import { ConnectionLostError, ServerError } from './errors.js'
import { errorFields, tagCommand, tagRowCount } from './backend-messages.js'
import { COPY, EXTENDED, Operation, SIMPLE, SIMPLE_MANY, SYNC } from './operation.js'
import { OperationQueue } from './operation-queue.js'
import { FrameReader } from './frame-reader.js'
import { inlineParams } from './literals.js'
import { drained, startCopyIn } from './copy.js'
import { readBackendKey, sendCancel } from './cancel.js'

export { ConnectionLostError, PipelineAbortedError, ServerError } from './errors.js'
export { copyTextRow, copyTextValue } from './copy.js'

/**
 * @typedef {object} Statement
 * @property {string} name   '' for an unnamed statement, parsed at every use
 * @property {string} text
 */
/** @typedef {import('./operation.js').WireResult} WireResult */
/** @typedef {string | number | bigint | boolean | null} Param */
/** @typedef {'prepared' | 'extended' | 'simple'} Protocol */
/** @typedef {{ rows?: boolean, sync?: boolean }} RunOptions */

const PROTOCOLS = ['prepared', 'extended', 'simple']

// A minimal PostgreSQL wire-protocol client for the generator's hot path and
// for pgbench scripts: statements in the extended protocol (prepared once per
// connection, or unnamed every time) or the simple one, with text
// parameters, any number of statements in flight (pipelining), one socket
// write per batch, and COPY FROM STDIN. It reads only what the caller asks
// for of the replies: the row count and the first value, or every row.
export class WireConnection {
  /**
   * @param {string} connectionString
   * @param {{ applicationName?: string, connectTimeoutMs?: number, protocol?: Protocol }} [options]
   * @returns {Promise<WireConnection>}
   */
  static async connect(
    connectionString,
    { applicationName = 'pgloadgen', connectTimeoutMs = 5000, protocol = 'prepared' } = {}
  ) {
    if (!PROTOCOLS.includes(protocol)) {
      throw new Error(`unknown query protocol "${protocol}": expected prepared, extended or simple`)
    }
    const config = parseConnectionString(connectionString, applicationName)
    const connection = new WireConnection(protocol)
    connection.config = config
    await startSession(connection, config, connectTimeoutMs)
    return connection
  }

  /** @param {Protocol} [protocol] */
  constructor(protocol = 'prepared') {
    /** @type {Protocol} how run() sends statements */
    this.protocol = protocol
    this.simple = protocol === 'simple'
    this.namedStatements = protocol === 'prepared'
    /** @type {'I' | 'T' | 'E'} the last ReadyForQuery's: idle, in a transaction, in a failed one */
    this.transactionStatus = 'I'
    /** @type {import('node:net').Socket | import('node:tls').TLSSocket | null} */
    this.socket = null
    this.writer = new MessageWriter()
    this.queue = new OperationQueue()
    this.reader = new FrameReader(this)
    this.corked = 0
    this.pipelineOpen = false // runs were sent without a Sync after them
    this.copying = false
    this.broken = false
    /** @type {((err?: Error) => void) | null} startup completion */
    this.onReady = null
    /** @type {import('./authentication.js').Authenticator | null} */
    this.authenticator = null
    /** @type {import('./connection-config.js').WireConfig | null} where it connected: what a cancel reaches */
    this.config = null
    /** @type {import('./cancel.js').BackendKey | null} the BackendKeyData of start-up */
    this.backendKey = null
  }

  /**
   * Asks the server to cancel what runs on this connection: a CancelRequest
   * on a short connection of its own (cancel.js), bounded by timeoutMs.
   * What was cancelled fails here with SQLSTATE 57014; the connection stays.
   * @param {number} timeoutMs
   * @returns {Promise<boolean>} whether the server took the request (not whether anything was running)
   */
  cancel(timeoutMs) {
    if (this.config === null || this.backendKey === null) return Promise.resolve(false)
    return sendCancel(this.config, this.backendKey, timeoutMs)
  }

  /**
   * Sends a statement as the connection's protocol says: in 'prepared', a
   * named statement is parsed once per connection; in 'extended', every run
   * parses the unnamed statement; in 'simple', the parameters are written
   * into the text as literals and it goes as one Query (a text of several
   * statements resolves with the last one's command and row count).
   * With rows, the result carries the column names and every row; without,
   * only the row count and the first value are read.
   * With sync false, no Sync follows: the run settles when a later Sync
   * (sync(), or a run with sync) is answered. If a statement of such a
   * pipeline fails, the server skips the rest up to the Sync: they reject
   * with PipelineAbortedError.
   * @param {Statement} statement
   * @param {ReadonlyArray<Param>} params
   * @param {RunOptions} [options]
   * @returns {Promise<WireResult>}
   */
  run(statement, params, options) {
    if (this.broken || this.copying) return this.unavailable()
    let rows = false
    let sync = true
    if (options !== undefined) {
      rows = options.rows === true
      sync = options.sync !== false
    }
    if (this.simple) {
      if (!sync) {
        return Promise.reject(new Error('a pipeline (sync: false) needs the extended query protocol, not simple'))
      }
      let text
      try {
        text = inlineParams(statement, params)
      } catch (err) {
        return Promise.reject(err)
      }
      return this.query(text, SIMPLE, rows, null)
    }
    const name = this.namedStatements ? statement.name : ''
    const prepared = this.queue.prepared
    let parsedName = ''
    let text = null
    if (name === '' || !prepared.has(name)) {
      text = statement.text
      if (name !== '') {
        prepared.add(name)
        parsedName = name
      }
    }
    writeExtended(this.writer, name, text, params, rows, sync)
    this.pipelineOpen = !sync
    return new Promise((resolve, reject) => {
      this.queue.push(new Operation(resolve, reject, EXTENDED, sync, parsedName, rows))
      if (this.corked === 0) this.flush()
    })
  }

  /**
   * Sends a Sync: the runs sent without one settle when it is answered.
   * @returns {Promise<void>}
   */
  sync() {
    if (this.broken || this.copying) return this.unavailable()
    this.writer.bytes(SYNC_MESSAGE)
    this.pipelineOpen = false
    return new Promise((resolve, reject) => {
      this.queue.push(new Operation(resolve, reject, SYNC, true, '', false))
      if (this.corked === 0) this.flush()
    })
  }

  /**
   * Sends text (any number of statements separated by ';') as one
   * simple-protocol Query. Resolves with a result per statement; rejects
   * with the first statement's error, where the server stops.
   * @param {string} text
   * @param {{ rows?: boolean }} [options]
   * @returns {Promise<WireResult[]>}
   */
  simpleQuery(text, options) {
    if (this.broken || this.copying) return this.unavailable()
    return this.query(text, SIMPLE_MANY, options?.rows === true, null)
  }

  /**
   * Runs a COPY … FROM STDIN, sending the source's chunks (strings as
   * UTF-8) as the data: text, CSV or binary, as the statement says. Resolves
   * with rowCount the rows copied. When the source throws, the COPY is
   * failed and the promise rejects with the source's error; the connection
   * stays usable.
   * @param {string} sql
   * @param {Iterable<Buffer | string> | AsyncIterable<Buffer | string>} source
   * @returns {Promise<WireResult>}
   */
  async copyFrom(sql, source) {
    if (this.broken) return this.unavailable()
    if (this.copying || this.queue.length > 0 || this.writer.length > 0) {
      throw new Error('copyFrom needs the connection to itself: other operations are in flight on it')
    }
    this.copying = true
    try {
      return await this.query(sql, COPY, false, source)
    } finally {
      this.copying = false
    }
  }

  /**
   * @param {string} text
   * @param {number} kind  SIMPLE, SIMPLE_MANY or COPY
   * @param {boolean} rows
   * @param {Iterable<Buffer | string> | AsyncIterable<Buffer | string> | null} copySource
   * @returns {Promise<any>}
   */
  query(text, kind, rows, copySource) {
    if (this.pipelineOpen) {
      return Promise.reject(
        new Error('a pipeline is open on this connection: sync() it before a simple-protocol query')
      )
    }
    if (text.includes('\0')) return Promise.reject(new TypeError('a query cannot hold a NUL character'))
    writeQuery(this.writer, text)
    return new Promise((resolve, reject) => {
      const op = new Operation(resolve, reject, kind, true, '', rows)
      op.copySource = copySource
      this.queue.push(op)
      // a COPY has the connection to itself: nothing is batched with it
      if (this.corked === 0 || kind === COPY) this.flush()
    })
  }

  /** @returns {Promise<never>} */
  unavailable() {
    if (this.broken) return Promise.reject(new ConnectionLostError('connection is closed'))
    return Promise.reject(new Error('a COPY is in progress on this connection'))
  }

  /** Holds writes until uncork, so that a batch leaves in one write. */
  cork() {
    this.corked++
  }

  uncork() {
    if (--this.corked === 0) this.flush()
  }

  flush() {
    const { writer, socket } = this
    if (writer.length === 0 || !socket) return
    socket.write(writer.written())
    // Bytes the kernel took at once are not referenced any more, and the
    // writer's buffer serves the next batch; bytes still queued in the
    // socket keep theirs, and the writer moves on to a new one. This spares
    // an allocation and a copy of every batch.
    if (socket.writableLength === 0) writer.reuse()
    else writer.release()
  }

  /**
   * Writes buffer; a promise when the socket's buffer is full, which
   * settles once it has drained (for COPY's back-pressure).
   * @param {Buffer} buffer
   * @returns {Promise<void> | undefined}
   */
  write(buffer) {
    const socket = this.socket
    if (socket === null || this.broken) return undefined
    return socket.write(buffer) ? undefined : drained(socket)
  }

  /**
   * Writes buffers in one system call (corked), without joining them.
   * @param {Buffer[]} buffers
   * @returns {Promise<void> | undefined}  as write
   */
  writeAll(buffers) {
    const socket = this.socket
    if (socket === null || this.broken) return undefined
    socket.cork()
    let room = true
    for (const buffer of buffers) room = socket.write(buffer)
    socket.uncork()
    return room ? undefined : drained(socket)
  }

  /**
   * One backend message (see FrameReader).
   * @param {number} type
   * @param {Buffer} buf
   * @param {number} start  first byte of the body
   * @param {number} end
   */
  handle(type, buf, start, end) {
    switch (type) {
      case 0x44: // D DataRow
        this.queue.dataRow(buf, start)
        break
      case 0x43: // C CommandComplete
        this.queue.complete(tagRowCount(buf, start, end - 1), tagCommand(buf, start, end - 1))
        break
      case 0x5a: // Z ReadyForQuery
        this.transactionStatus = buf[start] === 0x49 ? 'I' : buf[start] === 0x54 ? 'T' : 'E'
        if (this.onReady) this.startupDone()
        else this.queue.ready()
        break
      case 0x31: // 1 ParseComplete
        this.queue.parseComplete()
        break
      case 0x49: // I EmptyQueryResponse
        this.queue.complete(0, '')
        break
      case 0x54: // T RowDescription
        this.queue.rowDescription(buf, start)
        break
      case 0x45: {
        // E ErrorResponse
        const error = new ServerError(errorFields(buf, start, end))
        if (this.onReady) this.startupDone(error)
        else this.queue.error(error)
        break
      }
      case 0x47: // G CopyInResponse
        startCopyIn(this, this.queue.current())
        break
      case 0x52: {
        // R Authentication*
        const authenticator = /** @type {import('./authentication.js').Authenticator} */ (this.authenticator)
        authenticator.respond(buf.readInt32BE(start), buf, start + 4, end, this.writer).then(
          answered => {
            if (answered) this.flush()
          },
          err => this.fail(err)
        )
        break
      }
      case 0x4b: // K BackendKeyData
        this.backendKey = readBackendKey(buf, start, end)
        break
      default: // S ParameterStatus, N Notice, 2 BindComplete, n NoData, COPY TO's messages, …
    }
  }

  /** @param {Error} [err] */
  startupDone(err) {
    const ready = /** @type {(err?: Error) => void} */ (this.onReady)
    this.onReady = null
    ready(err)
  }

  /**
   * The connection is unusable: every operation in flight fails, with the
   * server's own error when it sent one (a terminated backend says why).
   * @param {Error} err
   */
  fail(err) {
    if (!this.broken) {
      this.broken = true
      if (this.onReady) this.startupDone(err)
      this.queue.failAll(err)
    }
    this.socket?.destroy()
  }

  /** Polite close: Terminate, then end the socket. */
  async close() {
    if (!this.socket || this.broken) return
    const socket = this.socket
    this.broken = true
    await new Promise(resolve => {
      socket.once('close', resolve)
      socket.end(TERMINATE)
      setTimeout(() => socket.destroy(), 1000).unref()
    })
  }

  destroy() {
    this.fail(new ConnectionLostError('connection closed by the client'))
  }
}

/**
 * Brings a connection up: the socket (encrypted as the sslmode says), the
 * startup message, authentication, and the server's first ReadyForQuery.
 * One timer covers every step. On failure the connection is destroyed and
 * the error thrown.
 * @param {WireConnection} connection
 * @param {import('./connection-config.js').WireConfig} config
 * @param {number} timeoutMs
 */
async function startSession(connection, config, timeoutMs) {
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
