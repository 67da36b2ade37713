// The tsbs-cpu workload's parts, without the CLI: its binary COPY encoder
// and its text rows round-trip through PostgreSQL 15 exactly (timestamps to
// the microsecond, doubles bit for bit, NULL), rows split across chunks
// included; its stream of rows is TSBS's order and shape, the same for the
// same seed, and its disorder and real clock do what they say; its
// maintenance makes partitions ahead as simulated time advances.
import t from 'tap'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { Db } from '../../lib/workloads/db.js'
import { BinaryCopyWriter, POSTGRES_EPOCH_MS } from '../../lib/workloads/tsbs-cpu/binary-copy.js'
import { BinaryRows, TextRows } from '../../lib/workloads/tsbs-cpu/copy-rows.js'
import { insertSql, INSERT_MAX_ROWS } from '../../lib/workloads/tsbs-cpu/insert-rows.js'
import { CpuStream, FIELD_COUNT } from '../../lib/workloads/tsbs-cpu/stream.js'
import { Random, normalQuantile } from '../../lib/workloads/tsbs-cpu/random.js'
import { hostTags } from '../../lib/workloads/tsbs-cpu/tags.js'
import { setup } from '../../lib/workloads/tsbs-cpu/setup.js'
import { maintainPartitions } from '../../lib/workloads/tsbs-cpu/partitioning.js'
import { OPTIONS, configure } from '../../lib/workloads/tsbs-cpu/config.js'
import { TAGS_SQL } from '../../lib/workloads/tsbs-cpu/schema.js'
import { optionValues } from '../../lib/workloads/options.js'
import { listPartitions } from '../../lib/workloads/partitions.js'
import { createLogger } from '../../lib/log.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'

const db = await createTestDatabase(t, 'tsbs_encoding')
const START = Date.parse('2016-01-01T00:00:00Z')

/** @param {number} value */
function float8Hex(value) {
  const buf = Buffer.alloc(8)
  buf.writeDoubleBE(value)
  return buf.toString('hex')
}

/** @param {bigint} micros  since 2000-01-01 */
function int64Hex(micros) {
  const buf = Buffer.alloc(8)
  buf.writeBigInt64BE(micros)
  return buf.toString('hex')
}

/**
 * @template T
 * @param {(db: Db) => Promise<T>} fn
 */
async function withDb(fn) {
  const connection = await WireConnection.connect(db.url)
  try {
    return await fn(new Db(connection))
  } finally {
    await connection.close()
  }
}

/**
 * A stream for tests: hosts with ids 1..n.
 * @param {Partial<import('../../lib/workloads/tsbs-cpu/stream.js').StreamOptions> & { hosts?: number }} options
 */
function stream({ hosts = 10, ...options } = {}) {
  return new CpuStream({
    tagIds: Int32Array.from({ length: hosts }, (_, i) => i + 1),
    intervalMs: 10000,
    startMs: START,
    firstEpoch: 0,
    clock: 'simulated',
    seed: 7,
    missing: 0,
    outOfOrder: 0,
    ...options
  })
}

/** A sink that keeps every row. */
function collector() {
  /** @type {Array<{ timeMs: number, tagsId: number, values: number[] }>} */
  const rows = []
  return {
    rows,
    row: (/** @type {number} */ timeMs, /** @type {number} */ tagsId, /** @type {Float64Array} */ values) => {
      rows.push({ timeMs, tagsId, values: [...values] })
    }
  }
}

