// Retention as sidecar actions, on PostgreSQL 15: drop-partitions drops
// exactly the partitions wholly older than the cutoff and delete removes
// exactly the rows older than it, in batches of their own transaction; no
// row newer than the cutoff is touched; the events and the outcome say what
// was removed. Both are refused without yes (CLI, schedule, plan) before
// anything is touched, and every bad input gets one line.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runAction } from '../../lib/sidecar/actions.js'
import { EventLog } from '../../lib/recorder/event-log.js'
import { Sidecar } from '../../lib/sidecar/sidecar.js'
import { parseSchedule } from '../../lib/sidecar/schedule.js'
import { parsePlan } from '../../lib/experiment/plan.js'
import { ensurePartitions, listPartitions, partitionedTableSql } from '../../lib/workloads/partitions.js'
import { createLogger } from '../../lib/log.js'
import { exitCodeFor } from '../../lib/cli/exit-codes.js'
import { runCli, lines, REPO } from '../helpers/cli.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'
import { readEvents } from '../helpers/control.js'

const T0 = Date.parse('2016-01-01T00:00:00Z')
const SECONDS = 360 // six minutes of data…
const HOSTS = 2 // …from two hosts, a row each a second: 720 rows
const log = createLogger({ level: 'silent' })

const db = await createTestDatabase(t, 'retention')
// Every session far from UTC: the actions must read bounds and times in UTC anyway.
await query(db.adminUrl, `ALTER DATABASE ${db.name} SET TimeZone = 'Asia/Tokyo'`)
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-retention-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/**
 * A table of SECONDS × HOSTS rows from T0, partitioned by minute (six with
 * rows and two empty ones ahead, as a workload makes them) or plain; an
 * index on time either way.
 * @param {string} name
 * @param {{ partitioned: boolean }} options
 */
async function makeTable(name, { partitioned }) {
  await withClient(db.url, async client => {
    const sql = async (/** @type {string} */ text, /** @type {unknown[]} */ params = []) =>
      (await client.query(text, params)).rows
    const columns = 'id bigint NOT NULL, time timestamptz NOT NULL, host int NOT NULL, v double precision'
    if (partitioned) {
      await sql(partitionedTableSql({ table: name, columns }))
      await ensurePartitions(sql, {
        table: name,
        intervalS: 60,
        from: new Date(T0),
        to: new Date(T0 + (SECONDS + 120) * 1000)
      })
    } else {
      await sql(`CREATE TABLE ${name} (${columns})`)
    }
    await sql(`CREATE INDEX ON ${name} (time DESC)`)
    await sql(
      `INSERT INTO ${name} SELECT s * ${HOSTS} + h, to_timestamp(${T0 / 1000} + s), h, ` +
        `random() FROM generate_series(0, ${SECONDS - 1}) s, generate_series(1, ${HOSTS}) h`
    )
  })
}

/**
 * The rows at or after a time, with where they are and which transaction
 * wrote them: equal before and after iff none of them was touched.
 * @param {string} table
 * @param {number} fromMs
 */
async function fingerprint(table, fromMs) {
  const { rows } = await query(
    db.url,
    `SELECT count(*)::int AS n, md5(string_agg(id || ':' || xmin || ':' || ctid || ':' || tableoid, ` +
      `',' ORDER BY id)) AS digest FROM ${table} WHERE time >= to_timestamp($1)`,
    [fromMs / 1000]
  )
  return rows[0]
}

/**
 * @param {string} table
 * @param {number} beforeMs
 */
async function rowsBefore(table, beforeMs) {
  return Number(
    (await query(db.url, `SELECT count(*) AS n FROM ${table} WHERE time < to_timestamp($1)`, [beforeMs / 1000])).rows[0]
      .n
  )
}

/**
 * runAction with an events file of its own, collecting what it reports removed.
 * @param {import('../../lib/sidecar/actions.js').ActionSpec} spec
 * @param {string} name
 */
async function run(spec, name) {
  const file = path.join(dir, `${name}.ndjson`)
  const events = new EventLog({ file, log })
  /** @type {Array<[number, string]>} */
  const reported = []
  const outcome = await runAction(spec, {
    connectionString: db.url,
    events,
    log,
    onRowsRemoved: (rows, table) => reported.push([rows, table])
  })
  await events.flush()
  return { outcome, events: await readEvents(file), reported }
}

