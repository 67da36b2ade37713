// The wire client against bytes recorded from PostgreSQL 15
// (test/fixtures/wire/*.hex, made by test/fixtures/wire/record.js): every
// byte the client writes must be the recorded client's, and what it reads
// from the recorded server's bytes, delivered whole, a byte at a time or in
// uneven chunks, must give the results below. No server.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { SCENARIOS } from '../fixtures/wire/scenarios.js'
import { parseFixture, formatFixture, messageName } from '../helpers/wire-hex.js'
import { replay, CHUNKINGS } from '../helpers/wire-replay.js'
import { MessageWriter } from '../../lib/wire/writer.js'
import { writeExtended, writeQuery, writeCopyFail, TERMINATE, SYNC_MESSAGE } from '../../lib/wire/frontend-messages.js'
import { FrameReader } from '../../lib/wire/frame-reader.js'
import { errorFields, fieldNames, rowValues, tagCommand, tagRowCount } from '../../lib/wire/backend-messages.js'

/** @type {Record<string, import('../helpers/wire-hex.js').WireMessage[]>} */
const recorded = {}
for (const scenario of SCENARIOS) {
  const file = new URL(`../fixtures/wire/${scenario.name}.hex`, import.meta.url)
  recorded[scenario.name] = parseFixture(await readFile(file, 'utf8'))
}

/**
 * @param {number} rowCount
 * @param {string | null} first
 */
const select = (rowCount, first) => ({ rowCount, first, command: 'SELECT' })
/**
 * @param {string[]} fields
 * @param {Array<Array<string | null>>} values
 */
const rows = (fields, values) => ({ fields, rows: values })
/**
 * @param {string} message
 * @param {string} code
 */
const serverError = (message, code) => ({ error: 'ServerError', message, code })
const ABORTED = 'pipeline aborted: an earlier statement of the pipeline failed, so this one was not run'

/** @type {Record<string, Record<string, unknown>>} */
const EXPECTED = {
  startup: { transactionStatus: 'I' },
  prepared: {
    first: { ...select(1, '42'), ...rows(['n', 't'], [['42', 'é']]) },
    again: select(1, null), // NULL + 1
    big: { ...select(1, '2'), ...rows(['n', 't'], [['2', 'a'.repeat(300)]]) }
  },
  extended: {
    first: select(1, '2'),
    again: { ...select(1, '3'), ...rows(['n', 't'], [['3', 'two']]) }
  },
  pipeline: {
    one: select(1, '2'),
    two: { ...select(1, '3'), ...rows(['n', 't'], [['3', 'b']]) },
    synced: undefined,
    bad: serverError('division by zero', '22012'),
    skipped: { error: 'PipelineAbortedError', message: ABORTED },
    syncedAfter: undefined
  },
  simple: {
    literal: { ...select(1, '6'), ...rows(['n', 't'], [['6', "it's"]]) },
    many: [
      { ...select(1, '1'), ...rows(['a'], [['1']]) },
      { ...select(1, null), ...rows(['b', 'c'], [[null, '2']]) }
    ],
    empty: [{ rowCount: 0, first: null, command: '' }],
    begin: [{ rowCount: 0, first: null, command: 'BEGIN' }],
    inTransaction: 'T',
    commit: [{ rowCount: 0, first: null, command: 'COMMIT' }],
    after: 'I'
  },
  errors: {
    divide: serverError('division by zero', '22012'),
    syntax: serverError('syntax error at or near "SELEC"', '42601'),
    notice: [{ rowCount: 0, first: null, command: 'DROP TABLE' }],
    missing: serverError('relation "pgloadgen_wire_no_such_table" does not exist', '42P01'),
    failed: 'E',
    refused: serverError('current transaction is aborted, commands ignored until end of transaction block', '25P02'),
    after: select(1, '2'),
    status: 'I'
  },
  copy: {
    copied: { rowCount: 5, first: null, command: 'COPY' },
    failed: { error: 'Error', message: 'the source broke' },
    rows: [
      {
        ...select(5, '1'),
        ...rows(
          ['id', 'note'],
          [
            ['1', 'one'],
            ['2', 'two é'],
            ['3', null],
            ['4', 'tab\there, back\\slash\nnew\rline'],
            ['5', null]
          ]
        )
      }
    ]
  }
}

t.test('each recorded exchange, replayed: the same bytes sent, the same results read', async t => {
  for (const scenario of SCENARIOS) {
    for (const [chunkingName, chunking] of Object.entries(CHUNKINGS)) {
      const { results, socket } = await replay(recorded[scenario.name], scenario, chunking)
      t.equal(socket.mismatch, null, `${scenario.name}, ${chunkingName}: every byte sent as recorded`)
      t.ok(socket.complete(), `${scenario.name}, ${chunkingName}: the whole exchange, Terminate included`)
      t.same(results, EXPECTED[scenario.name], `${scenario.name}, ${chunkingName}: results`)
    }
  }
})

