// `pgloadgen init` against the real `pgbench -i` (PostgreSQL 15's binary):
// the same options in two scratch databases, one initialised by pgbench,
// the other by initPgbench, must end with the same tables, columns, storage
// options, keys and rows. Then pgbench itself runs its TPC-B script on our
// tables. On the machine's PostgreSQL 15 and on an embedded PostgreSQL 18.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { InitError, initPgbench, parseInitOptions } from '../../lib/pgbench/init.js'
import { createLogger } from '../../lib/log.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { requireTool } from '../helpers/tools.js'

const run = promisify(execFile)
const PGBENCH = '/usr/bin/pgbench'
requireTool(PGBENCH, 'postgresql-15')

/**
 * Runs pgbench (PostgreSQL 15) with args against the database of url.
 * @param {string} url
 * @param {string[]} args
 */
async function pgbench(url, args) {
  const { stdout, stderr } = await run(PGBENCH, [...args, url], {
    env: { ...process.env, PGAPPNAME: 'pgloadgen-tests' }
  })
  return { stdout, stderr }
}

/**
 * initPgbench with a logger whose lines are kept.
 * @param {string} url
 * @param {import('../../lib/pgbench/init-options.js').InitOptionsInput} input
 */
async function ours(url, input) {
  /** @type {string[]} */
  const lines = []
  const log = createLogger({
    level: 'info',
    stream: { write: s => lines.push(s.replace(/^pgloadgen info: /, '').trimEnd()) }
  })
  const result = await initPgbench(url, parseInitOptions(input), { log })
  return { result, lines }
}

/**
 * Everything about pgbench's tables that initialisation decides, with
 * nothing that differs between two databases (oids, xids).
 * @param {string} url
 */
async function definitions(url) {
  return withClient(url, async c => {
    const rows = async (/** @type {string} */ sql) => (await c.query(sql)).rows
    return {
      relations: await rows(`
        select c.relname, c.relkind, c.relpersistence, c.reloptions,
               pg_get_partkeydef(c.oid) as partition_key, pg_get_expr(c.relpartbound, c.oid) as bound,
               (select i.inhparent::regclass::text from pg_inherits i where i.inhrelid = c.oid) as parent
        from pg_class c where c.relnamespace = 'public'::regnamespace order by c.relname`),
      attributes: await rows(`
        select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull,
               pg_get_expr(d.adbin, d.adrelid) as default_value
        from pg_attribute a join pg_class c on c.oid = a.attrelid
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
          and a.attnum > 0 and not a.attisdropped
        order by c.relname, a.attnum`),
      columns: await rows(`
        select table_name, ordinal_position, column_name, data_type, character_maximum_length, numeric_precision,
               is_nullable, column_default
        from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`),
      constraints: await rows(`
        select conrelid::regclass::text as table_name, conname, contype, pg_get_constraintdef(oid) as definition
        from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2, 4`),
      indexes: await rows(
        "select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2"
      )
    }
  })
}

/**
 * The rows, summed and checked, and where they are.
 * @param {string} url
 */
async function contents(url) {
  return withClient(url, async c => {
    const summary = (
      await c.query(`
      select
        (select count(*) from pgbench_branches)::text as branches,
        (select count(*) from pgbench_tellers)::text as tellers,
        (select count(*) from pgbench_accounts)::text as accounts,
        (select count(*) from pgbench_history)::text as history,
        (select sum(bid) from pgbench_branches)::text as branch_bids,
        (select sum(bid) from pgbench_tellers)::text as teller_bids,
        (select sum(tid) from pgbench_tellers)::text as teller_ids,
        (select sum(bid) from pgbench_accounts)::text as account_bids,
        (select sum(aid) from pgbench_accounts)::text as account_ids,
        (select sum(aid::numeric * bid) from pgbench_accounts)::text as account_pairs,
        (select min(aid) || '..' || max(aid) || ' ' || count(distinct aid) from pgbench_accounts) as aid_range,
        (select count(*) from pgbench_accounts where bid <> (aid - 1) / 100000 + 1)::text as misplaced_accounts,
        (select count(*) from pgbench_tellers where bid <> (tid - 1) / 10 + 1)::text as misplaced_tellers,
        (select sum(abalance) from pgbench_accounts)::text as abalance,
        (select sum(tbalance) from pgbench_tellers)::text as tbalance,
        (select sum(bbalance) from pgbench_branches)::text as bbalance,
        (select coalesce(sum(delta), 0) from pgbench_history)::text as delta,
        (select array_agg(distinct filler) from pgbench_branches) as branch_fillers,
        (select array_agg(distinct filler) from pgbench_tellers) as teller_fillers,
        (select array_agg(distinct filler) from pgbench_accounts) as account_fillers,
        (select array_agg(distinct abalance) from pgbench_accounts) as account_balances`)
    ).rows[0]
    const placement = (
      await c.query(
        'select tableoid::regclass::text as part, count(*)::int as n from pgbench_accounts group by 1 order by 1'
      )
    ).rows
    return { summary, placement }
  })
}

