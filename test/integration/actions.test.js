// The sidecar's actions from the CLI: vacuum (followed through its phases),
// checkpoint, analyze and reset-stats each run, exit 0 and append their start
// and end to the events file; bad input is refused before anything runs; an
// action the server rejects exits 1 with a failed end event.
import t from 'tap'
import { mkdtemp, chmod, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines, sleep } from '../helpers/cli.js'
import { createTestDatabase, query, sessionsOf, withClient } from '../helpers/pg.js'
import { readEvents } from '../helpers/control.js'

const ROWS = 200000
const PHASES = [
  'initializing',
  'scanning heap',
  'vacuuming indexes',
  'vacuuming heap',
  'cleaning up indexes',
  'truncating heap',
  'performing final cleanup'
]

const db = await createTestDatabase(t, 'actions')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-actions-'))
await chmod(dir, 0o755)
t.teardown(() => rm(dir, { recursive: true, force: true }))

await withClient(db.url, async client => {
  await client.query('CREATE TABLE test_table (id bigint PRIMARY KEY, v text NOT NULL)')
  await client.query('INSERT INTO test_table SELECT i, md5(i::text) FROM generate_series(1, $1::int) AS i', [ROWS])
  // Slow every vacuum of this database down (cost-based delay) so that one
  // takes a couple of seconds and its phases can be seen.
  await client.query(`ALTER DATABASE ${db.name} SET vacuum_cost_delay = '2ms'`)
  await client.query(`ALTER DATABASE ${db.name} SET vacuum_cost_limit = 50`)
})

/** @param {string} name */
const eventsFile = name => path.join(dir, `${name}.ndjson`)

/**
 * @param {string} file
 * @param {string} action
 */
async function startAndEnd(file, action) {
  const events = await readEvents(file)
  const own = events.filter(e => e.action === action)
  return {
    events,
    start: own.filter(e => e.kind === 'start'),
    end: own.filter(e => e.kind === 'end'),
    points: own.filter(e => e.kind === 'point')
  }
}

/**
 * The table's relfrozenxid, as a number: a freeze moves it forward. (Its
 * age would also grow with the transactions other tests run on the server
 * meanwhile.)
 */
async function frozenXid() {
  return Number(
    (await query(db.url, "SELECT relfrozenxid::text::bigint AS xid FROM pg_class WHERE relname = 'test_table'")).rows[0]
      .xid
  )
}

t.test('vacuum --freeze: runs, is followed through its phases, records start and end', async t => {
  // Some transactions after the rows were written, so that freezing shows.
  for (let i = 0; i < 20; i++) await query(db.url, 'SELECT txid_current()')
  // Clean pages: the vacuum pays the cost of dirtying each one it freezes.
  await query(db.url, 'CHECKPOINT')
  const frozenBefore = await frozenXid()
  const file = eventsFile('vacuum')
  const result = await runCli(['vacuum', db.url, '--table', 'test_table', '--freeze', '--json', '--events', file], {
    t
  })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const outcome = JSON.parse(result.stdout)
  t.match(outcome, { action: 'vacuum', table: 'test_table', ok: true }, '--json: the outcome')
  t.ok(outcome.duration_s >= 0.5, `it took a while (${outcome.duration_s} s)`)
  t.ok(outcome.duration_s * 1000 <= result.elapsedMs, 'no longer than the command')
  t.match(result.stderr, /vacuum \(freeze\) of test_table started/, 'the start is logged')
  t.match(result.stderr, /vacuum \(freeze\) of test_table finished in \d/, 'and the end')

  const { events, start, end, points } = await startAndEnd(file, 'vacuum_freeze')
  t.equal(start.length, 1, 'one start event')
  t.equal(end.length, 1, 'one end event')
  t.equal(start[0]?.table, 'test_table', 'the start names the table')
  t.equal(start[0]?.detail?.sql, 'VACUUM (FREEZE) "test_table"', 'and the statement')
  t.match(end[0], { kind: 'end', action: 'vacuum_freeze', table: 'test_table', ok: true }, 'the end: ok')
  t.notOk('error' in (end[0] ?? {}), 'no error on a success')
  t.equal(end[0]?.duration_s, outcome.duration_s, 'the end has the duration')
  t.ok(end[0]?.duration_s > 0, 'duration_s > 0')
  t.ok(points.length >= 1, `phase events while it ran: ${points.map(p => p.detail?.phase).join(', ')}`)
  for (const p of points) {
    t.ok(PHASES.includes(p.detail?.phase), `a known phase: ${p.detail?.phase}`)
    t.equal(p.detail?.phase_number, PHASES.indexOf(p.detail?.phase), 'its number')
    t.ok(p.detail?.heap_blks_total > 0, 'the heap size in blocks')
  }
  t.same(
    events.map(e => e.kind),
    ['start', ...points.map(() => 'point'), 'end'],
    'start, phases, end, in that order'
  )
  const times = events.map(e => Date.parse(e.ts))
  t.ok(
    times.every(ms => !Number.isNaN(ms)),
    'ts are ISO times'
  )
  t.same(
    times,
    [...times].sort((a, b) => a - b),
    'in time order'
  )
  t.ok(
    Math.abs((times[times.length - 1] - times[0]) / 1000 - end[0].duration_s) < 0.5,
    'from start to end takes the duration'
  )

  const frozenAfter = await frozenXid()
  t.ok(frozenAfter > frozenBefore + 20, `the table was frozen: relfrozenxid ${frozenBefore} → ${frozenAfter}`)
})