/** @param {string} table */
async function partitionNames(table) {
  return withClient(db.url, async client =>
    (await listPartitions(async (text, params) => (await client.query(text, params)).rows, table)).map(p => p.name)
  )
}

const CUTOFF = T0 + (SECONDS - 1 - 150) * 1000 // the newest row, 00:05:59, less 150 s: 00:03:29

t.test('drop-partitions drops exactly the partitions wholly older than the cutoff', async t => {
  await makeTable('metrics', { partitioned: true })
  const kept = await fingerprint('metrics', T0 + 3 * 60000)
  const { outcome, events, reported } = await run(
    { action: 'drop-partitions', table: 'metrics', older_than: '150s', yes: true },
    'drop'
  )
  t.equal(outcome.ok, true, `ok; ${outcome.error ?? ''}`)
  t.equal(outcome.removed_rows, 360, 'three minutes of rows removed')
  t.same(
    await partitionNames('metrics'),
    [
      'metrics_p20160101_000300',
      'metrics_p20160101_000400',
      'metrics_p20160101_000500',
      'metrics_p20160101_000600',
      'metrics_p20160101_000700'
    ],
    'the partitions ending at or before 00:03:29 are gone; the one holding it stays'
  )
  t.same(await fingerprint('metrics', T0 + 3 * 60000), kept, 'no row of a kept partition was touched')
  t.equal(
    await rowsBefore('metrics', CUTOFF),
    58,
    'rows older than the cutoff in a partition that straddles it stay (29 s × 2 hosts)'
  )
  t.same(
    reported,
    [
      [120, 'metrics'],
      [120, 'metrics'],
      [120, 'metrics']
    ],
    'each drop reported as it committed'
  )

  t.same(
    events.map(e => [e.kind, e.action, e.table]),
    [
      ['start', 'drop-partitions', 'metrics'],
      ['end', 'drop-partitions', 'metrics']
    ],
    'a start and an end event'
  )
  t.same(events[0].detail, { older_than_s: 150, relative_to: 'data' }, 'the start says what was asked')
  const detail = events[1].detail
  t.equal(events[1].ok, true)
  t.match(
    detail,
    {
      dropped: 3,
      rows: 360,
      rows_counted_by: 'count(*)',
      reference: '2016-01-01T00:05:59.000Z',
      cutoff: '2016-01-01T00:03:29.000Z'
    },
    'the end says what was dropped'
  )
  t.same(
    detail.partitions.map((/** @type {any} */ p) => [p.name, p.from, p.to, p.rows]),
    [
      ['metrics_p20160101_000000', '2016-01-01T00:00:00.000Z', '2016-01-01T00:01:00.000Z', 120],
      ['metrics_p20160101_000100', '2016-01-01T00:01:00.000Z', '2016-01-01T00:02:00.000Z', 120],
      ['metrics_p20160101_000200', '2016-01-01T00:02:00.000Z', '2016-01-01T00:03:00.000Z', 120]
    ],
    'each partition, its bounds and rows'
  )
  t.ok(
    detail.partitions.every((/** @type {any} */ p) => p.bytes > 0 && p.drop_ms >= 0),
    'and bytes'
  )
  t.equal(
    detail.bytes,
    detail.partitions.reduce((/** @type {number} */ n, /** @type {any} */ p) => n + p.bytes, 0),
    'bytes in total'
  )
  t.same(outcome.detail, detail, 'the outcome carries the same detail')

  const again = await run({ action: 'drop-partitions', table: 'metrics', older_than: '150s', yes: true }, 'drop-again')
  t.match(again.outcome, { ok: true, removed_rows: 0 }, 'run again: nothing more to drop')
  t.same(again.reported, [], 'and nothing reported')
})

t.test('drop-partitions relative to the clock, or to the data', async t => {
  await makeTable('clocked', { partitioned: true })
  const data = await run({ action: 'drop-partitions', table: 'clocked', older_than: '1h', yes: true }, 'data-1h')
  t.match(data.outcome, { ok: true, removed_rows: 0 }, 'an hour before the newest row: nothing')
  t.equal((await partitionNames('clocked')).length, 8)
  const clock = await run(
    { action: 'drop-partitions', table: 'clocked', older_than: '1h', relative_to: 'clock', yes: true },
    'clock-1h'
  )
  t.match(clock.outcome, { ok: true, removed_rows: SECONDS * HOSTS }, 'an hour before now: every row of 2016')
  t.same(await partitionNames('clocked'), [], 'every partition, the empty ones ahead too')
  t.equal(clock.events[0].detail.relative_to, 'clock')
})

