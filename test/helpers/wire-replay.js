// Replays a recorded exchange (test/fixtures/wire/*.hex) to a WireConnection
// without a server: the connection writes into a ReplaySocket, a Writable
// that holds every byte against what the client sent in the recording, and
// hands the connection's FrameReader the server's recorded bytes once the
// client has sent what the server answered, cut into chunks as a test asks.
import { Writable } from 'node:stream'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { parseConnectionString } from '../../lib/wire/connection-config.js'
import { Authenticator } from '../../lib/wire/authentication.js'
import { writeStartup } from '../../lib/wire/frontend-messages.js'
import { USER, DATABASE } from '../fixtures/wire/scenarios.js'

/** @typedef {import('./wire-hex.js').WireMessage} WireMessage */

/**
 * Cuts bytes into the chunks a socket might deliver.
 * @typedef {(bytes: Buffer) => Buffer[]} Chunking
 */

/** @type {Record<string, Chunking>} */
export const CHUNKINGS = {
  'all at once': bytes => [bytes],
  'a byte at a time': bytes => [...bytes].map(b => Buffer.from([b])),
  // lengths that cut type bytes, length fields and bodies alike
  'chunks of 1, 2, 3, 5, 8, 13 bytes': bytes => {
    const chunks = []
    const sizes = [1, 2, 3, 5, 8, 13]
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = sizes[i % sizes.length]
      chunks.push(bytes.subarray(at, at + size))
      at += size
    }
    return chunks
  }
}

export class ReplaySocket extends Writable {
  /**
   * @param {WireMessage[]} messages  the recording
   * @param {(chunk: Buffer) => void} deliver  where the server's bytes go
   * @param {Chunking} chunking
   * @param {(mismatch: string) => void} onMismatch  the client sent what the recording does not hold
   */
  constructor(messages, deliver, chunking, onMismatch) {
    super()
    this.deliver = deliver
    this.onMismatch = onMismatch
    this.chunking = chunking
    /** @type {Buffer} everything the client sent in the recording */
    this.expected = Buffer.concat(messages.filter(m => m.from === '>').map(m => m.bytes))
    /** @type {{ after: number, bytes: Buffer }[]} the server's messages, each after that many of the client's bytes */
    this.replies = []
    let sent = 0
    for (const m of messages) {
      if (m.from === '>') sent += m.bytes.length
      else this.replies.push({ after: sent, bytes: m.bytes })
    }
    this.received = 0
    /** @type {string | null} where the client's bytes first differed from the recording */
    this.mismatch = null
    this.scheduled = false
  }

  /**
   * @param {Buffer} chunk
   * @param {BufferEncoding} _encoding
   * @param {(err?: Error | null) => void} callback
   */
  _write(chunk, _encoding, callback) {
    if (this.mismatch === null) {
      const want = this.expected.subarray(this.received, this.received + chunk.length)
      if (!want.equals(chunk)) {
        let i = 0
        while (i < chunk.length && chunk[i] === want[i]) i++
        const at = this.received + i
        this.mismatch =
          `byte ${at} of the client's: sent ${chunk.subarray(i, i + 16).toString('hex')}, ` +
          `recorded ${this.expected.subarray(at, at + 16).toString('hex') || '(nothing)'}`
        // no answer will come: the connection fails rather than wait
        setImmediate(() => this.onMismatch(/** @type {string} */ (this.mismatch)))
      }
    }
    this.received += chunk.length
    if (!this.scheduled) {
      this.scheduled = true
      // the server answers later, as a socket's reads come in later turns
      setImmediate(() => this.answer())
    }
    callback()
  }

  answer() {
    this.scheduled = false
    let n = 0
    while (n < this.replies.length && this.replies[n].after <= this.received) n++
    if (n === 0 || this.mismatch !== null) return
    const bytes = Buffer.concat(this.replies.splice(0, n).map(r => r.bytes))
    for (const piece of this.chunking(bytes)) {
      // a socket's chunk is valid during the call only (the client reads
      // into one reused buffer): what the reader keeps, it must copy
      const chunk = Buffer.from(piece)
      this.deliver(chunk)
      chunk.fill(0xee)
    }
  }

  /** Whether the client sent every recorded byte and nothing else, and got every reply. */
  complete() {
    return this.mismatch === null && this.received === this.expected.length && this.replies.length === 0
  }
}

/**
 * Replays one recording: a WireConnection starts up (as startSession does,
 * with the ReplaySocket for a socket), runs the scenario, and closes.
 * @param {WireMessage[]} messages
 * @param {import('../fixtures/wire/scenarios.js').Scenario} scenario
 * @param {Chunking} chunking
 */
export async function replay(messages, scenario, chunking) {
  const config = parseConnectionString(`postgres://${USER}@127.0.0.1:5432/${DATABASE}`, 'pgloadgen')
  const connection = new WireConnection(scenario.protocol)
  const socket = new ReplaySocket(
    messages,
    chunk => connection.reader.push(chunk),
    chunking,
    mismatch => connection.fail(new Error(`not the recorded exchange: ${mismatch}`))
  )
  connection.socket = /** @type {any} */ (socket)
  connection.authenticator = new Authenticator(config)
  await new Promise((resolve, reject) => {
    connection.onReady = err => (err ? reject(err) : resolve(undefined))
    writeStartup(connection.writer, config)
    connection.flush()
  })
  const results = await scenario.run(connection)
  await connection.close()
  return { results, socket }
}