t.test('the recordings hold the messages each exchange is about', async t => {
  const names = (/** @type {string} */ scenario, /** @type {'>' | '<'} */ from) =>
    new Set(recorded[scenario].filter(m => m.from === from).map(messageName))
  t.same([...names('startup', '>')], ['StartupMessage', 'Terminate'])
  t.same([...names('startup', '<')], ['AuthenticationOk', 'ParameterStatus', 'BackendKeyData', 'ReadyForQuery'])
  const extended = ['Bind', 'Describe', 'Execute', 'Parse', 'StartupMessage', 'Sync', 'Terminate']
  t.same([...names('prepared', '>')].sort(), extended)
  t.ok(names('prepared', '<').has('RowDescription') && names('prepared', '<').has('DataRow'), 'RowDescription, DataRow')
  t.ok(names('simple', '>').has('Query') && names('simple', '<').has('EmptyQueryResponse'), 'Query, EmptyQueryResponse')
  for (const name of ['ErrorResponse', 'NoticeResponse']) t.ok(names('errors', '<').has(name), name)
  for (const name of ['CopyData', 'CopyDone', 'CopyFail']) t.ok(names('copy', '>').has(name), name)
  t.ok(names('copy', '<').has('CopyInResponse'), 'CopyInResponse')
  const parses = recorded.prepared.filter(m => messageName(m) === 'Parse')
  t.equal(parses.length, 1, 'a named statement is parsed once per connection')
})

/**
 * The bytes of the recording's client messages from the index-th one named
 * first on, up to and including the first named last.
 * @param {string} scenario
 * @param {string} first
 * @param {string} last
 * @param {number} [index]
 */
function clientBytes(scenario, first, last, index = 0) {
  const sent = recorded[scenario].filter(m => m.from === '>')
  const start = sent.filter(m => messageName(m) === first)[index]
  const from = sent.indexOf(start)
  const to = sent.findIndex((m, i) => i >= from && messageName(m) === last)
  return Buffer.concat(sent.slice(from, to + 1).map(m => m.bytes))
}

t.test('the writer builds the recorded messages, growing from a small buffer', async t => {
  const w = new MessageWriter(8)
  writeExtended(w, 'wire_sum', 'SELECT $1::int + 1 AS n, $2::text AS t', [41, 'é'], true, true)
  t.same(w.take(), clientBytes('prepared', 'Parse', 'Sync'), 'Parse, Bind, Describe, Execute, Sync')
  writeExtended(w, 'wire_sum', null, [null, 'x'], false, true)
  t.same(w.take(), clientBytes('prepared', 'Bind', 'Sync', 1), 'Bind with a NULL, Execute, Sync')
  writeQuery(w, 'BEGIN')
  t.same(w.take(), clientBytes('simple', 'Query', 'Query', 3), 'Query')
  writeCopyFail(w, 'the source broke')
  t.same(w.take(), clientBytes('copy', 'CopyFail', 'CopyFail'), "CopyFail quoting the source's error")
  t.same(TERMINATE, clientBytes('startup', 'Terminate', 'Terminate'), 'Terminate')
  t.same(SYNC_MESSAGE, clientBytes('pipeline', 'Sync', 'Sync'), 'Sync')
})

t.test("an integer parameter's bytes are its decimal text's, as String() writes it", async t => {
  /** @param {number} n */
  const expected = n => {
    const text = String(n)
    const bytes = Buffer.alloc(4 + text.length)
    bytes.writeInt32BE(text.length)
    bytes.write(text, 4, 'latin1')
    return bytes
  }
  const edges = [0, -0, 1, -1, 9, 10, 99, 100, 101, 65535, -65536, 2 ** 31, -(2 ** 31), 2 ** 32 + 7, 1e15 - 1, 1e15]
  edges.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1)
  // every length from 1 to 16 digits, both signs, from a fixed sequence
  let seed = 12345
  for (let digits = 1; digits <= 16; digits++) {
    for (let i = 0; i < 50; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648
      const n = Math.min(Number.MAX_SAFE_INTEGER, Math.floor((seed / 2147483648) * 10 ** digits))
      edges.push(n, -n)
    }
  }
  // a small buffer, so that the digits also land after a growth
  const w = new MessageWriter(2)
  const wrong = []
  for (const n of edges) {
    w.param(n)
    const got = w.take()
    if (!got.equals(expected(n))) wrong.push(`${n}: ${got.toString('hex')}`)
  }
  t.same(wrong, [], `${edges.length} integers`)
  w.param(1.5)
  t.same(w.take(), expected(1.5), 'a fraction goes as String() writes it')
  w.param(2 ** 60)
  t.same(w.take(), expected(2 ** 60), 'an integer beyond 2^53 too')
})

