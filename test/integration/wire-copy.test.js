// COPY … FROM STDIN on the wire client, against PostgreSQL 15 and an
// embedded PostgreSQL 18: text rows from an async generator, binary COPY,
// a failing source (CopyFail) and a missing table leave the connection
// usable; COPY's text escaping round-trips; and a source of about 100 MB,
// generated lazily, streams through without the process's memory growing
// with it (back-pressure).
import t from 'tap'
import { createTestDatabase } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { WireConnection, copyTextRow, copyTextValue } from '../../lib/wire/wire-connection.js'

const pg15 = await createTestDatabase(t, 'wire_copy')
const pg18 = await startEmbedded(t)
const servers = [
  { server: 'PostgreSQL 15', url: pg15.url },
  { server: 'PostgreSQL 18', url: pg18.url }
]

/**
 * @param {import('tap').Test} t
 * @param {string} url
 */
async function connect(t, url) {
  const connection = await WireConnection.connect(url, { applicationName: 'pgloadgen-wire-test' })
  t.teardown(() => connection.close())
  return connection
}

/**
 * One tuple of binary COPY: an int4 and a text (null: NULL).
 * @param {number} id
 * @param {string | null} text
 */
function binaryTuple(id, text) {
  const bytes = text === null ? null : Buffer.from(text)
  const tuple = Buffer.alloc(2 + 4 + 4 + 4 + (bytes?.length ?? 0))
  tuple.writeInt16BE(2, 0)
  tuple.writeInt32BE(4, 2)
  tuple.writeInt32BE(id, 6)
  tuple.writeInt32BE(bytes === null ? -1 : bytes.length, 10)
  bytes?.copy(tuple, 14)
  return tuple
}

// signature, flags, header extension length
const PGCOPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)])
const PGCOPY_TRAILER = Buffer.from([0xff, 0xff])

t.test('copyTextRow escapes as COPY text format wants', async t => {
  t.equal(copyTextRow([1, 'a', null, 2n, true]), '1\ta\t\\N\t2\ttrue\n')
  t.equal(
    copyTextRow(['tab\there', 'line\nbreak', 'cr\rhere', 'back\\slash', '\\N']),
    'tab\\there\tline\\nbreak\tcr\\rhere\tback\\\\slash\t\\\\N\n'
  )
  t.equal(copyTextValue(null), '\\N')
  t.equal(copyTextRow([]), '\n')
})