t.test('the binary COPY encoder: every value back exactly, rows split across chunks', async t => {
  await query(
    db.url,
    'CREATE TABLE binary_round_trip (n int4, t timestamptz, i int4, b int8, d float8, s text, z float8)'
  )
  const doubles = [
    0,
    -0,
    1 / 3,
    -2.5,
    Math.PI,
    Number.MIN_VALUE,
    -Number.MAX_VALUE,
    1e-300,
    123456789.12345679,
    NaN,
    Infinity,
    -Infinity,
    2 ** 53
  ]
  // microseconds since 2000-01-01: before it, at it, with odd microseconds, far off
  const times = [-1n, 0n, 1n, 505958400123457n, -946684800000000n, 3000000000000001n]
  const ints = [0, -1, 2147483647, -2147483648, 42]
  const bigs = [0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, 4294967296, -4294967297]
  const texts = ['', 'plain', 'tab\there', 'new\nline', 'ünïcödé ✓', 'back\\slash']
  const rows = doubles.map((d, n) => ({
    n,
    t: times[n % times.length],
    i: ints[n % ints.length],
    b: bigs[n % bigs.length],
    d,
    s: texts[n % texts.length],
    z: n % 3 === 0 ? null : d
  }))
  // chunks of 40 bytes: most tuples, and some fields, cross a chunk's end
  const writer = new BinaryCopyWriter(40)
  writer.begin()
  for (const row of rows) {
    writer.tuple(7)
    writer.int4(row.n)
    writer.timestamptzMicros(Number(row.t))
    writer.int4(row.i)
    writer.int8(row.b)
    writer.float8(row.d)
    writer.text(row.s)
    if (row.z === null) writer.null()
    else writer.float8(row.z)
  }
  const chunks = writer.end()
  t.ok(chunks.length > rows.length, `${chunks.length} chunks for ${rows.length} rows`)
  t.ok(
    chunks.every(chunk => chunk.length <= 40),
    'no chunk is larger than asked'
  )
  const copied = await withDb(db => db.copyFrom('COPY binary_round_trip FROM STDIN WITH (FORMAT binary)', chunks))
  t.equal(copied.rowCount, rows.length, 'the server took every row')
  const back = (
    await query(
      db.url,
      `SELECT n, encode(timestamptz_send(t), 'hex') AS t, i, b::text AS b, encode(float8send(d), 'hex') AS d, s,
    CASE WHEN z IS NULL THEN NULL ELSE encode(float8send(z), 'hex') END AS z FROM binary_round_trip ORDER BY n`
    )
  ).rows
  for (const [n, row] of rows.entries()) {
    const got = back[n]
    t.equal(got.t, int64Hex(row.t), `row ${n}: timestamptz to the microsecond`)
    t.equal(got.i, row.i, `row ${n}: int4`)
    t.equal(got.b, String(row.b), `row ${n}: int8`)
    t.equal(got.d, float8Hex(row.d), `row ${n}: float8 ${row.d} bit for bit`)
    t.equal(got.s, row.s, `row ${n}: text`)
    t.equal(
      got.z,
      row.z === null ? null : float8Hex(row.z),
      `row ${n}: ${row.z === null ? 'NULL' : 'a value'} in a nullable column`
    )
  }
  const millis = await query(
    db.url,
    "SELECT encode(timestamptz_send('2016-01-01T00:00:00.123Z'::timestamptz), 'hex') AS t"
  )
  const w = new BinaryCopyWriter()
  w.begin()
  w.timestamptz(Date.parse('2016-01-01T00:00:00.123Z'))
  t.equal(
    w
      .end()[0]
      .subarray(19 + 4, 19 + 12)
      .toString('hex'),
    millis.rows[0].t,
    'timestamptz from Unix milliseconds'
  )
  t.equal(POSTGRES_EPOCH_MS, Date.parse('2000-01-01T00:00:00Z'))
})

t.test('cpu rows, binary and text, and the INSERT statement, into the same table', async t => {
  await query(
    db.url,
    `CREATE TABLE cpu_rows (time timestamptz, tags_id integer, ` +
      `${Array.from({ length: FIELD_COUNT }, (_, f) => `f${f} double precision`).join(', ')})`
  )
  const values = Float64Array.from([0, -0, 100, 1 / 3, 99.5, -1e-300, NaN, Infinity, 7, 1024])
  const expected = [...values].map(float8Hex)
  const read = async (/** @type {number} */ tagsId) => {
    const row = (
      await query(
        db.url,
        `SELECT extract(epoch FROM time)::float8 * 1000 AS ms, ` +
          `${Array.from({ length: FIELD_COUNT }, (_, f) => `encode(float8send(f${f}), 'hex') AS f${f}`).join(', ')} ` +
          `FROM cpu_rows WHERE tags_id = $1`,
        [tagsId]
      )
    ).rows
    t.equal(row.length, 1, `one row of host ${tagsId}`)
    return row[0]
  }
  const binary = new BinaryRows()
  binary.begin()
  binary.row(START + 10000, 1, values)
  await withDb(db => db.copyFrom('COPY cpu_rows FROM STDIN WITH (FORMAT binary)', binary.end()))
  const text = new TextRows()
  text.begin()
  text.row(START + 20500, 2, values)
  await withDb(db => db.copyFrom('COPY cpu_rows FROM STDIN', text.end()))
  for (const [tagsId, ms, how] of [
    [1, START + 10000, 'binary'],
    [2, START + 20500, 'text']
  ]) {
    const row = await read(/** @type {number} */ (tagsId))
    t.equal(row.ms, ms, `${how}: the time`)
    t.same(
      Array.from({ length: FIELD_COUNT }, (_, f) => row[`f${f}`]),
      expected,
      `${how}: every double bit for bit (-0, 1/3, NaN, Infinity…)`
    )
  }
  t.equal(INSERT_MAX_ROWS, 5461, '65535 bind parameters, 12 a row')
  t.match(
    insertSql(2),
    /VALUES \(\$1, \$2, .*\$12\), \(\$13, .*\$24\)$/,
    'one parameter per value, numbered row by row'
  )
})

