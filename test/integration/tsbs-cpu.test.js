// The tsbs-cpu workload through the CLI, on PostgreSQL 15: each insert
// method writes exactly the rows it reports, with the values its seed
// makes; late corrections and TSBS's queries run beside the batches; the
// real clock sends hosts / interval points a second; disorder comes in the
// stated fractions; a partitioned table is kept ahead of the data, and a
// batch that outruns its partitions fails with PostgreSQL's message,
// counted. Bad options are refused in one line before anything is touched.
import t from 'tap'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase, listTables, query } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { CpuStream, FIELD_COUNT } from '../../lib/workloads/tsbs-cpu/stream.js'
import { FIELDS } from '../../lib/workloads/tsbs-cpu/schema.js'

const db = await createTestDatabase(t, 'tsbs_cpu')
const START = Date.parse('2016-01-01T00:00:00Z')

/**
 * @param {import('tap').Test} t
 * @param {string[]} args
 * @param {string} [url]
 */
async function run(t, args, url = db.url) {
  const result = await runCli(
    ['run', url, '-w', 'tsbs-cpu', '--json', '-p', '0', '--no-pg-stats', '--log-level', 'warn', ...args],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  return result.summary
}

/**
 * The table holds rows of the stream its seed makes (TSBS's 10 s interval
 * from 2016-01-01, no disorder), each once and with its values, the rows
 * written and no more. A client makes its next batch while the last is
 * sent, and the run's last such batch is never sent: with one client the
 * table is the stream's first rows, whose field sums must match too.
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {{ rows: number, hosts: number, seed: number, clients: number, batchSize: number }} expected
 */
async function checkTableAgainstSeed(t, url, { rows, hosts, seed, clients, batchSize }) {
  const ids = (
    await query(
      url,
      'SELECT id, substring(hostname FROM 6)::int AS n FROM tsbs_tags WHERE substring(hostname FROM 6)::int < $1',
      [hosts]
    )
  ).rows
  const tagIds = new Int32Array(hosts)
  for (const { id, n } of ids) tagIds[n] = id
  const stream = new CpuStream({
    tagIds,
    intervalMs: 10000,
    startMs: START,
    firstEpoch: 0,
    clock: 'simulated',
    seed,
    missing: 0,
    outOfOrder: 0
  })
  /** @type {Map<string, number[]>} */
  const made = new Map()
  const sums = new Array(FIELD_COUNT).fill(0)
  let newest = 0
  stream.take(rows + 2 * clients * batchSize, {
    row(timeMs, tagsId, values) {
      if (made.size < rows) {
        for (let f = 0; f < FIELD_COUNT; f++) sums[f] += values[f]
        newest = timeMs
      }
      made.set(`${tagsId}/${timeMs}`, [...values])
    }
  })
  const table = (
    await query(
      url,
      `SELECT count(*)::int AS n, count(DISTINCT (tags_id, time))::int AS points, min(time) AS first, max(time) AS last,
    ${FIELDS.map(f => `sum(${f})::float8 AS ${f}`).join(', ')} FROM tsbs_cpu`
    )
  ).rows[0]
  t.equal(table.n, rows, 'the table holds the rows written')
  t.equal(table.points, rows, 'each point once')
  t.equal(table.first.toISOString(), '2016-01-01T00:00:00.000Z', "from TSBS's start")
  const sample = (
    await query(
      url,
      `SELECT tags_id, time, ${FIELDS.join(', ')} FROM tsbs_cpu TABLESAMPLE BERNOULLI (2) REPEATABLE (1)`
    )
  ).rows
  const wrong = sample.filter(
    row => JSON.stringify(made.get(`${row.tags_id}/${row.time.getTime()}`)) !== JSON.stringify(FIELDS.map(f => row[f]))
  )
  t.ok(sample.length > 0, `${sample.length} rows sampled`)
  t.same(wrong, [], "each is a point of the seed's stream, value by value")
  if (clients === 1) {
    t.equal(table.last.getTime(), newest, "one client: the stream's first rows…")
    t.same(
      FIELDS.map(f => table[f]),
      sums,
      '…to the last value'
    )
  }
}

for (const [method, clients] of /** @type {Array<[string, number]>} */ ([
  ['copy-binary', 2],
  ['copy', 1],
  ['insert', 1]
])) {
  t.test(`--insert-method ${method}, ${clients} client(s): the rows reported, with the seed's values`, async t => {
    const summary = await run(t, [
      '--reset',
      '--insert-method',
      method,
      '--mix',
      'insert_batch=1',
      '--hosts',
      '10',
      '--batch-size',
      '1000',
      '-c',
      String(clients),
      '-d',
      '2',
      '--seed',
      '11'
    ])
    t.ok(summary.rows_written > 0, `${summary.rows_written} rows written`)
    t.equal(summary.points_written, 10 * summary.rows_written, 'ten points a row')
    t.ok(summary.rows_per_s > 0, `${summary.rows_per_s} rows/s`)
    t.equal(summary.rows_missing, 0, 'every acknowledged row is in the table')
    t.equal(summary.unexpected_failures, 0, JSON.stringify(summary.errors))
    await checkTableAgainstSeed(t, db.url, {
      rows: summary.rows_written,
      hosts: 10,
      seed: 11,
      clients,
      batchSize: 1000
    })
  })
}

t.test('--insert-method insert at its limit: 5461 rows, 65532 bind parameters', async t => {
  const summary = await run(t, [
    '--reset',
    '--insert-method',
    'insert',
    '--batch-size',
    '5461',
    '--mix',
    'insert_batch=1',
    '--hosts',
    '10',
    '-c',
    '1',
    '-t',
    '1',
    '--seed',
    '11'
  ])
  t.equal(summary.rows_written, 5461, JSON.stringify(summary.errors))
})

t.test('late_update and the two queries run beside the batches', async t => {
  const summary = await run(t, [
    '--reset',
    '--mix',
    'insert_batch=10,late_update=6,query_lastpoint=2,query_groupby_hour=2',
    '--hosts',
    '50',
    '--batch-size',
    '2000',
    '-c',
    '2',
    '-d',
    '2'
  ])
  for (const type of ['insert_batch', 'late_update', 'query_lastpoint', 'query_groupby_hour']) {
    t.ok(summary.requests[type].done > 0, `${type} ran (${summary.requests[type].done})`)
    t.equal(summary.requests[type].failed, 0, `no ${type} failed`)
  }
  const late = summary.requests.late_update
  t.ok(late.not_found < late.done, `corrections found their point (${late.done - late.not_found} of ${late.done})`)
  t.equal(summary.rows_missing, 0)
  t.equal(summary.points_written, 10 * summary.rows_written, 'corrections add no rows or points')
})

t.test('the real clock: hosts / interval points a second, batches of what is due', async t => {
  const summary = await run(t, [
    '--reset',
    '--clock',
    'real',
    '--hosts',
    '20',
    '--interval',
    '200ms',
    '--mix',
    'insert_batch=1',
    '-c',
    '2',
    '-d',
    '3'
  ])
  t.equal(summary.mode, 'paced', 'clients are paced')
  // 100 points a second, and the first interval's at once
  t.ok(summary.rows_per_s > 80 && summary.rows_per_s < 130, `about 100 rows/s (${summary.rows_per_s})`)
  t.equal(summary.rows_missing, 0)
  const span = (
    await query(
      db.url,
      'SELECT extract(epoch FROM now() - max(time))::float8 AS behind, count(DISTINCT time)::int AS times, ' +
        'count(*)::int AS n FROM tsbs_cpu'
    )
  ).rows[0]
  t.ok(span.behind >= 0 && span.behind < 5, `the data is of the present (${span.behind.toFixed(1)} s behind now)`)
  t.equal(span.n, span.times * 20, 'every interval has all 20 hosts')
})

t.test('--out-of-order and --missing: the stated fractions reach the table', async t => {
  const summary = await run(t, [
    '--reset',
    '--out-of-order',
    '0.2',
    '--missing',
    '0.1',
    '--hosts',
    '10',
    '--batch-size',
    '1000',
    '--mix',
    'insert_batch=1',
    '-c',
    '1',
    '-t',
    '30',
    '-d',
    '60'
  ])
  t.equal(summary.rows_written, 30000, '30 batches of 1000 rows')
  t.equal(summary.rows_missing, 0)
  // one client into a fresh heap: the physical order is the order of arrival
  const seen = (
    await query(
      db.url,
      `SELECT count(*)::int AS n,
      count(*) FILTER (WHERE time < newest_before)::int AS late,
      (extract(epoch FROM max(time) - min(time)) / 10 + 1)::int * 10 AS slots
    FROM (SELECT time, max(time) OVER (ORDER BY ctid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS newest_before
      FROM tsbs_cpu) arrivals`
    )
  ).rows[0]
  const missing = 1 - seen.n / seen.slots
  t.ok(Math.abs(missing - 0.1) < 0.02, `${(missing * 100).toFixed(1)} % of the points never came`)
  t.ok(
    Math.abs(seen.late / seen.n - 0.2) < 0.02,
    `${((seen.late / seen.n) * 100).toFixed(1)} % came after a point of a later time`
  )
})

t.test('--partition-interval 1h: every row in a partition, partitions ahead of the data', async t => {
  // 600 batches of 6 intervals of 2 s: two hours of data; 24 partitions ahead however fast it goes
  const summary = await run(t, [
    '--reset',
    '--partition-interval',
    '1h',
    '--premake',
    '24',
    '--interval',
    '2s',
    '--hosts',
    '5',
    '--batch-size',
    '30',
    '--mix',
    'insert_batch=1',
    '-c',
    '1',
    '-t',
    '600',
    '-d',
    '60'
  ])
  t.equal(summary.unexpected_failures, 0, JSON.stringify(summary.errors))
  t.equal(summary.rows_written, 18000)
  t.equal(summary.rows_missing, 0)
  t.equal(
    (await query(db.url, "SELECT relkind FROM pg_class WHERE relname = 'tsbs_cpu'")).rows[0].relkind,
    'p',
    'tsbs_cpu is partitioned'
  )
  const parts = (
    await query(
      db.url,
      `SELECT c.relname, (SELECT count(*) FROM tsbs_cpu WHERE tableoid = c.oid)::int AS n,
      substring(pg_get_expr(c.relpartbound, c.oid) FROM $re$FROM \\('([^']*)'\\)$re$)::timestamptz AS lo,
      substring(pg_get_expr(c.relpartbound, c.oid) FROM $re$TO \\('([^']*)'\\)$re$)::timestamptz AS hi
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'tsbs_cpu'::regclass ORDER BY lo`
    )
  ).rows
  const span = (await query(db.url, 'SELECT min(time) AS lo, max(time) AS hi, count(*)::int AS n FROM tsbs_cpu'))
    .rows[0]
  t.equal(
    parts.reduce((n, p) => n + p.n, 0),
    span.n,
    'every row is in a partition'
  )
  t.ok(
    parts.every(p => p.hi - p.lo === 3600e3),
    'of one hour each'
  )
  t.ok(
    parts.every((p, i) => i === 0 || p.lo.getTime() === parts[i - 1].hi.getTime()),
    'end to end'
  )
  t.ok(parts[0].lo <= span.lo, 'from the first row')
  t.ok(
    parts.at(-1).hi.getTime() >= span.hi.getTime() + 23 * 3600e3,
    `to 24 hours past the newest row (${parts.length} partitions)`
  )
})

t.test("--premake 0: a batch that outruns its partitions fails with PostgreSQL's message, counted", async t => {
  const summary = await run(t, [
    '--reset',
    '--partition-interval',
    '1h',
    '--premake',
    '0',
    '--hosts',
    '100',
    '--batch-size',
    '10000',
    '--mix',
    'insert_batch=1',
    '-c',
    '1',
    '-d',
    '2'
  ])
  const failed = summary.requests.insert_batch.failed
  t.ok(failed > 0, `${failed} batches reached a time no partition holds`)
  t.equal(summary.unexpected_failures, failed)
  t.match(
    Object.keys(summary.errors).join('\n'),
    /no partition of relation "\?" found for row/,
    "with PostgreSQL's message"
  )
  t.equal(summary.rows_missing, 0, 'the table holds exactly the acknowledged rows')
  t.equal(summary.rows_written, (summary.requests.insert_batch.done - failed) * 10000, 'a failed batch writes nothing')
})

// more refusals of configure() in tsbs-cpu-encoding.test.js
t.test('bad options: one line, exit 2, nothing touched', async t => {
  const fresh = await createTestDatabase(t, 'tsbs_cpu_bad')
  for (const [args, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['--hosts', '0'], /--hosts: must be at least 1, got 0/],
    [['--batch-size', '0'], /--batch-size: must be at least 1, got 0/],
    [['--insert-method', 'insert'], /--batch-size: at most 5461 rows with --insert-method insert .*got 10000/],
    [['--interval', 'often'], /--interval: expected a duration/],
    [['--out-of-order', '1.5'], /--out-of-order: must be at most 1, got 1.5/],
    [['--missing', '-0.1'], /--missing: must be at least 0, got -0.1/],
    [['--start', 'yesterday'], /--start: expected an ISO 8601 time/],
    [['--partition-interval', 'weekly'], /--partition-interval: expected a duration/]
  ])) {
    const result = await runCli(['run', fresh.url, '-w', 'tsbs-cpu', ...args, '-d', '2', '-p', '0'], { t })
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, problem, args.join(' '))
    t.equal(lines(result.stderr).length, 1, 'one line')
  }
  t.same(await listTables(fresh.url), [], 'no table was made')
})