/**
 * The recorded server messages of a scenario, cut by a FrameReader fed the
 * given chunks: each message's type and a copy of its body.
 * @param {string} scenario
 * @param {number} chunkSize
 * @param {boolean} [oneBuffer]  every chunk read into the same longer buffer,
 *   whose bytes after it are stale, and pushed with its length (as the socket does)
 */
function readBack(scenario, chunkSize, oneBuffer = false) {
  /** @type {{ type: string, body: Buffer }[]} */
  const read = []
  const reader = new FrameReader({
    handle: (type, buf, start, end) => {
      read.push({ type: String.fromCharCode(type), body: Buffer.from(buf.subarray(start, end)) })
    }
  })
  const bytes = Buffer.concat(recorded[scenario].filter(m => m.from === '<').map(m => m.bytes))
  const readBuffer = Buffer.alloc(8192, 0xff)
  for (let at = 0; at < bytes.length; at += chunkSize) {
    const chunk = bytes.subarray(at, at + chunkSize)
    if (oneBuffer) {
      chunk.copy(readBuffer)
      reader.push(readBuffer, chunk.length)
      readBuffer.fill(0xff) // what a later read would write over it
    } else {
      reader.push(Buffer.from(chunk))
    }
  }
  return read
}

t.test('the frame reader cuts the recorded server bytes into their messages, however they arrive', async t => {
  for (const scenario of SCENARIOS.map(s => s.name)) {
    const whole = recorded[scenario]
      .filter(m => m.from === '<')
      .map(m => ({ type: String.fromCharCode(m.bytes[0]), body: m.bytes.subarray(5) }))
    for (const size of [1, 4, 5, 6, 17, 4096]) {
      t.same(readBack(scenario, size), whole, `${scenario}, chunks of ${size}`)
      t.same(readBack(scenario, size, true), whole, `${scenario}, chunks of ${size} in one read buffer`)
    }
  }
})

t.test('the decoders read the recorded messages', async t => {
  /**
   * @param {string} scenario
   * @param {string} type
   */
  const of = (scenario, type) => readBack(scenario, 4096).filter(m => m.type === type)
  const [description] = of('prepared', 'T')
  t.same(fieldNames(description.body, 0), ['n', 't'], 'RowDescription: the column names')
  const [row] = of('prepared', 'D')
  t.same(rowValues(row.body, 0), ['42', 'é'], 'DataRow: the values, UTF-8')
  const nullRow = of('simple', 'D').find(m => rowValues(m.body, 0)[0] === null)
  t.same(nullRow && rowValues(nullRow.body, 0), [null, '2'], 'DataRow: NULL')
  // a tag ends at its terminating zero
  const tags = of('copy', 'C').map(({ body }) => {
    const end = body.length - 1
    return [tagCommand(body, 0, end), tagRowCount(body, 0, end)]
  })
  t.same(
    tags,
    [
      ['CREATE TABLE', 0],
      ['COPY', 5],
      ['SELECT', 5]
    ],
    'CommandComplete: the command and its count'
  )
  const [divide] = of('errors', 'E')
  const divideFields = { S: 'ERROR', V: 'ERROR', C: '22012', M: 'division by zero' }
  t.match(errorFields(divide.body, 0, divide.body.length), divideFields, 'ErrorResponse')
  const [notice] = of('errors', 'N')
  const noticeFields = { S: 'NOTICE', C: '00000', M: 'table "pgloadgen_wire_no_such_table" does not exist, skipping' }
  t.match(errorFields(notice.body, 0, notice.body.length), noticeFields, 'NoticeResponse')
  const [copyIn] = of('copy', 'G')
  t.equal(copyIn.body[0], 0, 'CopyInResponse: text format')
  t.same(of('startup', 'Z')[0].body, Buffer.from('I'), 'ReadyForQuery: idle')
  const statuses = ['I', 'I', 'I', 'I', 'T', 'E', 'E', 'I', 'I']
  t.same(
    of('errors', 'Z').map(m => m.body.toString()),
    statuses,
    'ReadyForQuery: in a transaction, in a failed one'
  )
})

t.test('the fixture format reads back what it writes, and refuses a message of the wrong length', async t => {
  for (const { name, about } of SCENARIOS) {
    t.same(parseFixture(formatFixture(about, recorded[name])), recorded[name], name)
  }
  t.throws(() => parseFixture('< ReadyForQuery 5a 00000006 49\n'), /ReadyForQuery of 6 bytes says 7/)
  t.throws(() => parseFixture('< ParseComplete 5a 00000005 49\n'), /ParseComplete holds a ReadyForQuery/)
  t.throws(() => parseFixture('? Sync 53 00000004\n'), /line 1: not a message/)
})