/**
 * Initialises db A with pgbench and db B with initPgbench, same options, and
 * compares them.
 * @param {import('tap').Test} t
 * @param {{ a: string, b: string }} dbs
 * @param {string[]} args   pgbench -i options
 * @param {import('../../lib/pgbench/init-options.js').InitOptionsInput} input  the same for initPgbench
 */
async function differential(t, dbs, args, input) {
  await pgbench(dbs.a, ['-i', ...args])
  const { result, lines } = await ours(dbs.b, input)
  t.same(
    await definitions(dbs.b),
    await definitions(dbs.a),
    "tables, columns, storage options, indexes and constraints as pgbench's"
  )
  const mine = await contents(dbs.b)
  t.same(mine, await contents(dbs.a), "rows as pgbench's")
  return { result, lines, mine }
}

/**
 * What holds right after any initialisation at this scale: TPC-B's
 * invariant (the balances of accounts, tellers and branches and the history
 * deltas have one sum), every account and teller in its branch, fillers.
 * @param {import('tap').Test} t
 * @param {Awaited<ReturnType<typeof contents>>} mine
 * @param {number} scale
 */
function checkInitialRows(t, mine, scale) {
  const s = mine.summary
  t.same(
    [s.branches, s.tellers, s.accounts, s.history],
    [String(scale), String(10 * scale), String(100000 * scale), '0'],
    'row counts'
  )
  t.same(
    [s.abalance, s.tbalance, s.bbalance, s.delta],
    ['0', '0', '0', '0'],
    'TPC-B invariant at start: every sum is 0'
  )
  t.equal(s.aid_range, `1..${100000 * scale} ${100000 * scale}`, 'aid 1..N, each once')
  t.same([s.misplaced_accounts, s.misplaced_tellers], ['0', '0'], 'accounts and tellers in their branch')
  t.same(s.branch_fillers, [null])
  t.same(s.teller_fillers, [null])
  t.same(s.account_fillers, [' '.repeat(84)], 'accounts filler blank-padded')
}

/**
 * pgbench's own TPC-B run on tables we made, then the invariant again.
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {RegExp} [expected]  something more pgbench must say
 */
async function pgbenchRuns(t, url, expected) {
  const { stdout } = await pgbench(url, ['-n', '-t', '25', '-c', '2'])
  t.match(stdout, /scaling factor: 2\n/, 'pgbench reads the scale from our tables')
  t.match(stdout, /number of transactions actually processed: 50\/50/)
  if (expected) t.match(stdout, expected)
  const sums = (
    await query(
      url,
      `select (select sum(abalance) from pgbench_accounts)::text as a,
    (select sum(tbalance) from pgbench_tellers)::text as t,
    (select sum(bbalance) from pgbench_branches)::text as b, (select sum(delta) from pgbench_history)::text as h,
    (select count(*)::int from pgbench_history) as n`
    )
  ).rows[0]
  t.equal(sums.n, 50)
  t.ok(sums.a === sums.t && sums.t === sums.b && sums.b === sums.h, `TPC-B invariant after pgbench's run (${sums.a})`)
}

const pg15 = {
  a: (await createTestDatabase(t, 'pgbinit_ref')).url,
  b: (await createTestDatabase(t, 'pgbinit_ours')).url
}

t.test('default steps (dtgvp), scale 2', async t => {
  const { result, lines, mine } = await differential(t, pg15, ['-s', '2'], { scale: 2 })
  checkInitialRows(t, mine, 2)
  t.same(result.steps.map(s => s.step).join(''), 'dtgvp')
  t.same(
    result.steps.map(s => s.name),
    ['drop tables', 'create tables', 'client-side generate', 'vacuum', 'primary keys']
  )
  t.ok(
    result.steps.every(s => s.seconds >= 0 && s.seconds < 30),
    'each step timed'
  )
  t.same(result.rows, { branches: 2, tellers: 20, accounts: 200000, history: 0 })
  t.same(lines.filter(l => !/ tuples /.test(l)).slice(0, -1), [
    'dropping old tables...',
    'creating tables...',
    'generating data (client-side)...',
    'vacuuming...',
    'creating primary keys...'
  ])
  t.match(
    lines.at(-1),
    /^done in \d+\.\d\d s \(drop tables \d+\.\d\d s, create tables \d+\.\d\d s, client-side generate \d+\.\d\d s, vacuum \d+\.\d\d s, primary keys \d+\.\d\d s\)\.$/
  )
  const progress = lines.filter(l => / tuples /.test(l))
  t.equal(progress.length, 2, 'a progress line each 100000 accounts')
  t.match(
    progress[0],
    /^1\d{5} of 200000 tuples \(5\d%\) of pgbench_accounts done \(elapsed \d+\.\d\d s, remaining \d+\.\d\d s\)$/
  )
  t.match(progress[1], /^200000 of 200000 tuples \(100%\) of pgbench_accounts done/)
  await pgbenchRuns(t, pg15.b)
})