t.test('the stream: TSBS order and shape, one seed one data set', async t => {
  const first = collector()
  stream().take(2500, first)
  t.equal(first.rows.length, 2500)
  const orderHolds = first.rows.every(
    (row, i) => row.timeMs === START + Math.floor(i / 10) * 10000 && row.tagsId === 1 + (i % 10)
  )
  t.ok(orderHolds, 'time ascending, one row per host per interval, hosts in order')
  t.ok(
    first.rows.every(row => row.values.every(v => Number.isInteger(v) && v >= 0 && v <= 100)),
    "usage fields are whole numbers 0..100 (TSBS writes the walks' whole part)"
  )
  // one host's field from one interval to the next: a step of a normal walk (whole parts differ by a few at most)
  let largest = 0
  for (let i = 10; i < first.rows.length; i++) {
    for (let f = 0; f < FIELD_COUNT; f++)
      largest = Math.max(largest, Math.abs(first.rows[i].values[f] - first.rows[i - 10].values[f]))
  }
  t.ok(largest >= 2 && largest <= 5, `consecutive points of a host differ by a random walk's step (largest ${largest})`)
  const again = collector()
  const same = stream()
  same.take(1000, again)
  same.take(1500, again)
  t.equal(
    JSON.stringify(again.rows),
    JSON.stringify(first.rows),
    'the same seed gives the same rows, whatever the batches'
  )
  const other = collector()
  stream({ seed: 8 }).take(100, other)
  t.notSame(
    other.rows.map(r => r.values),
    first.rows.slice(0, 100).map(r => r.values),
    'another seed, other values'
  )
  const resumed = collector()
  stream({ firstEpoch: 5 }).take(10, resumed)
  t.ok(
    resumed.rows.every(row => row.timeMs === START + 50000),
    'a stream that goes on after rows in the table starts at its first epoch'
  )
})

t.test('the stream: missing and late points in the stated fractions; the real clock', async t => {
  const s = stream({ missing: 0.1, outOfOrder: 0.3, hosts: 100 })
  const sink = collector()
  let late = 0
  let sent = 0
  for (let batch = 0; batch < 10; batch++) {
    const before = sink.rows.length
    const { rows } = s.take(5000, sink)
    t.equal(rows, 5000, 'a batch is full')
    let newest = -Infinity
    for (const row of sink.rows.slice(before)) {
      if (row.timeMs < newest) late++
      newest = Math.max(newest, row.timeMs)
    }
    sent += rows
  }
  const missingFraction = s.skipped / s.points
  t.ok(Math.abs(missingFraction - 0.1) < 0.01, `missing: ${missingFraction.toFixed(3)} of the points never sent`)
  t.ok(Math.abs(s.late / sent - 0.3) < 0.01, `out of order: ${(s.late / sent).toFixed(3)} of the rows sent late`)
  t.ok(Math.abs(late / sent - 0.3) < 0.02, `${(late / sent).toFixed(3)} of the rows arrive after a later time`)
  const keys = new Set(sink.rows.map(row => `${row.timeMs}/${row.tagsId}`))
  t.equal(keys.size, sink.rows.length, 'no point is sent twice')

  let now = START + 25000
  const real = stream({ clock: 'real', hosts: 10, now: () => now })
  t.equal(real.due(), 30, 'at 25 s, the points of 0, 10 and 20 s are due')
  const got = collector()
  t.equal(real.take(1000, got).rows, 30, 'a batch takes what is due')
  t.equal(real.take(1000, got).rows, 0, 'then nothing until the next interval')
  now += 10000
  t.equal(real.take(4, got).rows, 4, 'no more than the batch size')
  t.equal(real.take(1000, got).rows, 6)
  t.equal(real.frontierMs(), START + 40000, "partitions must reach the next point's time")
})

t.test("tags: TSBS's, the same for a host in every run", async t => {
  const tags = hostTags(7)
  t.equal(tags[0], 'host_7')
  t.same(hostTags(7), tags, 'drawn from the host number')
  t.match(tags[2], new RegExp(`^${tags[1]}[a-z]$`), "the datacenter is one of its region's")
  t.ok(Number(tags[3]) < 100 && Number(tags[7]) < 20 && Number(tags[8]) < 2, 'rack of 100, service of 20, version of 2')
})