t.test('checkpoint, analyze, reset-stats: exit 0, start and end events', async t => {
  const file = eventsFile('small')
  /** @type {[string[], string, string | undefined][]} */
  const runs = [
    [['checkpoint'], 'checkpoint', undefined],
    [['analyze', '--table', 'public.test_table'], 'analyze', 'public.test_table'],
    [['analyze'], 'analyze', undefined],
    [['reset-stats'], 'reset-stats', undefined]
  ]
  const ins = async () =>
    withClient(db.url, async client =>
      Number(
        (await client.query("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'test_table'")).rows[0].n_tup_ins
      )
    )
  t.equal(await ins(), ROWS, 'before reset-stats, the statistics count the inserts')
  for (const [args, action, table] of runs) {
    const result = await runCli([...args, db.url, '--events', file, '--json'], { t })
    t.equal(result.code, 0, `${args.join(' ')}: exit 0; stderr: ${result.stderr}`)
    const outcome = JSON.parse(result.stdout)
    t.match(outcome, { action, ok: true }, `${args.join(' ')}: --json says ok`)
    t.equal(outcome.table, table, `${args.join(' ')}: table ${table ?? '(none)'}`)
  }
  const events = await readEvents(file)
  t.same(
    events.map(e => [e.kind, e.action, e.table]),
    [
      ['start', 'checkpoint', undefined],
      ['end', 'checkpoint', undefined],
      ['start', 'analyze', 'public.test_table'],
      ['end', 'analyze', 'public.test_table'],
      ['start', 'analyze', undefined],
      ['end', 'analyze', undefined],
      ['start', 'reset-stats', undefined],
      ['end', 'reset-stats', undefined]
    ],
    'each action appended its start and end'
  )
  for (const e of events.filter(e => e.kind === 'end')) {
    t.equal(e.ok, true, `${e.action}: ok`)
    t.ok(typeof e.duration_s === 'number' && e.duration_s >= 0, `${e.action}: duration_s ${e.duration_s}`)
  }
  t.equal(await ins(), 0, 'reset-stats reset the statistics')
  const analyzed = await query(db.url, "SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'test_table'")
  t.equal(analyzed.rows[0].n, 2, 'the planner has statistics for both columns')
})

t.test('an action the server rejects: exit 1, a failed end event with the error', async t => {
  const file = eventsFile('failed')
  const result = await runCli(['vacuum', db.url, '--table', 'no_such_table', '--json', '--events', file], { t })
  t.equal(result.code, 1, `exit 1; stderr: ${result.stderr}`)
  const outcome = JSON.parse(result.stdout)
  t.match(
    outcome,
    { action: 'vacuum', table: 'no_such_table', ok: false, error: /no_such_table.*does not exist/ },
    '--json: the failure'
  )
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
  const { start, end } = await startAndEnd(file, 'vacuum')
  t.equal(start.length, 1, 'a start event')
  t.match(
    end,
    [{ kind: 'end', ok: false, error: /relation "no_such_table" does not exist/ }],
    'an end event: ok false, with the error'
  )
  t.ok(end[0]?.duration_s >= 0, 'and the duration')
})

t.test('bad input: exit 2, one line, nothing runs', async t => {
  await sleep(500) // sessions closed by the earlier tests reach the statistics
  const before = await sessionsOf(db.adminUrl, db.name)
  const file = eventsFile('bad')
  /** @type {[string, string[], RegExp][]} */
  const cases = [
    ['vacuum without --table', ['vacuum', db.url], /argument: table|--table/],
    [
      'a statement for a table name',
      ['vacuum', db.url, '--table', 'x; drop table y'],
      /not a table name: "x; drop table y"/
    ],
    ['a quoted table name', ['vacuum', db.url, '--table', 'test_table"'], /not a table name/],
    ['three-part table name', ['vacuum', db.url, '--table', 'a.b.c'], /not a table name/],
    ['analyze of a statement', ['analyze', db.url, '--table', 'pg_class; select 1'], /not a table name/],
    ['unknown option', ['checkpoint', db.url, '--force'], /unknown argument.*force/i]
  ]
  for (const [name, args, problem] of cases) {
    const result = await runCli([...args, '--events', file], { t })
    t.equal(result.code, 2, `${name}: exit 2`)
    const errorLines = lines(result.stderr)
    t.equal(errorLines.length, 1, `${name}: one line on stderr: ${JSON.stringify(result.stderr)}`)
    t.match(errorLines[0] ?? '', /^pgloadgen: /, `${name}: says who speaks`)
    t.match(errorLines[0] ?? '', problem, `${name}: names the problem`)
    t.equal(result.stdout, '', `${name}: nothing on stdout`)
  }
  t.same(await readEvents(file), [], 'no event recorded')
  await sleep(500)
  t.same(await sessionsOf(db.adminUrl, db.name), before, 'no session was opened on the database')
  t.equal((await query(db.url, 'SELECT count(*)::int AS n FROM test_table')).rows[0].n, ROWS, 'the table is untouched')
})

t.test('an action on the embedded server, by --data-dir', async t => {
  const dataDir = path.join(dir, 'pgdata')
  const file = eventsFile('embedded')
  const result = await runCli(
    ['checkpoint', '--data-dir', dataDir, '--profile', 'default', '--events', file, '--json'],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.match(result.stderr, /embedded PostgreSQL started/, 'the server is started for it')
  t.match(result.stderr, /embedded PostgreSQL stopped/, 'and stopped afterwards')
  t.match(JSON.parse(result.stdout), { action: 'checkpoint', ok: true }, 'the checkpoint ran')
  t.same(
    (await readEvents(file)).map(e => e.kind),
    ['start', 'end'],
    'start and end events'
  )
})