t.test('--foreign-keys', async t => {
  const { result, mine } = await differential(t, pg15, ['-s', '2', '--foreign-keys'], { scale: 2, foreignKeys: true })
  checkInitialRows(t, mine, 2)
  t.same(result.steps.map(s => s.step).join(''), 'dtgvpf')
  const fks = (
    await query(
      pg15.b,
      "select conname from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace order by 1"
    )
  ).rows.map(r => r.conname)
  t.same(fks, [
    'pgbench_accounts_bid_fkey',
    'pgbench_history_aid_fkey',
    'pgbench_history_bid_fkey',
    'pgbench_history_tid_fkey',
    'pgbench_tellers_bid_fkey'
  ])
  await pgbenchRuns(t, pg15.b)
})

t.test('--unlogged-tables and -F 90', async t => {
  const { mine } = await differential(t, pg15, ['-s', '2', '--unlogged-tables', '-F', '90'], {
    scale: 2,
    unlogged: true,
    fillfactor: 90
  })
  checkInitialRows(t, mine, 2)
  const relations = (
    await query(
      pg15.b,
      "select relname, relpersistence, reloptions from pg_class where relnamespace = 'public'::regnamespace and " +
        "relkind = 'r' order by 1"
    )
  ).rows
  t.same(relations, [
    { relname: 'pgbench_accounts', relpersistence: 'u', reloptions: ['fillfactor=90'] },
    { relname: 'pgbench_branches', relpersistence: 'u', reloptions: ['fillfactor=90'] },
    { relname: 'pgbench_history', relpersistence: 'u', reloptions: null },
    { relname: 'pgbench_tellers', relpersistence: 'u', reloptions: ['fillfactor=90'] }
  ])
})

t.test('server-side generation (-I dtGvpf), quiet changes nothing there', async t => {
  const { result, lines, mine } = await differential(t, pg15, ['-s', '2', '-q', '-I', 'dtGvpf'], {
    scale: 2,
    quiet: true,
    initSteps: 'dtGvpf'
  })
  checkInitialRows(t, mine, 2)
  t.same(result.rows, { branches: 2, tellers: 20, accounts: 200000, history: 0 })
  t.ok(lines.includes('generating data (server-side)...'))
  t.notOk(
    lines.some(l => / tuples /.test(l)),
    'no progress lines for G'
  )
})

t.test('a custom order: keys before the data, no vacuum, rows written frozen', async t => {
  await Promise.all([pg15.a, pg15.b].map(url => query(url, 'create extension if not exists pg_visibility')))
  const { result, lines, mine } = await differential(t, pg15, ['-s', '2', '-q', '-I', 'dt pfg'], {
    scale: 2,
    quiet: true,
    initSteps: 'dt pfg'
  })
  checkInitialRows(t, mine, 2)
  t.same(result.steps.map(s => s.step).join(''), 'dtpfg')
  const progress = lines.filter(l => / tuples /.test(l))
  t.same(
    progress.map(l => l.replace(/ done .*/, '')),
    [
      '2 of 2 tuples (100%) of pgbench_branches',
      '20 of 20 tuples (100%) of pgbench_tellers',
      '200000 of 200000 tuples (100%) of pgbench_accounts'
    ],
    'quiet: one line at the end of each table (the load takes less than 5 s)'
  )
  // COPY FREEZE (PostgreSQL 14+, unpartitioned): every page all-frozen
  // without a vacuum, as pgbench's.
  for (const url of [pg15.a, pg15.b]) {
    const frozen = (
      await query(
        url,
        'select count(*)::int as pages, count(*) filter (where all_frozen)::int as frozen from ' +
          "pg_visibility_map('pgbench_accounts')"
      )
    ).rows[0]
    t.ok(
      frozen.pages > 0 && frozen.frozen === frozen.pages,
      `accounts written frozen (${frozen.frozen} of ${frozen.pages} pages)`
    )
  }
})

t.test('range partitions, unlogged', async t => {
  const { mine } = await differential(t, pg15, ['-s', '2', '--partitions', '3', '--unlogged-tables'], {
    scale: 2,
    partitions: 3,
    unlogged: true
  })
  checkInitialRows(t, mine, 2)
  t.same(mine.placement, [
    { part: 'pgbench_accounts_1', n: 66667 },
    { part: 'pgbench_accounts_2', n: 66667 },
    { part: 'pgbench_accounts_3', n: 66666 }
  ])
  await pgbenchRuns(t, pg15.b, /partition method: range\npartitions: 3\n/)
})

