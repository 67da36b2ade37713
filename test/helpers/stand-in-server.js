// A stand-in for a PostgreSQL server behind a WireConnection, for unit tests
// of what runs statements (the generator's workers, the lab's sessions)
// without a server. The connection writes into a Writable that reads the
// client's messages and answers each Execute or Query with what the test's
// responder says, built from the message builders (backend-messages.js).
// Answers come a turn later, as a socket's reads do; a responder that
// returns null holds the answer until release() (a request left waiting).
import { Writable } from 'node:stream'
import { FrameReader } from '../../lib/wire/frame-reader.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import * as m from './backend-messages.js'

/**
 * What the server answers a statement: its messages (rows, CommandComplete
 * or an ErrorResponse), or null to hold the answer.
 * @typedef {(text: string, params: Array<string | null>) => Buffer[] | null} Responder
 */

/**
 * The server side: the statements it was sent, in order, and the answers held.
 */
export class StandInServer {
  /** @param {Responder} responder */
  constructor(responder) {
    this.responder = responder
    /** @type {{ text: string, params: Array<string | null> }[]} */
    this.statements = []
    /** @type {Array<() => void>} answers held by a responder's null */
    this.held = []
    /** @type {WireConnection[]} */
    this.connections = []
    /** @type {'I' | 'T' | 'E'} what ReadyForQuery says: a responder may change it */
    this.status = /** @type {'I' | 'T' | 'E'} */ ('I')
  }

  /**
   * A connection to it, started up: its backend key is the connection's number.
   * @param {'prepared' | 'extended' | 'simple'} [protocol]
   */
  connect(protocol = 'prepared') {
    const connection = new WireConnection(protocol)
    connection.socket = /** @type {any} */ (new StandInSocket(this, connection))
    connection.backendKey = { pid: this.connections.length + 1, secret: Buffer.alloc(4) }
    this.connections.push(connection)
    return connection
  }

  /** Sends every answer held, in order. */
  release() {
    for (const answer of this.held.splice(0)) answer()
  }
}

class StandInSocket extends Writable {
  /**
   * @param {StandInServer} server
   * @param {WireConnection} connection
   */
  constructor(server, connection) {
    super()
    this.server = server
    this.connection = connection
    /** @type {Map<string, string>} statement texts by name */
    this.parsed = new Map()
    /** @type {Buffer[]} the answer being built, up to a Sync */
    this.pending = []
    this.text = ''
    /** @type {Array<string | null>} */
    this.params = []
    this.reader = new FrameReader({ handle: (type, buf, start, end) => this.message(type, buf, start, end) })
  }

  /**
   * @param {Buffer} chunk
   * @param {BufferEncoding} _encoding
   * @param {(err?: Error | null) => void} callback
   */
  _write(chunk, _encoding, callback) {
    this.reader.push(Buffer.from(chunk))
    callback()
  }

  /**
   * One frontend message.
   * @param {number} type
   * @param {Buffer} buf
   * @param {number} start
   * @param {number} end
   */
  message(type, buf, start, end) {
    const code = String.fromCharCode(type)
    if (code === 'P') {
      const [name, text] = cstrings(buf, start, 2)
      this.parsed.set(name, text)
      this.pending.push(m.parseComplete())
    } else if (code === 'B') {
      this.bind(buf, start)
      this.pending.push(m.bindComplete())
    } else if (code === 'E') {
      this.answer(this.text, this.params)
    } else if (code === 'S') {
      this.send([m.readyForQuery(this.server.status)])
    } else if (code === 'Q') {
      this.answer(buf.toString('utf8', start, end - 1), [])
      this.send([m.readyForQuery(this.server.status)])
    }
  }

  /**
   * @param {Buffer} buf
   * @param {number} start
   */
  bind(buf, start) {
    const [, name] = cstrings(buf, start, 2)
    this.text = this.parsed.get(name) ?? ''
    let at = buf.indexOf(0, buf.indexOf(0, start) + 1) + 1
    at += 2 + 2 * buf.readInt16BE(at)
    const count = buf.readInt16BE(at)
    at += 2
    this.params = []
    for (let i = 0; i < count; i++) {
      const length = buf.readInt32BE(at)
      at += 4
      this.params.push(length < 0 ? null : buf.toString('utf8', at, (at += length)))
    }
  }

  /**
   * @param {string} text
   * @param {Array<string | null>} params
   */
  answer(text, params) {
    this.server.statements.push({ text, params })
    const reply = this.server.responder(text, params)
    if (reply === null) {
      // held: what follows waits behind it, as on one backend
      const gate = new Promise(resolve => this.server.held.push(() => resolve(undefined)))
      this.pending.push(/** @type {any} */ (gate))
    } else {
      this.pending.push(...reply)
    }
  }

  /** @param {Buffer[]} last */
  send(last) {
    const parts = [...this.pending, ...last]
    this.pending = []
    const connection = this.connection
    const deliver = async () => {
      for (const part of parts) {
        if (part instanceof Buffer) connection.reader.push(part)
        else await part
      }
    }
    setImmediate(deliver)
  }
}

/**
 * count null-terminated strings from start.
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} count
 */
function cstrings(buf, start, count) {
  const out = []
  let at = start
  for (let i = 0; i < count; i++) {
    const stop = buf.indexOf(0, at)
    out.push(buf.toString('utf8', at, stop))
    at = stop + 1
  }
  return out
}

/** An answer of one row of one column, as a SELECT's. @param {string | null} value */
export const oneValue = value => [m.dataRow([value]), m.commandComplete('SELECT 1')]
