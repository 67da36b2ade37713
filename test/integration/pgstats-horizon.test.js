// What holds back the xmin horizon, lock waits and multixact ages, read by
// the stats collector from real servers: the machine's PostgreSQL 15 and an
// embedded PostgreSQL 18 with prepared transactions and logical decoding.
// An idle-in-transaction session with a snapshot is the oldest backend
// holder once other transactions have run, with its pid and
// application_name, in the snapshot and on /metrics; a prepared
// transaction shows with its gid, a logical slot with its catalog_xmin
// age; a session waiting behind an ACCESS EXCLUSIVE lock counts as one
// waiter, its blocker named; multixact ages are numbers.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import client from 'prom-client'
import pg from 'pg'
import { StatsCollector } from '../../lib/pgstats/collector.js'
import { createLogger } from '../../lib/log.js'
import { waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { parsePrometheusText, sampleValue } from '../helpers/prom.js'

const HOLDER = 'holder-under-test'
const BLOCKER = 'blocker-under-test'
const WAITER = 'waiter-under-test'
const GID = 'gid-under-test'
const SLOT = 'slot_under_test'
// transactions run after the holder took its snapshot
const AGED = 50

const profileDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-horizon-'))
t.teardown(() => rm(profileDir, { recursive: true, force: true }))
const profile = path.join(profileDir, 'horizon.conf')
await writeFile(
  profile,
  [
    'max_connections = 50',
    'max_prepared_transactions = 5',
    'wal_level = logical',
    'max_replication_slots = 4',
    ''
  ].join('\n')
)
const pg18 = await startEmbedded(t, { profile })
const pg15 = await createTestDatabase(t, 'horizon')

const SERVERS = [
  { version: 15, url: pg15.url, datname: pg15.name, shared: true },
  { version: 18, url: pg18.url, datname: 'pgloadgen', shared: false }
]

/**
 * A session of its own, closed at teardown.
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {string} applicationName
 */
async function session(t, url, applicationName) {
  const c = new pg.Client({ connectionString: url, application_name: applicationName })
  c.on('error', () => {})
  await c.connect()
  t.teardown(() => c.end().catch(() => {}))
  const pid = Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
  return { c, pid }
}

// the statements whose figures this file reads
const STATEMENTS = ['horizon', 'locks', 'xid_tables', 'xid_databases', 'bgwriter', 'user_tables']

/**
 * A collector that polls only when told (tick), stopped at teardown.
 * @param {import('tap').Test} t
 * @param {string} url
 */
async function startCollector(t, url) {
  const registry = new client.Registry()
  const collector = new StatsCollector({
    connectionString: url,
    intervalS: 3600,
    registry,
    log: createLogger({ level: 'error' })
  })
  t.teardown(() => collector.stop())
  await collector.start()
  const poll = async () => {
    await collector.tick()
    const snapshot = collector.latest()
    if (!snapshot) throw new Error('no snapshot after a poll')
    const families = parsePrometheusText(await registry.metrics())
    // (relation_size waits for a table locked exclusively, and times out: not one of these)
    const errors = (families.get('pgloadgen_pgstats_poll_errors_total')?.samples ?? [])
      .filter(s => s.value > 0 && STATEMENTS.includes(s.labels.query))
      .map(s => s.labels.query)
    return { snapshot, families, errors, horizonRows: collector.rows('horizon') }
  }
  return { collector, poll }
}

/**
 * Commits n transactions, each with a transaction id.
 * @param {string} url @param {number} n
 */
const burnXids = (url, n) =>
  query(url, `DO $$ BEGIN FOR i IN 1..${n} LOOP PERFORM txid_current(); COMMIT; END LOOP; END $$`)

for (const server of SERVERS) {
  t.test(`PG ${server.version}`, async t => {
    const { poll } = await startCollector(t, server.url)
    const prepared = Number(
      (await query(server.url, "SELECT current_setting('max_prepared_transactions')::int AS n")).rows[0].n
    )
    const walLevel = String((await query(server.url, "SELECT current_setting('wal_level') AS l")).rows[0].l)
    if (!server.shared) {
      t.ok(
        prepared > 0 && walLevel === 'logical',
        'the embedded server has prepared transactions and logical decoding, for the checks the shared one cannot run'
      )
    }

    t.test('an idle-in-transaction session with a snapshot is the oldest backend holder', async t => {
      const holder = await session(t, server.url, HOLDER)
      await holder.c.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
      await holder.c.query('SELECT count(*) FROM pg_class')
      await burnXids(server.url, AGED)
      const { snapshot, families, errors } = await poll()
      t.same(errors, [], 'none of the statements read here failed')
      const backends = snapshot.horizon.filter(h => h.kind === 'backend')
      const mine = backends.findIndex(h => h.pid === holder.pid)
      t.ok(mine >= 0, `the holder is listed (pid ${holder.pid})`)
      const entry = backends[mine]
      t.match(
        entry,
        {
          kind: 'backend',
          pid: holder.pid,
          applicationName: HOLDER,
          state: 'idle in transaction',
          name: null,
          datname: server.datname
        },
        'its pid, application_name, state and database'
      )
      t.ok((entry?.xminAge ?? 0) >= AGED, `its xmin is at least ${AGED} transactions old (${entry?.xminAge})`)
      t.ok(
        typeof entry?.xactAgeS === 'number' && entry.xactAgeS >= 0,
        `how long its transaction has been open (${entry?.xactAgeS} s)`
      )
      if (server.shared) {
        // other test files share this server: older holders may exist, never in our database
        const older = backends.slice(0, mine)
        t.same(
          older.filter(h => h.datname === server.datname),
          [],
          'the oldest backend holder of its database'
        )
        t.ok(
          older.every(h => (h.xminAge ?? 0) >= (entry?.xminAge ?? 0)),
          'holders listed before it are older'
        )
      } else {
        t.equal(mine, 0, 'the oldest backend holder of the server')
      }
      const ages = snapshot.horizon.map(h => h.xminAge ?? -1)
      t.same(
        ages,
        [...ages].sort((a, b) => b - a),
        'oldest first'
      )

      const labels = {
        kind: 'backend',
        pid: String(holder.pid),
        application_name: HOLDER,
        name: '',
        datname: server.datname
      }
      t.equal(
        sampleValue(families, 'pg_xmin_holder_age', labels),
        entry?.xminAge,
        'pg_xmin_holder_age of the holder on /metrics'
      )
      t.equal(
        sampleValue(families, 'pg_xmin_holder_xact_age_seconds', labels),
        entry?.xactAgeS,
        'pg_xmin_holder_xact_age_seconds'
      )
      const byKind = sampleValue(families, 'pg_xmin_horizon_age', { kind: 'backend' }) ?? -1
      t.equal(byKind, backends[0]?.xminAge, `pg_xmin_horizon_age{kind="backend"}: the oldest backend's (${byKind})`)
      t.ok(byKind >= (entry?.xminAge ?? Infinity), "at least the holder's age")
      t.ok(
        (sampleValue(families, 'pg_xmin_horizon_oldest_age') ?? -1) >= byKind,
        'pg_xmin_horizon_oldest_age over every kind'
      )
      for (const kind of ['prepared', 'slot'])
        t.type(
          sampleValue(families, 'pg_xmin_horizon_age', { kind }),
          'number',
          `pg_xmin_horizon_age{kind="${kind}"} exported (0 when none)`
        )

      await holder.c.query('ROLLBACK')
      const after = await poll()
      t.notOk(
        after.snapshot.horizon.some(h => h.pid === holder.pid),
        'gone from the snapshot once its transaction ends'
      )
      t.equal(sampleValue(after.families, 'pg_xmin_holder_age', labels), undefined, 'and its series')
    })

    t.test('a session waiting behind an ACCESS EXCLUSIVE lock, and its blocker', async t => {
      await query(server.url, 'CREATE TABLE locked (id int)')
      t.teardown(() => query(server.url, 'DROP TABLE IF EXISTS locked'))
      const blocker = await session(t, server.url, BLOCKER)
      const waiter = await session(t, server.url, WAITER)
      await blocker.c.query('BEGIN')
      await blocker.c.query('LOCK TABLE locked IN ACCESS EXCLUSIVE MODE')
      const began = Date.now()
      const waiting = waiter.c.query('SELECT count(*) FROM locked').then(
        () => 'done',
        err => err
      )
      t.teardown(() => blocker.c.query('ROLLBACK').catch(() => {}))
      await waitFor(
        () =>
          withClient(
            server.url,
            async c =>
              (
                await c.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [
                  waiter.pid
                ])
              ).rowCount
          ),
        { what: 'the waiter in pg_stat_activity', timeoutMs: 10000 }
      )
      await sleep(1200)
      const { snapshot, families, errors } = await poll()
      const elapsed = (Date.now() - began) / 1000
      t.same(errors, [], 'none of the statements read here failed')
      const locks = snapshot.locks
      t.ok(locks, 'lock figures in the snapshot')
      t.equal(
        sampleValue(families, 'pg_locks_waiting_backends', { datname: server.datname }),
        1,
        'pg_locks_waiting_backends of the database: 1'
      )
      if (server.shared) t.ok((locks?.waiting ?? 0) >= 1, `waiting on the server: ${locks?.waiting}`)
      else t.equal(locks?.waiting, 1, 'waiting: 1')
      const wait = locks?.longestWaitS ?? 0
      t.ok(wait >= 1, `the longest wait is over a second (${wait} s)`)
      if (!server.shared) {
        t.ok(wait <= elapsed + 1, `and no longer than the waiter has waited (${elapsed.toFixed(1)} s)`)
      }
      t.equal(
        sampleValue(families, 'pg_locks_longest_wait_seconds'),
        locks?.longestWaitS,
        'pg_locks_longest_wait_seconds'
      )
      t.ok((locks?.blockers.length ?? 0) <= 5, 'at most 5 blockers')
      t.same(
        locks?.blockers.find(b => b.pid === blocker.pid),
        { pid: blocker.pid, applicationName: BLOCKER, state: 'idle in transaction', datname: server.datname },
        'the blocker: its pid, application_name, state and database'
      )
      t.equal(locks?.byDatabase[server.datname]?.waiting, 1, "the database's own waiters: 1")
      t.ok((locks?.byDatabase[server.datname]?.longestWaitS ?? 0) >= 1, 'and its longest wait')
      if (!server.shared)
        t.same(
          locks?.blockers.map(b => b.pid),
          [blocker.pid],
          'the only blocker'
        )
      t.notOk(
        locks?.blockers.some(b => b.pid === waiter.pid),
        'the waiter is not a blocker'
      )

      await blocker.c.query('ROLLBACK')
      t.equal(await waiting, 'done', 'the waiter goes on once the lock is released')
      const after = await poll()
      t.equal(sampleValue(after.families, 'pg_locks_waiting_backends', { datname: server.datname }), 0, 'no waiter: 0')
      if (!server.shared) {
        t.match(after.snapshot.locks, { waiting: 0, longestWaitS: null, blockers: [] }, 'the snapshot: nobody waits')
        t.same(
          after.snapshot.locks?.byDatabase[server.datname],
          { waiting: 0, longestWaitS: null },
          'in the database neither'
        )
        t.equal(
          sampleValue(after.families, 'pg_locks_longest_wait_seconds'),
          0,
          'pg_locks_longest_wait_seconds: 0 when none waits'
        )
      }
    })

    t.test('multixact ages', async t => {
      await query(server.url, 'CREATE TABLE shared_rows (id int PRIMARY KEY)')
      t.teardown(() => query(server.url, 'DROP TABLE IF EXISTS shared_rows'))
      await query(server.url, 'INSERT INTO shared_rows VALUES (1)')
      // two transactions share a row lock: a multixact
      const a = await session(t, server.url, 'mxid-a')
      const b = await session(t, server.url, 'mxid-b')
      await a.c.query('BEGIN')
      await b.c.query('BEGIN')
      await a.c.query('SELECT * FROM shared_rows FOR SHARE')
      await b.c.query('SELECT * FROM shared_rows FOR SHARE')
      await a.c.query('COMMIT')
      await b.c.query('COMMIT')
      const { snapshot, families, errors } = await poll()
      t.same(errors, [], 'none of the statements read here failed')
      const actual = (
        await query(
          server.url,
          `SELECT mxid_age(relminmxid) AS table_age,
        (SELECT mxid_age(datminmxid) FROM pg_database WHERE datname = current_database()) AS db_age,
        current_setting('autovacuum_multixact_freeze_max_age')::bigint AS limit
        FROM pg_class WHERE oid = 'shared_rows'::regclass`
        )
      ).rows[0]
      const table = snapshot.tables.find(row => row.relname === 'shared_rows')
      const database = snapshot.databases.find(row => row.datname === server.datname)
      t.type(table?.mxidAge, 'number', `the table's mxid age is a number (${table?.mxidAge})`)
      t.type(database?.mxidAge, 'number', `the database's too (${database?.mxidAge})`)
      t.ok(
        (table?.mxidAge ?? 0) >= 1 && (table?.mxidAge ?? Infinity) <= Number(actual.table_age),
        `at least the multixact made (${table?.mxidAge}, now ${actual.table_age})`
      )
      t.ok(
        (database?.mxidAge ?? -1) >= 1 && (database?.mxidAge ?? Infinity) <= Number(actual.db_age),
        `the database's (${database?.mxidAge}, now ${actual.db_age})`
      )
      const labels = { datname: server.datname, schemaname: 'public', relname: 'shared_rows' }
      const age = sampleValue(families, 'pg_vacuum_mxid_age', labels)
      t.equal(age, table?.mxidAge, 'pg_vacuum_mxid_age of the table')
      t.equal(
        sampleValue(families, 'pg_vacuum_mxid_until_wraparound_autovacuum', labels),
        Number(actual.limit) - (age ?? 0),
        'pg_vacuum_mxid_until_wraparound_autovacuum = autovacuum_multixact_freeze_max_age - age'
      )
      const dbLabels = { datname: server.datname, schemaname: '', relname: '' }
      t.equal(sampleValue(families, 'pg_vacuum_mxid_age', dbLabels), database?.mxidAge, 'per database')
      t.equal(
        sampleValue(families, 'pg_vacuum_mxid_until_wraparound_autovacuum', dbLabels),
        Number(actual.limit) - (database?.mxidAge ?? 0),
        'per database: the distance to the limit'
      )
    })

    t.test("the bgwriter's checkpoint counters in the snapshot", async t => {
      const { snapshot } = await poll()
      t.match(
        snapshot.checkpoints,
        { timed: Number, requested: Number },
        'checkpoints: timed and requested are numbers'
      )
      const before = snapshot.checkpoints?.requested ?? 0
      if (server.shared) return
      await query(server.url, 'CHECKPOINT')
      const after = await waitFor(
        async () => {
          const { snapshot } = await poll()
          return (snapshot.checkpoints?.requested ?? 0) > before && snapshot
        },
        { what: 'the requested checkpoint counted', timeoutMs: 10000, intervalMs: 250 }
      )
      t.ok(after, `a CHECKPOINT counts as requested (${before} → ${after.checkpoints?.requested})`)
    })

    t.test("the server's sessions and its connection slots in the snapshot", async t => {
      const limits = (
        await query(
          server.url,
          `SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int -
          coalesce(current_setting('reserved_connections', true)::int, 0) AS slots`
        )
      ).rows[0]
      const { snapshot } = await poll()
      t.equal(snapshot.connections?.slots, limits.slots, 'slots: max_connections less the reserved')
      t.ok(
        (snapshot.connections?.clients ?? 0) >= 1,
        `clients ${snapshot.connections?.clients}: the poll's own among them`
      )
    })

    t.test("the WAL's counters in the snapshot", async t => {
      const before = (await poll()).snapshot.wal
      t.match(before, { records: Number, fpi: Number, bytes: Number }, 'records, full-page images and bytes')
      await query(server.url, 'CREATE TABLE IF NOT EXISTS wal_counted (id int); INSERT INTO wal_counted VALUES (1)')
      const after = (await poll()).snapshot.wal
      t.ok(
        (after?.records ?? 0) > (before?.records ?? 0),
        `records rose with an insert (${before?.records} → ${after?.records})`
      )
    })

    // Before any prepared transaction: creating a logical slot waits for
    // every transaction with an id to end.
    // a server without logical decoding or prepared transactions (the system
    // PostgreSQL 15) has these checked on the embedded server instead
    if (walLevel !== 'logical') t.comment(`wal_level is ${walLevel} here: slots are checked on the embedded server`)
    else
      t.test('a logical replication slot shows its catalog_xmin age', async t => {
        await query(server.url, "SELECT pg_create_logical_replication_slot($1, 'pgoutput')", [SLOT])
        t.teardown(() =>
          query(
            server.url,
            'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
            [SLOT]
          )
        )
        await burnXids(server.url, AGED)
        const { snapshot, families, errors, horizonRows } = await poll()
        const actual = (
          await query(
            server.url,
            'SELECT age(catalog_xmin) AS age, xmin FROM pg_replication_slots WHERE slot_name = $1',
            [SLOT]
          )
        ).rows[0]
        t.same(errors, [], 'none of the statements read here failed')
        const slot = snapshot.horizon.find(h => h.kind === 'slot' && h.name === SLOT)
        t.match(
          slot,
          {
            kind: 'slot',
            pid: null,
            applicationName: null,
            state: 'inactive',
            name: SLOT,
            datname: server.datname,
            xactAgeS: null
          },
          'the slot: its name, database, inactive'
        )
        t.ok(
          (slot?.xminAge ?? 0) >= AGED && (slot?.xminAge ?? Infinity) <= Number(actual.age),
          `its age is that of its catalog_xmin (${slot?.xminAge}, now ${actual.age})`
        )
        const row = horizonRows.find(r => r.kind === 'slot' && r.name === SLOT)
        t.equal(row?.slot_catalog_xmin_age, slot?.xminAge, "slot_catalog_xmin_age: the catalog_xmin's age")
        t.equal(actual.xmin, null, 'a logical slot has no xmin')
        t.equal(row?.slot_xmin_age, null, 'slot_xmin_age: null')
        const labels = { kind: 'slot', pid: '', application_name: '', name: SLOT, datname: server.datname }
        t.equal(sampleValue(families, 'pg_xmin_holder_age', labels), slot?.xminAge, 'pg_xmin_holder_age of the slot')
        t.equal(
          sampleValue(families, 'pg_xmin_holder_xact_age_seconds', labels),
          undefined,
          'no transaction age for a slot'
        )
        t.ok(
          (sampleValue(families, 'pg_xmin_horizon_age', { kind: 'slot' }) ?? 0) >= (slot?.xminAge ?? Infinity),
          'pg_xmin_horizon_age{kind="slot"}'
        )

        await query(server.url, 'SELECT pg_drop_replication_slot($1)', [SLOT])
        const after = await poll()
        t.notOk(
          after.snapshot.horizon.some(h => h.kind === 'slot' && h.name === SLOT),
          'gone once dropped'
        )
        if (!server.shared) {
          t.equal(sampleValue(after.families, 'pg_xmin_horizon_age', { kind: 'slot' }), 0, 'no slot holds it: 0')
        }
      })

    if (prepared === 0)
      t.comment('max_prepared_transactions is 0 here: prepared transactions are checked on the embedded server')
    else
      t.test('a prepared transaction shows with its gid', async t => {
        await query(server.url, 'CREATE TABLE prepared_rows (id int)')
        t.teardown(() => query(server.url, 'DROP TABLE IF EXISTS prepared_rows'))
        const preparer = await session(t, server.url, 'preparer')
        await preparer.c.query('BEGIN')
        await preparer.c.query('INSERT INTO prepared_rows VALUES (1)')
        await preparer.c.query(`PREPARE TRANSACTION '${GID}'`)
        // before the table: it cannot be dropped while the transaction holds its lock
        t.teardown(() =>
          query(server.url, 'SELECT gid FROM pg_prepared_xacts WHERE gid = $1', [GID]).then(result =>
            result.rowCount ? query(server.url, `ROLLBACK PREPARED '${GID}'`) : undefined
          )
        )
        await preparer.c.end()
        await burnXids(server.url, AGED)
        const { snapshot, families, errors } = await poll()
        t.same(errors, [], 'none of the statements read here failed')
        const entry = snapshot.horizon.find(h => h.kind === 'prepared' && h.name === GID)
        t.match(
          entry,
          { kind: 'prepared', pid: null, applicationName: null, name: GID, datname: server.datname },
          'the prepared transaction: its gid and database'
        )
        t.ok((entry?.xminAge ?? 0) >= AGED, `its age (${entry?.xminAge})`)
        t.ok(typeof entry?.xactAgeS === 'number' && entry.xactAgeS >= 0, `seconds since PREPARE (${entry?.xactAgeS})`)
        const labels = { kind: 'prepared', pid: '', application_name: '', name: GID, datname: server.datname }
        t.equal(
          sampleValue(families, 'pg_xmin_holder_age', labels),
          entry?.xminAge,
          'pg_xmin_holder_age of the prepared transaction'
        )
        t.equal(
          sampleValue(families, 'pg_xmin_holder_xact_age_seconds', labels),
          entry?.xactAgeS,
          'pg_xmin_holder_xact_age_seconds'
        )
        t.equal(
          sampleValue(families, 'pg_xmin_horizon_age', { kind: 'prepared' }),
          entry?.xminAge,
          'pg_xmin_horizon_age{kind="prepared"}'
        )
        if (!server.shared) {
          t.equal(snapshot.horizon[0]?.name, GID, 'the oldest holder of the server')
          t.equal(sampleValue(families, 'pg_xmin_horizon_oldest_age'), entry?.xminAge, 'pg_xmin_horizon_oldest_age')
        }

        await query(server.url, `ROLLBACK PREPARED '${GID}'`)
        const after = await poll()
        t.notOk(
          after.snapshot.horizon.some(h => h.kind === 'prepared'),
          'gone once rolled back'
        )
        t.equal(
          sampleValue(after.families, 'pg_xmin_horizon_age', { kind: 'prepared' }),
          0,
          'no prepared transaction: 0'
        )
      })
  })
}
