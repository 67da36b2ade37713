// The frame reader and the connection's reading of replies, on exchanges
// built from the message builders (test/helpers/backend-messages.js): each
// edge case is a line. No server.
import t from 'tap'
import { Writable } from 'node:stream'
import { FrameReader } from '../../lib/wire/frame-reader.js'
import { WireConnection, ServerError } from '../../lib/wire/wire-connection.js'
import { Authenticator } from '../../lib/wire/authentication.js'
import { parseConnectionString } from '../../lib/wire/connection-config.js'
import { writeStartup } from '../../lib/wire/frontend-messages.js'
import * as m from '../helpers/backend-messages.js'
import { replyStream } from '../../benchmarks/wire-frames.js'

/**
 * What a FrameReader hands on when fed chunks: type and a copy of the body.
 * @param {Buffer[]} chunks
 */
function frames(chunks) {
  /** @type {{ type: string, body: string }[]} */
  const read = []
  const reader = new FrameReader({
    handle: (type, buf, start, end) =>
      read.push({ type: String.fromCharCode(type), body: buf.toString('hex', start, end) })
  })
  for (const chunk of chunks) {
    // a chunk is valid during push only: spoil it after, as the socket's reused buffer would
    const copy = Buffer.from(chunk)
    reader.push(copy)
    copy.fill(0xee)
  }
  return read
}

/** @param {Buffer[]} messages */
const expected = messages => messages.map(b => ({ type: String.fromCharCode(b[0]), body: b.toString('hex', 5) }))

const EXCHANGE = [
  m.parseComplete(),
  m.bindComplete(),
  m.rowDescription(['n', 't']),
  m.dataRow(['42', 'é']),
  m.dataRow([null, '']),
  m.noticeResponse('skipping'),
  m.commandComplete('SELECT 2'),
  m.readyForQuery('I')
]

t.test('the frame reader: a stream cut at every byte, in one chunk, in chunks of every size', async t => {
  const bytes = m.concat(...EXCHANGE)
  t.same(frames([bytes]), expected(EXCHANGE), 'several messages in one chunk')
  const wrong = []
  for (let cut = 0; cut <= bytes.length; cut++) {
    const read = frames([bytes.subarray(0, cut), bytes.subarray(cut)])
    if (JSON.stringify(read) !== JSON.stringify(expected(EXCHANGE))) wrong.push(cut)
  }
  t.same(wrong, [], `cut in two at each of ${bytes.length + 1} places`)
  for (let size = 1; size <= 16; size++) {
    const chunks = []
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
    t.same(frames(chunks), expected(EXCHANGE), `chunks of ${size}`)
  }
  t.same(frames([bytes.subarray(0, 3)]), [], 'a type byte and half a length: nothing yet')
  t.same(frames([Buffer.alloc(0), bytes, Buffer.alloc(0)]), expected(EXCHANGE), 'empty chunks around it')
})

t.test('the frame reader: a push with a length shorter than its buffer', async t => {
  const read = []
  const reader = new FrameReader({ handle: type => read.push(String.fromCharCode(type)) })
  const buffer = Buffer.alloc(64, 0xff)
  const ready = m.readyForQuery('T')
  ready.copy(buffer)
  reader.push(buffer, 3)
  buffer.fill(0xff)
  ready.copy(buffer, 0, 3)
  reader.push(buffer, ready.length - 3)
  t.same(read, ['Z'], 'the stale bytes after each read are not taken for a message')
})

t.test('the frame reader: a huge DataRow across many chunks, and an unknown type', async t => {
  const huge = m.dataRow(['x'.repeat(4 << 20), null])
  const unknown = m.unknownMessage('!', 'what is this')
  const bytes = m.concat(unknown, huge, m.readyForQuery())
  const chunks = []
  for (let at = 0; at < bytes.length; at += 65536) chunks.push(bytes.subarray(at, at + 65536))
  const read = frames(chunks)
  t.same(
    read.map(f => [f.type, f.body.length / 2]),
    [
      ['!', 12],
      ['D', huge.length - 5],
      ['Z', 1]
    ],
    'each message whole, whatever its type'
  )
})

/**
 * A WireConnection on a stand-in socket: what it writes is kept, and
 * serve() hands it a server's bytes in chunks of the given size.
 * @param {'prepared' | 'extended' | 'simple'} [protocol]
 */
function standIn(protocol = 'prepared') {
  const connection = new WireConnection(protocol)
  /** @type {Buffer[]} */
  const sent = []
  connection.socket = /** @type {any} */ (
    new Writable({
      write(chunk, _encoding, callback) {
        sent.push(Buffer.from(chunk))
        callback()
      }
    })
  )
  /**
   * @param {Buffer} bytes
   * @param {number} [size]
   */
  const serve = (bytes, size = bytes.length) => {
    for (let at = 0; at < bytes.length; at += size) connection.reader.push(Buffer.from(bytes.subarray(at, at + size)))
  }
  return { connection, sent, serve }
}