t.test('delete removes exactly the old rows, in batches, from a plain table', async t => {
  await makeTable('plain', { partitioned: false })
  // Each DELETE statement logs its transaction and its rows.
  await query(db.url, 'CREATE TABLE delete_log (seq serial, xid bigint, n int)')
  await query(
    db.url,
    `CREATE FUNCTION log_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO delete_log (xid, n) SELECT txid_current(), count(*) FROM gone; RETURN NULL; END $$`
  )
  await query(
    db.url,
    'CREATE TRIGGER plain_delete AFTER DELETE ON plain REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE ' +
      'FUNCTION log_delete()'
  )
  const kept = await fingerprint('plain', CUTOFF)
  const { outcome, events, reported } = await run(
    { action: 'delete', table: 'plain', older_than: '150s', batch: 100, yes: true },
    'delete-plain'
  )
  t.equal(outcome.ok, true, `ok; ${outcome.error ?? ''}`)
  t.equal(outcome.removed_rows, 418, 'every row before 00:03:29 (209 s × 2 hosts)')
  t.equal(await rowsBefore('plain', CUTOFF), 0, 'none older is left')
  t.same(await fingerprint('plain', CUTOFF), kept, 'no newer row was touched')
  const batches = (await query(db.url, 'SELECT xid, n FROM delete_log WHERE n > 0 ORDER BY seq')).rows
  t.same(
    batches.map(b => b.n),
    [100, 100, 100, 100, 18],
    'batches of at most 100 rows'
  )
  t.equal(new Set(batches.map(b => b.xid)).size, 5, 'each in a transaction of its own')
  t.same(
    reported.map(([rows]) => rows),
    [100, 100, 100, 100, 18],
    'each batch reported as it committed'
  )
  t.same(
    events.map(e => e.kind),
    ['start', 'end']
  )
  t.same(events[0].detail, { older_than_s: 150, relative_to: 'data', batch: 100, time_column: 'time' })
  t.match(
    events[1].detail,
    {
      rows_deleted: 418,
      batches: 5,
      batch: 100,
      reference: '2016-01-01T00:05:59.000Z',
      cutoff: '2016-01-01T00:03:29.000Z'
    },
    'the end: rows, batches'
  )
  t.type(events[1].detail.duration_s, 'number', 'and how long deleting took')

  const again = await run(
    { action: 'delete', table: 'plain', older_than: '150s', batch: 100, yes: true },
    'delete-again'
  )
  t.match(again.outcome, { ok: true, removed_rows: 0, detail: { batches: 0 } }, 'run again: nothing left to delete')
})

t.test('delete from a partitioned table: leaf by leaf, the same rows', async t => {
  await makeTable('parted', { partitioned: true })
  const kept = await fingerprint('parted', CUTOFF)
  const { outcome, events } = await run(
    { action: 'delete', table: 'parted', older_than: '150s', batch: 100, yes: true },
    'delete-parted'
  )
  t.equal(outcome.ok, true, `ok; ${outcome.error ?? ''}`)
  t.equal(outcome.removed_rows, 418, 'the same rows as from the plain table')
  t.equal(await rowsBefore('parted', CUTOFF), 0)
  t.same(await fingerprint('parted', CUTOFF), kept, 'no newer row touched (a ctid names a row in one partition only)')
  t.equal((await partitionNames('parted')).length, 8, 'no partition dropped')
  // 120 rows: 100 + 20, three times; then the 58 of 00:03.
  t.match(events[1].detail, { rows_deleted: 418, batches: 7 }, 'batches never span partitions')
})

