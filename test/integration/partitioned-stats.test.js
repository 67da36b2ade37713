// A partitioned table has no rows of its own: the statistics the recorder,
// the conditions and the reports read add up its partitions' figures (live
// and dead tuples, sizes; the oldest xid age), and a vacuum of a partition
// counts as one of the table.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { buildSnapshot } from '../../lib/pgstats/snapshot.js'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { tempDataDir } from '../helpers/embedded.js'

t.test('the snapshot rolls partitions up into their table', async t => {
  /** @type {Record<string, Array<Record<string, unknown>>>} */
  const sections = {
    user_tables: [
      {
        datname: 'd',
        schemaname: 'public',
        relname: 'm',
        n_live_tup: 0,
        n_dead_tup: 0,
        last_vacuum: 0,
        last_autovacuum: 0
      },
      {
        datname: 'd',
        schemaname: 'public',
        relname: 'm_p1',
        n_live_tup: 100,
        n_dead_tup: 10,
        last_vacuum: 0,
        last_autovacuum: 50
      },
      {
        datname: 'd',
        schemaname: 'public',
        relname: 'm_p2',
        n_live_tup: 300,
        n_dead_tup: 30,
        last_vacuum: 70,
        last_autovacuum: 0
      },
      {
        datname: 'd',
        schemaname: 'public',
        relname: 'other',
        n_live_tup: 5,
        n_dead_tup: 1,
        last_vacuum: 0,
        last_autovacuum: 0
      }
    ],
    relation_size: [
      { datname: 'd', schemaname: 'public', relname: 'm_p1', total_bytes: 8192, index_bytes: 1000 },
      { datname: 'd', schemaname: 'public', relname: 'm_p2', total_bytes: 16384, index_bytes: 2000 }
    ],
    xid_tables: [
      { datname: 'd', schemaname: 'public', relname: 'm_p1', xid_age: 1000, tx_until_wraparound_autovacuum: 5000 },
      { datname: 'd', schemaname: 'public', relname: 'm_p2', xid_age: 3000, tx_until_wraparound_autovacuum: 3000 }
    ],
    partitions: [
      { datname: 'd', schemaname: 'public', relname: 'm_p1', root_schemaname: 'public', root_relname: 'm' },
      { datname: 'd', schemaname: 'public', relname: 'm_p2', root_schemaname: 'public', root_relname: 'm' }
    ],
    progress_vacuum: [
      {
        pid: 7,
        datname: 'd',
        schemaname: 'public',
        relname: 'm_p2',
        vacuum_mode: 'autovacuum',
        phase: 1,
        phase_name: 'scanning heap',
        heap_blks_total: 2,
        heap_blks_scanned: 1,
        heap_blks_vacuumed: 0,
        query_start: 1
      }
    ]
  }
  const snapshot = buildSnapshot({
    rows: section => sections[section] ?? [],
    time: 0,
    serverVersionNum: 150000,
    datname: 'd'
  })
  const m = snapshot.tables.find(table => table.relname === 'm')
  t.match(m, {
    liveTuples: 400,
    deadTuples: 40,
    totalBytes: 24576,
    indexBytes: 3000,
    xidAge: 3000,
    txUntilWraparoundAutovacuum: 3000,
    lastVacuum: 70,
    lastAutovacuum: 50,
    partitions: 2
  })
  t.equal(m?.deadFraction, 40 / 440)
  t.match(
    snapshot.tables.find(table => table.relname === 'other'),
    { liveTuples: 5, deadTuples: 1 },
    'other tables as they were'
  )
  t.equal(snapshot.vacuums[0].rootRelname, 'm', 'the vacuum of a partition is one of its table')
})

t.test("recorded samples of a partitioned table count its partitions' rows", async t => {
  const db = await createTestDatabase(t, 'partitioned_stats')
  const recordDir = path.join(await tempDataDir(t), 'run')
  const result = await runCli(
    [
      'run',
      db.url,
      '-w',
      'tsbs-cpu',
      '--hosts',
      '50',
      '--partition-interval',
      '1d',
      '-c',
      '2',
      '-d',
      '4',
      '--json',
      '-p',
      '0',
      '--stats-interval',
      '1',
      '--record',
      recordDir,
      '--log-level',
      'warn'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const samples = lines(await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
  const last = samples.filter(sample => sample.pg).at(-1)
  t.ok(last.pg.partitions >= 1, `the table's partitions are counted (${last.pg.partitions})`)
  t.ok(
    last.pg.live_tuples > 0 || last.pg.table_bytes > 0,
    `its rows or bytes show (${last.pg.live_tuples} rows, ${last.pg.table_bytes} bytes)`
  )
})