const SUM = { name: 'sum', text: 'SELECT $1::int + 1 AS n' }

t.test('a run reads its reply, however the reply is cut', async t => {
  for (const size of [1, 2, 7, 1000]) {
    const { connection, sent, serve } = standIn()
    const result = connection.run(SUM, [41], { rows: true })
    t.equal(sent.length, 1, 'the run goes out in one write')
    serve(m.selectReply(['n'], [['42']]), size)
    t.same(
      await result,
      { rowCount: 1, first: '42', command: 'SELECT', fields: ['n'], rows: [['42']] },
      `chunks of ${size}`
    )
  }
})

t.test('what the connection does not read in a result leaves it alone', async t => {
  const { connection, serve } = standIn()
  const result = connection.run(SUM, [1])
  const asides = [m.parameterStatus('application_name', 'x'), m.noticeResponse('hm'), m.unknownMessage('!')]
  serve(m.concat(m.parseComplete(), m.bindComplete(), ...asides, m.dataRow(['2']), m.commandComplete('SELECT 1')))
  serve(m.readyForQuery('T'))
  t.same(await result, { rowCount: 1, first: '2', command: 'SELECT' }, 'ParameterStatus, a notice, an unknown type')
  t.equal(connection.transactionStatus, 'T', "ReadyForQuery's status kept")
})

t.test('an ErrorResponse in the middle of a result fails the run, and the next one runs', async t => {
  const { connection, serve } = standIn()
  const failed = connection.run(SUM, [1], { rows: true })
  const error = m.errorResponse('division by zero', '22012', { D: 'a detail' })
  serve(m.concat(m.parseComplete(), m.bindComplete(), m.rowDescription(['n']), m.dataRow(['1']), error))
  serve(m.readyForQuery('I'))
  await t.rejects(failed, { name: 'ServerError', code: '22012', message: 'division by zero' })
  await failed.catch(err => t.ok(err instanceof ServerError && err.detail === 'a detail', 'its detail kept'))
  const next = connection.run(SUM, [2])
  serve(m.concat(m.bindComplete(), m.dataRow(['3']), m.commandComplete('SELECT 1'), m.readyForQuery()))
  t.same(await next, { rowCount: 1, first: '3', command: 'SELECT' }, 'not parsed again: no ParseComplete awaited')
})

t.test('the simple protocol: several results, an empty query, a command tag with counts', async t => {
  const { connection, serve } = standIn('simple')
  const results = connection.simpleQuery('INSERT …; ; BEGIN')
  const inserted = m.commandComplete('INSERT 0 3')
  serve(m.concat(inserted, m.emptyQueryResponse(), m.commandComplete('BEGIN'), m.readyForQuery('T')), 3)
  t.same(await results, [
    { rowCount: 3, first: null, command: 'INSERT' },
    { rowCount: 0, first: null, command: '' },
    { rowCount: 0, first: null, command: 'BEGIN' }
  ])
})

t.test('start-up: a password asked for, then the server ready with its key', async t => {
  const { connection, sent, serve } = standIn()
  const config = parseConnectionString('postgres://alice:secret@127.0.0.1:5432/db', 'pgloadgen')
  connection.authenticator = new Authenticator(config)
  const ready = new Promise((resolve, reject) => {
    connection.onReady = err => (err ? reject(err) : resolve(undefined))
  })
  writeStartup(connection.writer, config)
  connection.flush()
  serve(m.authenticationCleartextPassword())
  await new Promise(resolve => setImmediate(resolve))
  t.equal(sent.at(-1)?.toString('latin1', 5), 'secret\0', 'the PasswordMessage')
  const rest = [m.authenticationOk(), m.parameterStatus('server_version', '15.8'), m.backendKeyData(7, 99)]
  serve(m.concat(...rest, m.readyForQuery()), 5)
  await ready
  t.same(connection.backendKey, { pid: 7, secret: Buffer.from([0, 0, 0, 99]) }, 'BackendKeyData')
})

t.test('start-up refused: the ErrorResponse is what the start-up fails with', async t => {
  const { connection, serve } = standIn()
  const ready = new Promise((resolve, reject) => {
    connection.onReady = err => (err ? reject(err) : resolve(undefined))
  })
  serve(m.errorResponse('sorry, too many clients already', '53300', { S: 'FATAL', V: 'FATAL' }))
  await t.rejects(ready, { code: '53300' })
})

t.test("the micro-benchmark's reply stream reads as a server's replies (benchmarks/wire-frames.js)", async t => {
  const stream = replyStream(3)
  const reply = [
    m.bindComplete(),
    m.dataRow(['100001', 'some text of a row']),
    m.commandComplete('SELECT 1'),
    m.readyForQuery()
  ]
  const second = stream.subarray(m.concat(...reply).length, 2 * m.concat(...reply).length)
  t.same(frames([second]), expected(reply), 'each reply the messages the builders make')
  t.equal(frames([stream]).length, 12, 'four messages a reply')
})
