// The partition library time-series workloads share, on PostgreSQL 15 and
// on the embedded 18: the parent's DDL, partitions made aligned on the
// epoch, idempotently and once each when two processes ask at once, read
// back by listPartitions in UTC whatever the session's time zone, with the
// parent's indexes on every partition; and its refusals.
import t from 'tap'
import pg from 'pg'
import {
  partitionedTableSql,
  ensurePartitions,
  listPartitions,
  partitionName,
  MAX_NEW_PARTITIONS
} from '../../lib/workloads/partitions.js'
import { createTestDatabase } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'

const MINUTE = 60000
const T0 = Date.parse('2016-01-01T00:00:00Z')

/**
 * A connection and its sql function, as a SetupContext gives one; the
 * session's time zone is far from UTC, so that a bound read in local time
 * would show.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 * @param {string} url
 */
async function connect(t, url) {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  t.teardown(() => client.end().catch(() => {}))
  await client.query("SET TimeZone = 'America/St_Johns'")
  /** @type {import('../../lib/workloads/partitions.js').Sql} */
  const sql = async (text, params) => (await client.query(text, params)).rows
  return { client, sql }
}

/**
 * Every check, on one server.
 * @param {Tap.Test} t
 * @param {string} url
 */
async function checkServer(t, url) {
  const { sql } = await connect(t, url)

  await t.test('partitionedTableSql: a table partitioned by range of its time column', async t => {
    const statement = partitionedTableSql({
      table: 'cpu',
      columns: 'time timestamptz NOT NULL, tags_id integer, usage_user double precision'
    })
    t.equal(
      statement,
      'CREATE TABLE IF NOT EXISTS "cpu" (time timestamptz NOT NULL, tags_id integer, ' +
        'usage_user double precision) PARTITION BY RANGE ("time")'
    )
    await sql(statement)
    await sql(statement) // IF NOT EXISTS
    const [row] = await sql(
      "SELECT relkind, pg_get_partkeydef('cpu'::regclass) AS key FROM pg_class WHERE oid = 'cpu'::regclass"
    )
    t.equal(row.relkind, 'p', 'partitioned')
    t.match(row.key, /^RANGE \("?time"?\)$/, 'by range of time')
    await sql(
      partitionedTableSql({ table: 'public.readings', columns: 'ts timestamp NOT NULL, v real', timeColumn: 'ts' })
    )
    t.match(
      (await sql("SELECT pg_get_partkeydef('readings'::regclass) AS key"))[0].key,
      /^RANGE \(ts\)$/,
      'by another column, schema-qualified name'
    )
    t.throws(() => partitionedTableSql({ table: 'cpu; DROP TABLE x', columns: 'time timestamptz' }), /not a table name/)
    t.throws(
      () => partitionedTableSql({ table: 'cpu', columns: 'time timestamptz', timeColumn: 'a b' }),
      /not a column name/
    )
    t.throws(() => partitionedTableSql({ table: 'cpu', columns: '' }), /columns/)
  })

  // An index made before any partition exists.
  await sql('CREATE INDEX IF NOT EXISTS cpu_tags_id_time_idx ON cpu (tags_id, time DESC)')

  await t.test('ensurePartitions: created, aligned on the epoch, named after their lower bound', async t => {
    const { created } = await ensurePartitions(sql, {
      table: 'cpu',
      intervalS: 60,
      from: new Date(T0 + 30000),
      to: new Date(T0 + 3 * MINUTE)
    })
    t.same(
      created,
      ['cpu_p20160101_000000', 'cpu_p20160101_000100', 'cpu_p20160101_000200'],
      '[00:00:30, 00:03) needs three minutes'
    )
    const parts = await listPartitions(sql, 'cpu')
    t.same(
      parts.map(p => p.name),
      created,
      'listed in order of their bounds'
    )
    for (const [i, p] of parts.entries()) {
      t.ok(p.from instanceof Date && p.to instanceof Date, 'bounds are Dates')
      t.equal(p.from.getTime(), T0 + i * MINUTE, `${p.name} starts on its minute (UTC, whatever the session's zone)`)
      t.equal(p.to.getTime() - p.from.getTime(), MINUTE, 'and spans one interval')
    }
    // Rows land where the bounds say, read by the server itself.
    await sql(
      "INSERT INTO cpu SELECT g, 1, 0.5 FROM generate_series('2016-01-01 00:00:00+00'::timestamptz, " +
        "'2016-01-01 00:02:59+00', '1 s') g"
    )
    const routed = await sql(
      'SELECT tableoid::regclass::text AS part, min(time) AS lo, max(time) AS hi, count(*)::int AS n FROM cpu GROUP ' +
        'BY 1 ORDER BY 2'
    )
    t.same(
      routed.map(r => r.part),
      created,
      'each partition got rows'
    )
    for (const [i, r] of routed.entries()) {
      t.equal(r.n, 60, `${r.part}: sixty rows`)
      t.ok(
        r.lo.getTime() >= parts[i].from.getTime() && r.hi.getTime() < parts[i].to.getTime(),
        `${r.part}: its rows are within its bounds`
      )
    }
  })

  await t.test('ensurePartitions: idempotent; a wider range adds only what is missing', async t => {
    const again = await ensurePartitions(sql, {
      table: 'cpu',
      intervalS: 60,
      from: new Date(T0),
      to: new Date(T0 + 3 * MINUTE)
    })
    t.same(again.created, [], 'nothing new')
    const more = await ensurePartitions(sql, {
      table: 'cpu',
      intervalS: 60,
      from: new Date(T0 + 90000),
      to: new Date(T0 + 5 * MINUTE + 1)
    })
    t.same(
      more.created,
      ['cpu_p20160101_000300', 'cpu_p20160101_000400', 'cpu_p20160101_000500'],
      'the end is exclusive: 00:05:00.001 needs the 00:05 partition'
    )
    t.equal((await listPartitions(sql, 'cpu')).length, 6, 'six partitions')
    t.same(
      (
        await ensurePartitions(sql, {
          table: 'cpu',
          intervalS: 60,
          from: new Date(T0 + MINUTE),
          to: new Date(T0 + MINUTE)
        })
      ).created,
      [],
      'an empty range makes nothing'
    )
  })

  await t.test('indexes made on the parent are on every partition, before and after', async t => {
    await sql('CREATE INDEX IF NOT EXISTS cpu_time_idx ON cpu (time DESC)')
    await ensurePartitions(sql, {
      table: 'cpu',
      intervalS: 60,
      from: new Date(T0 + 6 * MINUTE),
      to: new Date(T0 + 7 * MINUTE)
    })
    const parts = await listPartitions(sql, 'cpu')
    t.equal(parts.length, 7)
    const parents = (
      await sql("SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'cpu'::regclass ORDER BY 1")
    ).map(r => r.name)
    t.same(parents, ['cpu_tags_id_time_idx', 'cpu_time_idx'], 'two indexes on the parent')
    for (const p of parts) {
      const attached = await sql(
        `SELECT pg_get_indexdef(i.indexrelid) AS def, parent.relname AS parent
        FROM pg_index i JOIN pg_inherits h ON h.inhrelid = i.indexrelid JOIN pg_class parent ON parent.oid = h.inhparent
        WHERE i.indrelid = $1::regclass ORDER BY parent.relname`,
        [p.name]
      )
      t.same(
        attached.map(r => r.parent),
        parents,
        `${p.name}: both indexes, attached to the parent's`
      )
      t.match(attached[0].def, /\(tags_id, "?time"? DESC\)/, 'with the same columns')
    }
    // The planner can use a partition's index through the parent (sixty
    // rows: a sequential scan would be cheaper unless forbidden).
    await sql('SET enable_seqscan = off')
    t.teardown(() => sql('RESET enable_seqscan').catch(() => {}))
    const [plan] = await sql(
      "EXPLAIN (FORMAT JSON) SELECT * FROM cpu WHERE time > '2016-01-01 00:02:58+00' AND time < " +
        "'2016-01-01 00:02:59+00'"
    )
    t.match(JSON.stringify(plan), /cpu_p20160101_000200_time_idx/, 'an index scan of the pruned partition')
  })

  await t.test('two processes at once: every partition made once, no error', async t => {
    const a = await connect(t, url)
    const b = await connect(t, url)
    const range = { table: 'cpu', intervalS: 60, from: new Date(T0 + 10 * MINUTE), to: new Date(T0 + 40 * MINUTE) }
    const [ra, rb] = await Promise.all([ensurePartitions(a.sql, range), ensurePartitions(b.sql, range)])
    const all = [...ra.created, ...rb.created]
    t.equal(new Set(all).size, all.length, `no partition reported twice (${ra.created.length} + ${rb.created.length})`)
    t.equal(all.length, 30, 'thirty partitions made between them')
    const listed = (await listPartitions(sql, 'cpu')).filter(p => p.from.getTime() >= range.from.getTime())
    t.same(listed.map(p => p.name).sort(), all.sort(), 'exactly those exist')
    t.same((await ensurePartitions(a.sql, range)).created, [], 'and a third call makes none')
  })

  await t.test('any interval of whole seconds, aligned on multiples of it since the epoch', async t => {
    await sql(partitionedTableSql({ table: 'odd', columns: 'time timestamptz NOT NULL' }))
    const from = new Date('2016-03-05T07:08:09.500Z')
    const { created } = await ensurePartitions(sql, {
      table: 'odd',
      intervalS: 7,
      from,
      to: new Date(from.getTime() + 30000)
    })
    const parts = await listPartitions(sql, 'odd')
    t.equal(parts.length, created.length)
    t.ok(
      parts[0].from.getTime() <= from.getTime() && parts.at(-1)?.to.getTime() >= from.getTime() + 30000,
      'the range is covered'
    )
    for (const p of parts) t.equal(p.from.getTime() % 7000, 0, `${p.name}: a multiple of 7 s since 1970`)
    for (let i = 1; i < parts.length; i++) t.equal(parts[i].from.getTime(), parts[i - 1].to.getTime(), 'no gap')
    await sql(partitionedTableSql({ table: 'daily', columns: 'day date NOT NULL', timeColumn: 'day' }))
    const days = await ensurePartitions(sql, {
      table: 'daily',
      intervalS: 86400,
      from: new Date('2016-01-01T12:00:00Z'),
      to: new Date('2016-01-03T00:00:00Z'),
      timeColumn: 'day'
    })
    t.same(days.created, ['daily_p20160101_000000', 'daily_p20160102_000000'], 'a date key, by days')
    t.same(
      (await listPartitions(sql, 'daily')).map(p => p.from.toISOString()),
      ['2016-01-01T00:00:00.000Z', '2016-01-02T00:00:00.000Z']
    )
  })

  await t.test('a timestamp without time zone holds UTC', async t => {
    await ensurePartitions(sql, {
      table: 'readings',
      intervalS: 3600,
      from: new Date(T0),
      to: new Date(T0 + 2 * 3600000),
      timeColumn: 'ts'
    })
    const parts = await listPartitions(sql, 'public.readings')
    t.same(
      parts.map(p => [p.name, p.from.toISOString()]),
      [
        ['readings_p20160101_000000', '2016-01-01T00:00:00.000Z'],
        ['readings_p20160101_010000', '2016-01-01T01:00:00.000Z']
      ]
    )
    await sql("INSERT INTO readings VALUES ('2016-01-01 00:59:59', 1), ('2016-01-01 01:00:00', 2)")
    t.same(
      (await sql('SELECT tableoid::regclass::text AS p FROM readings ORDER BY ts')).map(r => r.p),
      ['readings_p20160101_000000', 'readings_p20160101_010000']
    )
  })

  await t.test('refusals', async t => {
    const range = { from: new Date(T0), to: new Date(T0 + MINUTE) }
    await t.rejects(ensurePartitions(sql, { table: 'cpu', intervalS: 0, ...range }), RangeError, 'interval 0')
    await t.rejects(
      ensurePartitions(sql, { table: 'cpu', intervalS: 1.5, ...range }),
      RangeError,
      'a fraction of a second'
    )
    await t.rejects(
      ensurePartitions(sql, { table: 'cpu', intervalS: 60, from: new Date('nope'), to: range.to }),
      TypeError,
      'an invalid date'
    )
    await t.rejects(
      ensurePartitions(sql, {
        table: 'cpu',
        intervalS: 1,
        from: new Date(T0),
        to: new Date(T0 + (MAX_NEW_PARTITIONS + 1) * 1000)
      }),
      /more than 10000/,
      'too many at once'
    )
    await t.rejects(ensurePartitions(sql, { table: 'nosuch', intervalS: 60, ...range }), /table nosuch does not exist/)
    await sql('CREATE TABLE plain (time timestamptz)')
    await t.rejects(
      ensurePartitions(sql, { table: 'plain', intervalS: 60, ...range }),
      /table plain is not partitioned/
    )
    await t.rejects(listPartitions(sql, 'plain'), /table plain is not partitioned/)
    await t.rejects(listPartitions(sql, 'nosuch'), /does not exist/)
    await t.rejects(
      ensurePartitions(sql, { table: 'cpu', intervalS: 60, ...range, timeColumn: 'tags_id' }),
      /cpu is partitioned by time, not tags_id/
    )
    await t.rejects(
      ensurePartitions(sql, { table: 'cpu', intervalS: 300, ...range }),
      /overlaps .* in part: its partitions have another width/,
      'a width that cuts through existing partitions'
    )
    t.same(
      (await ensurePartitions(sql, { table: 'cpu', intervalS: 30, ...range })).created,
      [],
      'a narrower range already covered needs nothing'
    )
    await t.rejects(
      ensurePartitions(sql, {
        table: 'daily',
        intervalS: 3600,
        from: new Date(T0),
        to: new Date(T0 + 1),
        timeColumn: 'day'
      }),
      /whole days/
    )
    await sql('CREATE TABLE by_id (id bigint) PARTITION BY RANGE (id)')
    await t.rejects(listPartitions(sql, 'by_id'), /partitioned by id of type bigint, not a time/)
    t.throws(() => partitionName('x'.repeat(50), new Date(T0)), /longer than 63 bytes/)
    t.equal((await listPartitions(sql, 'cpu')).length, 37, 'nothing was made by a refused call')
  })
}

t.test('PostgreSQL 15', async t => {
  const db = await createTestDatabase(t, 'partitions')
  await checkServer(t, db.url)
})

t.test('embedded PostgreSQL 18', async t => {
  const { url } = await startEmbedded(t)
  await checkServer(t, url)
})