t.test('normal variates: mean 0, variance 1', async t => {
  t.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-6, 'the 97.5 % quantile')
  const random = new Random(1)
  let sum = 0
  let squares = 0
  const n = 200000
  for (let i = 0; i < n; i++) {
    const x = random.normal()
    sum += x
    squares += x * x
  }
  t.ok(Math.abs(sum / n) < 0.01, `mean ${(sum / n).toFixed(4)}`)
  t.ok(Math.abs(squares / n - 1) < 0.01, `variance ${(squares / n).toFixed(4)}`)
})

t.test('configure refuses what cannot be run', async t => {
  const given = (/** @type {Record<string, unknown>} */ options) => () =>
    configure({ options: optionValues(OPTIONS, options) })
  for (const [options, problem] of /** @type {Array<[Record<string, unknown>, RegExp]>} */ ([
    [
      { 'insert-method': 'insert', 'batch-size': 5462 },
      /--batch-size: at most 5461 rows with --insert-method insert \(65535 bind parameters, 12 a row\), got 5462/
    ],
    [{ 'batch-size': 2000000 }, /--batch-size: at most 1000000 rows with --insert-method copy-binary/],
    [{ interval: '0' }, /--interval: at least 1ms/],
    [{ missing: 1 }, /--missing: below 1/],
    [{ start: '2016-13-45T00:00:00Z' }, /--start: not a valid time/],
    [{ start: '2016-01-01', clock: 'real' }, /--start: the real clock starts now/],
    [{ 'partition-interval': '1.5s' }, /--partition-interval: a whole number of seconds/]
  ]))
    t.throws(given(options), problem, JSON.stringify(options))
  t.throws(given({ 'insert-method': 'csv' }), /--insert-method: one of copy-binary, copy, insert/)
  t.equal(given({ 'insert-method': 'insert', 'batch-size': 5461 })().batchSize, 5461, 'the most an INSERT carries')
  const defaults = given({ seed: 3 })()
  t.same(
    { ...defaults },
    {
      hosts: 100,
      intervalMs: 10000,
      clock: 'simulated',
      startMs: Date.parse('2016-01-01T00:00:00Z'),
      batchSize: 10000,
      insertMethod: 'copy-binary',
      lateWindowMs: 3600000,
      outOfOrder: 0,
      missing: 0,
      partitionIntervalS: null,
      premake: 4,
      seed: 3
    },
    "the defaults: TSBS's"
  )
  t.equal(given({ start: 'now' })().clock, 'real', '--start now is the real clock')
  t.equal(
    given({ start: '2020-02-02T10:00' })().startMs,
    Date.parse('2020-02-02T10:00:00Z'),
    'a time without a zone is UTC'
  )
  t.equal(
    given({ start: '2020-02-02T10:00:00+02:00' })().startMs,
    Date.parse('2020-02-02T08:00:00Z'),
    'with one, as it says'
  )
})

t.test('maintenance: partitions --premake intervals ahead, more as simulated time advances', async t => {
  const partitioned = await createTestDatabase(t, 'tsbs_maintain')
  await withClient(partitioned.url, async client => {
    const sql = async (/** @type {string} */ text, /** @type {unknown[]} */ params = []) =>
      (await client.query(text, params)).rows
    await sql(TAGS_SQL)
    const config = configure({
      options: optionValues(OPTIONS, { hosts: 5, 'batch-size': 10, 'partition-interval': '1h', premake: 2, seed: 1 })
    })
    const log = createLogger({ level: 'warn' })
    const shared = await setup({ sql, config, log, defines: {}, concurrency: 1 })
    // one instant for every pass: no pace is measured, only --premake and the batch in flight count
    const clock = Date.now()
    const bounds = async () =>
      (await listPartitions(sql, 'tsbs_cpu')).map(
        p => `${p.from.toISOString().slice(11, 16)}-${p.to.toISOString().slice(11, 16)}`
      )
    await maintainPartitions({ sql, config, shared, log }, clock)
    t.same(
      await bounds(),
      ['00:00-01:00', '01:00-02:00', '02:00-03:00'],
      'before any row: the first hour and two ahead'
    )
    // five hours of rows handed out: 1800 intervals of 5 hosts
    shared.stream.take(1800 * 5, { row() {} })
    await maintainPartitions({ sql, config, shared, log }, clock)
    t.same(
      (await bounds()).slice(3),
      ['04:00-05:00', '05:00-06:00', '06:00-07:00', '07:00-08:00'],
      "after: from the newest row's hour to two hours past the next row"
    )
    await maintainPartitions({ sql, config, shared, log }, clock)
    t.equal((await bounds()).length, 7, 'a pass with nothing new to do makes nothing')
  })
})