t.test('delete on another time column, a timestamp without time zone', async t => {
  await query(db.url, 'CREATE TABLE readings (ts timestamp NOT NULL, v int)')
  await query(
    db.url,
    "INSERT INTO readings SELECT '2016-01-01'::timestamp + s * interval '1 minute', s FROM generate_series(0, 59) s"
  )
  const { outcome, events } = await run(
    { action: 'delete', table: 'readings', older_than: '30m', time_column: 'ts', yes: true },
    'delete-ts'
  )
  t.match(outcome, { ok: true, removed_rows: 29 }, '00:00 to 00:28: older than 00:59 less 30 minutes')
  t.equal(events[1].detail.cutoff, '2016-01-01T00:29:00.000Z')
  t.equal(
    Number((await query(db.url, "SELECT min(ts) = '2016-01-01 00:29' AS ok FROM readings")).rows[0].ok ? 1 : 0),
    1,
    'the oldest left is the cutoff'
  )
})

t.test('one retention action on a table at a time: a second is skipped', async t => {
  await makeTable('busy', { partitioned: true })
  const before = await fingerprint('busy', T0)
  await withClient(db.url, async holder => {
    // What a running retention action of another process holds.
    await holder.query("SELECT pg_advisory_lock(x'70676c72'::int, 'busy'::regclass::oid::int4)")
    for (const action of ['drop-partitions', 'delete']) {
      const { outcome, events } = await run(
        /** @type {any} */ ({ action, table: 'busy', older_than: '150s', yes: true }),
        `busy-${action}`
      )
      t.match(
        outcome,
        { ok: true, removed_rows: 0, detail: { skipped: 'another retention action on busy is running' } },
        `${action}: skipped`
      )
      t.same(
        events.map(e => [e.kind, e.ok]),
        [
          ['start', undefined],
          ['end', true]
        ],
        'recorded as a run that did nothing'
      )
    }
  })
  t.same(await fingerprint('busy', T0), before, 'nothing touched')
  const { outcome } = await run({ action: 'delete', table: 'busy', older_than: '150s', yes: true }, 'busy-after')
  t.equal(outcome.removed_rows, 418, 'once the other is gone, it runs')
})

t.test('an empty table: nothing to do, ok', async t => {
  await query(db.url, 'CREATE TABLE empty_plain (time timestamptz)')
  const { outcome, events } = await run(
    { action: 'delete', table: 'empty_plain', older_than: '1m', yes: true },
    'empty'
  )
  t.match(outcome, { ok: true, removed_rows: 0 })
  t.match(events[1].detail, { note: 'the table is empty', reference: null })
})

t.test('refusals found on the server: a failed outcome, start and end events, nothing touched', async t => {
  await makeTable('guarded', { partitioned: true })
  const before = await fingerprint('guarded', T0)
  const cases = [
    { spec: { action: 'drop-partitions', table: 'nosuch', older_than: '1m' }, error: /^table nosuch does not exist$/ },
    { spec: { action: 'delete', table: 'nosuch', older_than: '1m' }, error: /^table nosuch does not exist$/ },
    {
      spec: { action: 'drop-partitions', table: 'plain', older_than: '1m' },
      error: /^table plain is not partitioned$/
    },
    {
      spec: { action: 'drop-partitions', table: 'guarded', older_than: '59s' },
      error: /^older_than \(59 s\) is shorter than one partition of guarded \(60 s\): give at least 60 s$/
    },
    {
      spec: { action: 'delete', table: 'guarded', older_than: '1m', time_column: 'nope' },
      error: /^table guarded has no column nope$/
    },
    {
      spec: { action: 'delete', table: 'guarded', older_than: '1m', time_column: 'host' },
      error: /^column host of guarded is integer, not a time$/
    }
  ]
  for (const [i, c] of cases.entries()) {
    const { outcome, events, reported } = await run(/** @type {any} */ ({ ...c.spec, yes: true }), `refused-${i}`)
    t.equal(outcome.ok, false, `${c.spec.action} ${c.spec.table}: fails`)
    t.match(outcome.error, c.error, 'with one line')
    t.equal(outcome.removed_rows, 0)
    t.same(reported, [])
    t.same(
      events.map(e => [e.kind, e.ok]),
      [
        ['start', undefined],
        ['end', false]
      ],
      'a start, and an end with the error'
    )
    t.equal(events[1].error, outcome.error)
  }
  t.same(await fingerprint('guarded', T0), before, 'nothing was touched')
})