t.test('a table of the other shape is refused, not written into', async t => {
  // the table the last test left is partitioned
  const result = await runCli(['run', db.url, '-w', 'tsbs-cpu', '-d', '1', '-p', '0', '--log-level', 'warn'], { t })
  t.equal(result.code, 2, 'exit 2')
  t.match(
    result.stderr,
    /tsbs_cpu is partitioned \(by an earlier run's --partition-interval\): give --partition-interval, or --reset/
  )
  t.equal(lines(result.stderr).length, 1, 'one line')
})

t.test('PostgreSQL 18 (embedded): binary COPY into daily partitions', async t => {
  const pg18 = await startEmbedded(t)
  const summary = await run(
    t,
    [
      '--partition-interval',
      '1d',
      '--hosts',
      '20',
      '--batch-size',
      '2000',
      '--mix',
      'insert_batch=1',
      '-c',
      '2',
      '-d',
      '3',
      '--seed',
      '5'
    ],
    pg18.url
  )
  t.match(summary.server_version, /^18/)
  t.equal(summary.unexpected_failures, 0, JSON.stringify(summary.errors))
  t.equal(summary.rows_missing, 0, 'every acknowledged row is in the table')
  t.equal(summary.points_written, 10 * summary.rows_written)
  const parts = (
    await query(pg18.url, "SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'tsbs_cpu'::regclass")
  ).rows[0].n
  t.ok(parts >= 5, `${parts} daily partitions`)
  await checkTableAgainstSeed(t, pg18.url, {
    rows: summary.rows_written,
    hosts: 20,
    seed: 5,
    clients: 2,
    batchSize: 2000
  })
})