t.test('hash partitions, -F 80, foreign keys, server-side', async t => {
  const { mine } = await differential(
    t,
    pg15,
    ['-s', '2', '--partitions', '4', '--partition-method', 'hash', '-F', '80', '--foreign-keys', '-I', 'dtGvp'],
    { scale: 2, partitions: 4, partitionMethod: 'hash', fillfactor: 80, foreignKeys: true, initSteps: 'dtGvp' }
  )
  checkInitialRows(t, mine, 2)
  t.equal(mine.placement.length, 4)
  await pgbenchRuns(t, pg15.b, /partition method: hash\npartitions: 4\n/)
})

t.test('tables only, at scales where aid is bigint (-I dt -s 20000 and -s 25000 --partitions 7)', async t => {
  for (const [args, input] of /** @type {const} */ ([
    [['-I', 'dt', '-s', '20000'], { initSteps: 'dt', scale: 20000 }],
    [['-I', 'dt', '-s', '19999'], { initSteps: 'dt', scale: 19999 }],
    [['-I', 'dt', '-s', '25000', '--partitions', '7'], { initSteps: 'dt', scale: 25000, partitions: 7 }]
  ])) {
    await pgbench(pg15.a, ['-i', ...args])
    await ours(pg15.b, input)
    t.same(await definitions(pg15.b), await definitions(pg15.a), args.join(' '))
  }
  const type = (
    await query(
      pg15.b,
      'select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = ' +
        "'pgbench_accounts'::regclass and attname = 'aid'"
    )
  ).rows[0].type
  t.equal(type, 'bigint')
})

t.test("failures name the step and carry the server's words", async t => {
  await t.rejects(ours(pg15.b, { initSteps: 'dg' }), {
    name: 'InitError',
    code: '42P01',
    message: /^client-side generate failed: relation "pgbench_\w+" does not exist$/
  })
  await t.rejects(ours(pg15.b, { initSteps: 'dG' }), {
    name: 'InitError',
    code: '42P01',
    message: /^server-side generate failed: relation "pgbench_\w+" does not exist$/
  })
  await t.rejects(ours(pg15.b, { initSteps: 'dtt' }), {
    name: 'InitError',
    code: '42P07',
    message: 'create tables failed: relation "pgbench_history" already exists'
  })
  const refused = ours('postgres://postgres@127.0.0.1:1/postgres', {})
  await t.rejects(refused, { name: 'InitError', message: /^could not connect for initialization: .*ECONNREFUSED/ })
  await refused.catch(err => t.ok(err instanceof InitError))
})

t.test('PostgreSQL 18 (embedded)', async t => {
  const server = await startEmbedded(t)
  const pg18 = {
    a: (await createTestDatabase(t, 'pgbinit_ref18', server.adminUrl)).url,
    b: (await createTestDatabase(t, 'pgbinit_ours18', server.adminUrl)).url
  }
  const { mine } = await differential(t, pg18, ['-s', '2', '--foreign-keys'], { scale: 2, foreignKeys: true })
  checkInitialRows(t, mine, 2)
  await pgbenchRuns(t, pg18.b)

  // PostgreSQL 18 refuses an unlogged partitioned table (pgbench 15 fails
  // here): the partitions and the other tables are unlogged, the parent not.
  await t.rejects(
    pgbench(pg18.a, ['-i', '-s', '2', '--unlogged-tables', '--partitions', '2']),
    /partitioned tables cannot be unlogged/
  )
  const { result } = await ours(pg18.b, { scale: 2, unlogged: true, partitions: 2 })
  t.same(result.rows, { branches: 2, tellers: 20, accounts: 200000, history: 0 })
  const persistence = (
    await query(
      pg18.b,
      "select relname, relkind, relpersistence from pg_class where relnamespace = 'public'::regnamespace and " +
        "relkind in ('r', 'p') order by 1"
    )
  ).rows
  t.same(persistence, [
    { relname: 'pgbench_accounts', relkind: 'p', relpersistence: 'p' },
    { relname: 'pgbench_accounts_1', relkind: 'r', relpersistence: 'u' },
    { relname: 'pgbench_accounts_2', relkind: 'r', relpersistence: 'u' },
    { relname: 'pgbench_branches', relkind: 'r', relpersistence: 'u' },
    { relname: 'pgbench_history', relkind: 'r', relpersistence: 'u' },
    { relname: 'pgbench_tellers', relkind: 'r', relpersistence: 'u' }
  ])
  checkInitialRows(t, await contents(pg18.b), 2)
  await pgbenchRuns(t, pg18.b, /partition method: range\npartitions: 2\n/)
})