t.test('the CLI', async t => {
  await makeTable('cli_parted', { partitioned: true })
  await makeTable('cli_plain', { partitioned: false })
  const before = { parted: await fingerprint('cli_parted', T0), plain: await fingerprint('cli_plain', T0) }
  const eventsFile = path.join(dir, 'cli.ndjson')
  const cli = (/** @type {string[]} */ args) => runCli([...args, '--events', eventsFile], { t })

  for (const args of [
    ['drop-partitions', 'cli_parted', db.url, '--older-than', '2m'],
    ['delete', 'cli_plain', db.url, '--older-than', '2m']
  ]) {
    const result = await cli(args)
    t.equal(result.code, 2, `${args[0]} without --yes: exit 2`)
    t.same(
      lines(result.stderr),
      [
        `pgloadgen: ${args[0]} ${args[0] === 'delete' ? 'deletes rows' : 'drops partitions'} of ${args[1]}: ` +
          `give --yes to let it`
      ],
      'one line'
    )
  }
  t.same(await fingerprint('cli_parted', T0), before.parted, 'nothing dropped')
  t.same(await fingerprint('cli_plain', T0), before.plain, 'nothing deleted')
  t.same(await readEvents(eventsFile), [], 'no event either')

  const bad = [
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', 'soon', '--yes'],
      code: 2,
      line: /^pgloadgen: --older-than: not a duration: "soon"/
    },
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', '0s', '--yes'],
      code: 2,
      line: /^pgloadgen: --older-than must be more than 0$/
    },
    { args: ['delete', 'cli_plain', db.url, '--yes'], code: 2, line: /^pgloadgen: delete needs --older-than/ },
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', '2m', '--batch', '0', '--yes'],
      code: 2,
      line: /^pgloadgen: --batch must be between 1 and 1000000, got 0$/
    },
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', '2m', '--batch', 'lots', '--yes'],
      code: 2,
      line: /^pgloadgen: --batch must be a whole number/
    },
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', '2m', '--time-column', 'a b', '--yes'],
      code: 2,
      line: /^pgloadgen: --time-column: not a column name/
    },
    {
      args: ['drop-partitions', 'cli_parted', db.url, '--older-than', '2m', '--relative-to', 'sideways', '--yes'],
      code: 2,
      line: /^pgloadgen: --relative-to must be data or clock, got "sideways"$/
    },
    {
      args: ['drop-partitions', 'a;b', db.url, '--older-than', '2m', '--yes'],
      code: 2,
      line: /^pgloadgen: not a table name: "a;b"/
    },
    {
      args: ['drop-partitions', 'nosuch', db.url, '--older-than', '2m', '--yes'],
      code: 1,
      line: /table nosuch does not exist$/
    },
    {
      args: ['drop-partitions', 'cli_plain', db.url, '--older-than', '2m', '--yes'],
      code: 1,
      line: /table cli_plain is not partitioned$/
    },
    {
      args: ['drop-partitions', 'cli_parted', db.url, '--older-than', '30s', '--yes'],
      code: 1,
      line: /older_than \(30 s\) is shorter than one partition of cli_parted \(60 s\)/
    },
    {
      args: ['delete', 'cli_plain', db.url, '--older-than', '2m', '--time-column', 'nope', '--yes'],
      code: 1,
      line: /table cli_plain has no column nope$/
    }
  ]
  for (const b of bad) {
    const result = await cli(b.args)
    t.equal(result.code, b.code, `${b.args.join(' ').replace(db.url, 'URL')}: exit ${b.code}`)
    const out = lines(result.stderr)
    t.equal(out.length, 1, `one line: ${out.join(' | ')}`)
    t.match(out[0], b.line)
    t.notMatch(result.stderr, /\n\s+at /, 'no stack trace')
  }
  t.same(await fingerprint('cli_parted', T0), before.parted, 'still nothing dropped')
  t.same(await fingerprint('cli_plain', T0), before.plain, 'still nothing deleted')

  const drop = await cli(['drop-partitions', 'cli_parted', db.url, '--older-than', '150s', '--yes', '--json'])
  t.equal(drop.code, 0, `drop-partitions --yes: exit 0; ${drop.stderr}`)
  t.match(
    JSON.parse(drop.stdout),
    { action: 'drop-partitions', table: 'cli_parted', ok: true, removed_rows: 360, detail: { dropped: 3 } },
    '--json: the outcome'
  )
  t.match(
    drop.stderr,
    /drop-partitions of cli_parted finished in [\d.]+ s: 3 partitions dropped \(360 rows, \d+ bytes\)/
  )
  const del = await cli(['delete', 'cli_plain', db.url, '--older-than', '150s', '--batch', '1000', '--yes', '--json'])
  t.equal(del.code, 0, `delete --yes: exit 0; ${del.stderr}`)
  t.match(JSON.parse(del.stdout), {
    action: 'delete',
    table: 'cli_plain',
    ok: true,
    removed_rows: 418,
    detail: { rows_deleted: 418, batches: 1 }
  })
  t.equal(await rowsBefore('cli_plain', CUTOFF), 0)
  const events = await readEvents(eventsFile)
  t.same(
    events.map(e => `${e.kind} ${e.action} ${e.ok ?? ''}`),
    [
      'start drop-partitions ',
      'end drop-partitions false',
      'start drop-partitions ',
      'end drop-partitions false',
      'start drop-partitions ',
      'end drop-partitions false',
      'start delete ',
      'end delete false',
      'start drop-partitions ',
      'end drop-partitions true',
      'start delete ',
      'end delete true'
    ],
    'events only for what reached the server'
  )
})