for (const { server, url } of servers) {
  t.test(server, async t => {
    const connection = await connect(t, url)
    await connection.simpleQuery(
      'DROP TABLE IF EXISTS wc_rows; CREATE TABLE wc_rows (id int PRIMARY KEY, label text, note text)'
    )

    t.test('text rows from an async generator', async t => {
      const ROWS = 5000
      async function* rows() {
        for (let i = 1; i <= ROWS; i++)
          yield copyTextRow([i, `row ${i}\twith\ttabs\\ and 'quotes' ✓`, i % 3 === 0 ? null : `n\n${i}`])
      }
      const result = await connection.copyFrom('COPY wc_rows (id, label, note) FROM STDIN', rows())
      t.same([result.rowCount, result.command], [ROWS, 'COPY'], 'rowCount from the COPY tag')
      const [check] = await connection.simpleQuery(
        "SELECT count(*), count(note), sum(id), bool_and(label = 'row ' || id || E'\\twith\\ttabs\\\\ and " +
          "''quotes'' ✓') FROM wc_rows",
        { rows: true }
      )
      t.same(
        check.rows,
        [[String(ROWS), String(ROWS - Math.floor(ROWS / 3)), String((ROWS * (ROWS + 1)) / 2), 't']],
        'every row arrived intact'
      )
      t.equal(
        (await connection.simpleQuery('SELECT note FROM wc_rows WHERE id = 7'))[0].first,
        'n\n7',
        'an escaped newline is a newline again'
      )
    })

    t.test('a synchronous iterable of Buffers, and CSV', async t => {
      await connection.simpleQuery('TRUNCATE wc_rows')
      const lines = ['1,"a, b",x\n', '2,"say ""hi""",\n', '3,plain,z\n'].map(line => Buffer.from(line))
      const result = await connection.copyFrom('COPY wc_rows FROM STDIN (FORMAT csv)', lines)
      t.equal(result.rowCount, 3)
      const [rows] = await connection.simpleQuery('SELECT id, label, note FROM wc_rows ORDER BY id', { rows: true })
      t.same(rows.rows, [
        ['1', 'a, b', 'x'],
        ['2', 'say "hi"', null],
        ['3', 'plain', 'z']
      ])
    })

    t.test('binary COPY', async t => {
      await connection.simpleQuery('TRUNCATE wc_rows')
      function* binary() {
        yield PGCOPY_HEADER
        for (let i = 1; i <= 1000; i++) yield binaryTuple(i, i % 10 === 0 ? null : `bin ${i} ✓`)
        yield PGCOPY_TRAILER
      }
      const result = await connection.copyFrom('COPY wc_rows (id, label) FROM STDIN (FORMAT binary)', binary())
      t.equal(result.rowCount, 1000)
      const [check] = await connection.simpleQuery(
        "SELECT count(*), count(label), bool_and(label IS NULL OR label = 'bin ' || id || ' ✓') FROM wc_rows",
        { rows: true }
      )
      t.same(check.rows, [['1000', '900', 't']], 'the tuples arrived intact')
    })

    t.test("a source that throws: CopyFail, the source's error, a usable connection", async t => {
      await connection.simpleQuery('TRUNCATE wc_rows')
      async function* failing() {
        for (let i = 1; i <= 100; i++) yield copyTextRow([i, 'before the failure', null])
        throw new Error('the generator broke down')
      }
      const failure = await connection
        .copyFrom('COPY wc_rows (id, label, note) FROM STDIN', failing())
        .catch(err => err)
      t.equal(failure.message, 'the generator broke down', "rejects with the source's own error")
      t.equal(connection.transactionStatus, 'I')
      t.equal((await connection.simpleQuery('SELECT count(*) FROM wc_rows'))[0].first, '0', 'nothing was copied')
      const bad = await connection.copyFrom('COPY wc_rows FROM STDIN', /** @type {any} */ ([42])).catch(err => err)
      t.match(bad.message, /yields Buffers or strings, not number/, 'a chunk of the wrong type fails the COPY')
      const again = await connection.copyFrom('COPY wc_rows (id) FROM STDIN', ['1\n', '2\n'])
      t.equal(again.rowCount, 2, 'the next COPY works')
    })

    t.test('bad table, bad data, and a COPY not sent through copyFrom', async t => {
      const missing = await connection.copyFrom('COPY wc_no_such_table FROM STDIN', ['1\n']).catch(err => err)
      t.match(missing, { name: 'ServerError', code: '42P01' }, "a missing table rejects with the server's error")
      const badData = await connection
        .copyFrom(
          'COPY wc_rows (id) FROM STDIN',
          (function* () {
            yield '100\n'
            yield 'not a number\n'
            for (let i = 0; i < 1000; i++) yield `${1000 + i}\n`
          })()
        )
        .catch(err => err)
      t.match(badData, { name: 'ServerError', code: '22P02' }, "bad data rejects with the server's error")
      const stray = await connection.simpleQuery('COPY wc_rows (id) FROM STDIN').catch(err => err)
      t.match(
        stray,
        { name: 'ServerError', message: /only supported through copyFrom/ },
        'a COPY FROM STDIN in simpleQuery is failed, not left hanging'
      )
      t.equal((await connection.run({ name: '', text: 'SELECT $1::int' }, [5])).first, '5', 'the connection goes on')
    })

    t.test('copyFrom needs the connection to itself', async t => {
      const other = await connect(t, url)
      const busy = other.run({ name: '', text: 'SELECT pg_sleep(0.1)' }, [])
      await t.rejects(other.copyFrom('COPY wc_rows (id) FROM STDIN', ['1\n']), /other operations are in flight/)
      await busy
      let release = () => {}
      const gate = new Promise(resolve => {
        release = () => resolve(undefined)
      })
      const copying = other.copyFrom(
        'COPY wc_rows (id) FROM STDIN',
        (async function* () {
          yield '5000\n'
          await gate
          yield '5001\n'
        })()
      )
      await t.rejects(
        other.run({ name: '', text: 'SELECT 1' }, []),
        /a COPY is in progress/,
        'run refused during a COPY'
      )
      await t.rejects(other.simpleQuery('SELECT 1'), /a COPY is in progress/, 'simpleQuery refused during a COPY')
      release()
      t.equal((await copying).rowCount, 2)
      t.equal((await other.simpleQuery('SELECT 1'))[0].first, '1', 'usable after the COPY')
    })
  })
}

t.test('back-pressure: about 100 MB copied without the process growing with it', async t => {
  const connection = await connect(t, pg15.url)
  // Rows are counted and dropped by a trigger: the server keeps nothing.
  await connection.simpleQuery(`
    CREATE SEQUENCE wc_sink_rows;
    CREATE TABLE wc_sink (v text);
    CREATE FUNCTION wc_sink_drop() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM nextval('wc_sink_rows'); RETURN NULL; END $$;
    CREATE TRIGGER wc_sink_drop BEFORE INSERT ON wc_sink FOR EACH ROW EXECUTE FUNCTION wc_sink_drop()`)
  const ROW_BYTES = 256 * 1024
  const ROWS = 400 // 100 MiB
  // One row's bytes, yielded again and again: whatever the process holds
  // beyond them is the client's own buffering.
  const row = Buffer.alloc(ROW_BYTES, 0x61)
  row[ROW_BYTES - 1] = 0x0a
  const rowText = row.toString('latin1')
  let produced = 0
  async function* lazily() {
    for (let i = 0; i < ROWS; i++) {
      produced++
      yield i % 2 === 0 ? row : rowText // Buffers and strings alternate
    }
  }
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 10)
  const result = await connection.copyFrom('COPY wc_sink FROM STDIN', lazily()).finally(() => clearInterval(sampler))
  peak = Math.max(peak, process.memoryUsage().rss)
  t.equal(produced, ROWS, 'the whole source was read')
  t.equal(
    (await connection.simpleQuery('SELECT last_value FROM wc_sink_rows'))[0].first,
    String(ROWS),
    'the server received every row'
  )
  t.equal(result.command, 'COPY')
  // Without back-pressure the socket would queue most of the 100 MiB
  // (measured: about 95 MiB of growth); with it, what remains is garbage
  // not yet collected (about 32 MiB).
  const growthMiB = (peak - before) / 2 ** 20
  t.ok(growthMiB < 64, `the process grew by ${growthMiB.toFixed(1)} MiB while 100 MiB streamed through it`)
})
