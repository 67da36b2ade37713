// COPY … FROM STDIN: the source's chunks sent as CopyData messages, with the
// socket's back-pressure respected so that a source of any size streams
// through a bounded amount of memory; and the text format's escaping, for
// callers that build rows.

import { COPY } from './operation.js'
import { MessageWriter } from './writer.js'
import { COPY_DONE, copyDataHeader, writeCopyFail } from './frontend-messages.js'

/** @typedef {import('./operation.js').Operation} Operation */

// Small chunks are gathered into writes of about this size.
const FLUSH_AT = 64 * 1024
// A Buffer at least this large goes out as it is, after a header of its
// own: copying it would cost more than the system call it saves.
const UNCOPIED_AT = 16 * 1024

/**
 * What streaming needs of the connection.
 * @typedef {object} CopyTarget
 * @property {MessageWriter} writer  the connection's, for a CopyFail outside a stream
 * @property {boolean} broken
 * @property {(buffer: Buffer) => Promise<void> | undefined} write  a promise when the socket's buffer is full: wait for
 *   it
 * @property {(buffers: Buffer[]) => Promise<void> | undefined} writeAll  the same for buffers sent in one system call
 * @property {() => void} flush  sends what the connection's writer holds
 */

/**
 * The server waits for COPY data (CopyInResponse): the source of copyFrom
 * streams; a COPY FROM STDIN sent any other way is failed, or the
 * connection would wait for data forever.
 * @param {CopyTarget} target
 * @param {Operation | undefined} op  the operation the server answered
 */
export function startCopyIn(target, op) {
  if (op !== undefined && op.kind === COPY && op.copySource !== null) {
    const source = op.copySource
    op.copySource = null
    new CopyStream(target, op).send(source)
  } else {
    writeCopyFail(target.writer, 'COPY FROM STDIN is only supported through copyFrom')
    target.flush()
  }
}

// One COPY's data on its way. It gathers small chunks in a writer of its
// own: what it holds when the server fails the COPY is dropped, and never
// mixes with the connection's next messages.
class CopyStream {
  /**
   * @param {CopyTarget} target
   * @param {Operation} op
   */
  constructor(target, op) {
    this.target = target
    this.op = op
    this.writer = new MessageWriter(FLUSH_AT + 8192)
  }

  /** The server has failed the COPY already, or the connection is gone. */
  stopped() {
    return this.target.broken || this.op.error !== null
  }

  /**
   * Sends the source as CopyData, then CopyDone; or CopyFail when the
   * source throws, keeping the source's error in the operation. Never
   * rejects: the operation settles when the server answers.
   * @param {Iterable<Buffer | string> | AsyncIterable<Buffer | string>} source
   */
  async send(source) {
    try {
      if (Symbol.asyncIterator in source) {
        for await (const chunk of source) {
          if (this.stopped()) return
          const full = this.push(chunk)
          if (full !== undefined) await full
        }
      } else {
        for (const chunk of source) {
          if (this.stopped()) return
          const full = this.push(chunk)
          if (full !== undefined) await full
        }
      }
      if (this.stopped()) return
      this.writer.bytes(COPY_DONE)
      await this.flush()
    } catch (err) {
      if (this.stopped()) return
      const failure = err instanceof Error ? err : new Error(String(err))
      this.op.copyFailure = failure
      writeCopyFail(this.writer, failure.message)
      await this.flush()
    }
  }

  /**
   * @param {unknown} chunk
   * @returns {Promise<void> | undefined}  wait for it before the next chunk
   */
  push(chunk) {
    const w = this.writer
    if (typeof chunk === 'string') {
      const n = Buffer.byteLength(chunk)
      if (n === 0) return undefined
      if (n >= FLUSH_AT) return this.sendLarge(chunk, n)
      const at = w.begin(0x64) // d CopyData
      w.utf8(chunk, n)
      w.end(at)
    } else if (chunk instanceof Uint8Array) {
      if (chunk.length === 0) return undefined
      if (chunk.length >= UNCOPIED_AT) return this.sendUncopied(chunk)
      const at = w.begin(0x64)
      w.bytes(chunk)
      w.end(at)
    } else {
      throw new TypeError(`a COPY source yields Buffers or strings, not ${chunk === null ? 'null' : typeof chunk}`)
    }
    return w.length >= FLUSH_AT ? this.flush() : undefined
  }

  /**
   * A large chunk in a message of its own, without growing the writer.
   * @param {string | Uint8Array} chunk
   * @param {number} n  its length in bytes
   */
  async sendLarge(chunk, n) {
    await this.flush()
    if (this.stopped()) return
    const message = Buffer.allocUnsafe(5 + n)
    copyDataHeader(message, 0, n)
    if (typeof chunk === 'string') message.write(chunk, 5, 'utf8')
    else message.set(chunk, 5)
    await this.target.write(message)
  }

  /**
   * A large Buffer after the writer's content and its own header, in one
   * system call, the chunk itself not copied.
   * @param {Uint8Array} chunk
   */
  async sendUncopied(chunk) {
    if (this.stopped()) return
    const header = Buffer.allocUnsafe(5)
    copyDataHeader(header, 0, chunk.length)
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)
    const pending = this.writer.length > 0 ? [this.writer.take(), header, data] : [header, data]
    await this.target.writeAll(pending)
  }

  async flush() {
    if (this.writer.length === 0 || this.stopped()) return
    await this.target.write(this.writer.take())
  }
}

/**
 * Waits until the socket's buffer has drained, or the socket is gone.
 * @param {import('node:net').Socket} socket
 * @returns {Promise<void>}
 */
export function drained(socket) {
  return new Promise(resolve => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.on('drain', done)
    socket.on('close', done)
  })
}

const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
/** @type {Record<string, string>} */
const ESCAPES = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/**
 * One value in COPY's text format: \N for NULL, backslash, tab, newline and
 * carriage return escaped.
 * @param {string | number | bigint | boolean | null} value
 * @returns {string}
 */
export function copyTextValue(value) {
  if (value === null) return '\\N'
  if (typeof value !== 'string') return String(value)
  return SPECIAL.test(value) ? value.replace(SPECIALS, c => ESCAPES[c]) : value
}

/**
 * One row in COPY's text format: the values tab-separated, ending in a newline.
 * @param {ReadonlyArray<string | number | bigint | boolean | null>} values
 * @returns {string}
 */
export function copyTextRow(values) {
  let line = ''
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t'
    line += copyTextValue(values[i])
  }
  return line + '\n'
}