t.test('schedules: retention needs yes: true, every bad field named at load', async t => {
  const now = new Date()
  const good = { action: 'delete', table: 'cpu', older_than: '10m', every: '1m', yes: true }
  const [rule] = parseSchedule({ actions: [good] }, now)
  t.same(rule.spec, { action: 'delete', table: 'cpu', older_than: '10m', yes: true }, 'the spec, without its trigger')
  t.equal(rule.everyS, 60)
  const drop = parseSchedule(
    [{ action: 'drop-partitions', table: 'cpu', older_than: 600, relative_to: 'clock', after: '5m', yes: true }],
    now
  )[0]
  t.same(drop.spec, { action: 'drop-partitions', table: 'cpu', older_than: 600, relative_to: 'clock', yes: true })
  const cases = [
    [{ ...good, yes: undefined }, /^actions\[0\]\.yes: delete deletes rows of cpu: say yes: true to let it run$/],
    [{ ...good, yes: 'true' }, /^actions\[0\]\.yes: /],
    [{ ...good, action: 'drop-partitions', yes: false }, /^actions\[0\]\.yes: drop-partitions drops partitions of cpu/],
    [{ ...good, older_than: undefined }, /^actions\[0\]\.older_than: delete needs older_than/],
    [{ ...good, older_than: 'soon' }, /^actions\[0\]\.older_than: not a duration: "soon"/],
    [{ ...good, older_than: 0 }, /^actions\[0\]\.older_than: must be more than 0/],
    [{ ...good, batch: 0 }, /^actions\[0\]\.batch: expected a whole number from 1 to 1000000, got 0/],
    [{ ...good, batch: '100' }, /^actions\[0\]\.batch: /],
    [
      { ...good, relative_to: 'tomorrow' },
      /^actions\[0\]\.relative_to: data \(the newest time in the table\) or clock/
    ],
    [{ ...good, time_column: 'a b' }, /^actions\[0\]\.time_column: not a column name/],
    [{ ...good, table: undefined }, /^actions\[0\]\.table: delete needs a table/],
    [{ ...good, table: 'x y' }, /^actions\[0\]\.table: not a table name/],
    [
      { ...good, action: 'drop-partitions', time_column: 'time' },
      /^actions\[0\]\.time_column: not a field of drop-partitions/
    ],
    [{ ...good, action: 'drop-partitions', batch: 10 }, /^actions\[0\]\.batch: not a field of drop-partitions/],
    [{ ...good, action: 'delete', freeze: true }, /^actions\[0\]\.freeze: not a field of delete/],
    [
      { action: 'vacuum', table: 'cpu', older_than: '10m', every: '1m' },
      /^actions\[0\]\.older_than: only for drop-partitions and delete/
    ],
    [
      { action: 'reindex', every: '1m' },
      /^actions\[0\]\.action: expected one of vacuum, checkpoint, analyze, reset-stats, fillfactor, evict-cache, age-xids, got "reindex" \(retention, with yes: true: drop-partitions, delete\)/
    ]
  ]
  for (const [item, problem] of cases) {
    const err = t.throws(() => parseSchedule({ actions: [item] }, now), { message: problem }, String(problem))
    t.equal(exitCodeFor(err), 2, `${problem}: exit 2`)
  }
  // The sidecar command refuses the file at load: exit 2, one line, before connecting.
  const file = path.join(dir, 'no-yes.yaml')
  await writeFile(file, 'actions:\n  - action: drop-partitions\n    table: cpu\n    older_than: 10m\n    every: 1m\n')
  const result = await runCli(
    ['sidecar', 'postgres://nobody@127.0.0.1:1/none', '--schedule', file, '--http-port', '0'],
    { t }
  )
  t.equal(result.code, 2)
  t.same(lines(result.stderr), [
    'pgloadgen: actions[0].yes: drop-partitions drops partitions of cpu: say yes: true to let it run'
  ])
})

t.test('a schedule runs retention: removals reported, a failure is a failed outcome', async t => {
  await makeTable('scheduled', { partitioned: true })
  const file = path.join(dir, 'scheduled.ndjson')
  const events = new EventLog({ file, log })
  /** @type {number[]} */
  const reported = []
  const rules = parseSchedule(
    [
      { action: 'drop-partitions', table: 'scheduled', older_than: '150s', after: 0, yes: true },
      { action: 'delete', table: 'nosuch', older_than: '150s', after: 0, yes: true }
    ],
    new Date()
  )
  const sidecar = new Sidecar({
    rules,
    context: { connectionString: db.url, events, log, onRowsRemoved: rows => reported.push(rows) },
    stats: () => null,
    diskPath: dir,
    checkIntervalMs: 1000
  })
  sidecar.start()
  await new Promise(resolve => setTimeout(resolve, 100))
  await sidecar.stop(10000)
  await events.flush()
  const ends = (await readEvents(file)).filter(e => e.kind === 'end')
  t.match(
    ends.find(e => e.action === 'drop-partitions'),
    { ok: true, table: 'scheduled', detail: { dropped: 3, rows: 360 } }
  )
  t.match(
    ends.find(e => e.action === 'delete'),
    { ok: false, table: 'nosuch', error: 'table nosuch does not exist' }
  )
  t.same(reported, [120, 120, 120], 'what the drops removed reached the context')
})

t.test('plans: retention steps need yes: true, named at load', async t => {
  const plan = (/** @type {unknown} */ action) => ({
    name: 'retention-check',
    workload: path.join(REPO, 'test/fixtures/workloads/ledger.js'),
    prepare: {
      duration: '1s',
      actions: [{ action: 'delete', table: 'ledger', older_than: '1h', time_column: 'id', yes: true }]
    },
    variants: [{ name: 'a', steps: [{ load: '5s' }, { action }] }]
  })
  const parsed = await parsePlan(plan({ action: 'drop-partitions', table: 'ledger', older_than: '2m', yes: true }), {
    baseDir: REPO
  })
  t.same(
    parsed.variants[0].steps[1].action,
    { action: 'drop-partitions', table: 'ledger', older_than: '2m', yes: true },
    'a step'
  )
  t.same(
    parsed.prepare.actions[0],
    { action: 'delete', table: 'ledger', older_than: '1h', time_column: 'id', yes: true },
    'and a prepare action'
  )
  const unconfirmedPlan = plan({ action: 'drop-partitions', table: 'ledger', older_than: '2m' })
  const unconfirmed = await parsePlan(unconfirmedPlan, { baseDir: REPO }).then(
    () => null,
    err => err
  )
  const refusal =
    'variants[0].steps[1].action.yes: ' + 'drop-partitions drops partitions of ledger: say yes: true to let it run'
  t.equal(unconfirmed?.message, refusal)
  t.equal(exitCodeFor(unconfirmed), 2, 'a plan step not confirmed: exit 2')
  await t.rejects(
    parsePlan(plan({ action: 'delete', table: 'ledger', older_than: 'later', yes: true }), { baseDir: REPO }),
    { message: /^variants\[0\]\.steps\[1\]\.action\.older_than: not a duration/ }
  )
  await t.rejects(
    parsePlan(plan({ action: 'delete', table: 'ledger', older_than: '1m', yes: true, bacth: 5 }), { baseDir: REPO }),
    { message: /^variants\[0\]\.steps\[1\]\.action\.bacth: unknown field$/ }
  )
  await t.rejects(parsePlan(plan({ action: 'vacuum', table: 'ledger', yes: true }), { baseDir: REPO }), {
    message: /^variants\[0\]\.steps\[1\]\.action\.yes: only for drop-partitions and delete$/
  })
})
