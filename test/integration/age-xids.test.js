// age-xids against the machine's PostgreSQL 15: it ages a scratch database
// by at least what it was asked and prints its rate; a held lock is held
// while it runs; bad input and a role without the rights it needs are
// refused with one line and exit 2, before any xid is spent.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase, query, withClient } from '../helpers/pg.js'
import { readEvents } from '../helpers/control.js'
import { checkAction } from '../../lib/sidecar/actions.js'

const db = await createTestDatabase(t, 'age_xids')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-age-xids-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/** @param {string} url */
async function databaseAge(url) {
  return Number(
    (await query(url, 'SELECT age(datfrozenxid) AS age FROM pg_database WHERE datname = current_database()')).rows[0]
      .age
  )
}

/**
 * @param {import('tap').Test} t
 * @param {import('../helpers/cli.js').CliResult} result
 * @param {RegExp} problem
 */
function assertRefused(t, result, problem) {
  t.equal(result.code, 2, 'exit code 2')
  t.equal(result.stdout, '', 'nothing on stdout')
  const errorLines = lines(result.stderr)
  t.equal(errorLines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
  t.match(errorLines[0], problem, 'the line names the problem')
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
}

t.test('--by 2000000 ages the database by at least 2 million and prints the rate', async t => {
  const events = path.join(dir, 'events.ndjson')
  const before = await databaseAge(db.url)
  const result = await runCli(['age-xids', db.url, '--by', '2000000', '--events', events], { t })
  t.equal(result.code, 0, `exit 0: ${result.stderr}`)
  const after = await databaseAge(db.url)
  t.ok(after - before >= 2000000, `aged by ${after - before}`)
  const line =
    /age-xids: 2000000 transaction IDs in [\d.]+ s: (\d+) XIDs\/s \(2 connections\); database \S+ age (\d+) -> (\d+)/.exec(
      result.stdout
    )
  t.ok(line, `the rate and the ages on stdout: ${result.stdout}`)
  if (line) {
    t.ok(Number(line[1]) > 1000, `a rate: ${line[1]} XIDs/s`)
    t.ok(Number(line[3]) - Number(line[2]) >= 2000000, 'its ages say so too')
  }
  const recorded = await readEvents(events)
  t.same(
    recorded.map(e => `${e.kind} ${e.action}`),
    ['start age-xids', 'end age-xids'],
    'start and end recorded'
  )
  t.equal(recorded[1].detail.consumed, 2000000)
  t.ok(recorded[1].detail.server_xids >= 2000000, "the server's next xid moved as far")
})

t.test('--to-age spends what the database (or a table) lacks of that age', async t => {
  const target = (await databaseAge(db.url)) + 150000
  const result = await runCli(
    ['age-xids', db.url, '--to-age', String(target), '--json', '--events', path.join(dir, 'to-age.ndjson')],
    { t }
  )
  t.equal(result.code, 0, `exit 0: ${result.stderr}`)
  const outcome = JSON.parse(result.stdout)
  t.ok(
    outcome.detail.consumed <= 150000 && outcome.detail.consumed > 100000,
    `spent what was missing: ${outcome.detail.consumed}`
  )
  t.ok((await databaseAge(db.url)) >= target, 'the database is that old')
  await withClient(db.url, c => c.query('CREATE TABLE young (id int)'))
  const table = await runCli(
    [
      'age-xids',
      db.url,
      '--to-age',
      '20000',
      '--table',
      'young',
      '--json',
      '--events',
      path.join(dir, 'to-age.ndjson')
    ],
    { t }
  )
  t.equal(table.code, 0, `exit 0: ${table.stderr}`)
  const { rows } = await query(
    db.url,
    "SELECT age(relfrozenxid)::int AS age FROM pg_class WHERE oid = 'young'::regclass"
  )
  t.ok(rows[0].age >= 20000, `the table is ${rows[0].age} old`)
  t.equal(JSON.parse(table.stdout).detail.of, 'young')
})

t.test('--rate paces it; --hold-lock holds the lock vacuum needs meanwhile', async t => {
  await withClient(db.url, c => c.query('CREATE TABLE held (id int)'))
  const run = runCli(
    [
      'age-xids',
      db.url,
      '--by',
      '60000',
      '--rate',
      '20000',
      '--hold-lock',
      'held',
      '--json',
      '--events',
      path.join(dir, 'held.ndjson')
    ],
    { t }
  )
  // the lock shows while it runs (about 3 s at that pace)
  let seen = false
  for (let i = 0; i < 40 && !seen; i++) {
    await new Promise(resolve => setTimeout(resolve, 100))
    const { rows } = await query(
      db.url,
      "SELECT 1 FROM pg_locks WHERE relation = 'held'::regclass AND mode = 'ShareUpdateExclusiveLock' AND granted"
    )
    seen = rows.length > 0
  }
  const result = await run
  t.equal(result.code, 0, `exit 0: ${result.stderr}`)
  t.ok(seen, 'SHARE UPDATE EXCLUSIVE held on the table')
  const outcome = JSON.parse(result.stdout)
  t.equal(outcome.detail.consumed, 60000)
  t.ok(outcome.detail.seconds >= 2.5, `paced: ${outcome.detail.seconds} s for 60000 at 20000/s`)
  t.ok(outcome.detail.xids_per_s <= 24000, `at about the pace: ${outcome.detail.xids_per_s}/s`)
  const { rows } = await query(db.url, "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'held'::regclass")
  t.equal(rows[0].n, 0, 'released at the end')
})

t.test('bad input: one line, exit 2', async t => {
  for (const [args, problem] of /** @type {[string[], RegExp][]} */ ([
    [['--by', '2x'], /--by: expected a whole number/],
    [['--by', '-5'], /--by: expected a whole number/],
    [['--by', '0'], /--by: expected 1 to/],
    [[], /--by: missing/],
    [['--by', '1M', '--rate', 'fast'], /--rate: expected a whole number/],
    [['--by', '1M', '--parallel', '0'], /--parallel must be between 1 and 16/],
    [['--by', '1M', '--hold-lock', 'no;such'], /--hold-lock:/],
    [['--by', '1M', '--to-age', '2M'], /--to-age: give --by or --to-age, not both/],
    [['--by', '1M', '--table', 'x'], /--table: only with --to-age/],
    [['--to-age', '1M', '--table', 'nosuchtable'], /no table nosuchtable/]
  ])) {
    assertRefused(t, await runCli(['age-xids', db.url, ...args], { t }), problem)
  }
  t.throws(() => checkAction({ action: 'age-xids' }, 'actions[0]'), /actions\[0\]\.by: missing/)
  t.throws(
    () => checkAction({ action: 'vacuum', table: 't', by: 5 }, 'actions[0]'),
    /actions\[0\]\.by: only for age-xids/
  )
  t.throws(
    () => checkAction({ action: 'age-xids', by: 5, freeze: true }, 'actions[0]'),
    /actions\[0\]\.freeze: not a field of age-xids/
  )
  t.doesNotThrow(() =>
    checkAction({ action: 'age-xids', by: '2M', rate: 100000, hold_lock: 'test_table' }, 'actions[0]')
  )
})

t.test('a role without the rights it needs is refused before any xid is spent', async t => {
  const role = `pgloadgen_test_noxid_${process.pid}`
  await query(db.adminUrl, `DROP ROLE IF EXISTS ${role}`)
  await query(db.adminUrl, `CREATE ROLE ${role} LOGIN`)
  t.teardown(async () => {
    await query(
      db.url,
      `GRANT USAGE ON LANGUAGE plpgsql TO PUBLIC; GRANT EXECUTE ON FUNCTION pg_current_xact_id() TO PUBLIC`
    ).catch(() => {})
    await query(db.adminUrl, `DROP ROLE IF EXISTS ${role}`).catch(() => {})
  })
  const asRole = new URL(db.url)
  asRole.username = role
  asRole.password = ''
  const roleUrl = asRole.href
  await withClient(db.url, c => c.query('CREATE TABLE owned (id int)'))
  await query(db.url, `GRANT SELECT ON owned TO ${role}`)
  const events = path.join(dir, 'refused.ndjson')
  // locking a table needs more than SELECT on it
  assertRefused(
    t,
    await runCli(['age-xids', roleUrl, '--by', '1000', '--hold-lock', 'owned', '--events', events], { t }),
    new RegExp(`role ${role} on database \\S+ may not lock owned`)
  )
  // the xid function (only in this scratch database)
  await query(db.url, 'REVOKE EXECUTE ON FUNCTION pg_current_xact_id() FROM PUBLIC')
  assertRefused(
    t,
    await runCli(['age-xids', roleUrl, '--by', '1000', '--events', events], { t }),
    /lacks EXECUTE on pg_current_xact_id\(\)/
  )
  // the language its loops run in
  await query(db.url, 'REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC')
  const before = await databaseAge(db.url)
  assertRefused(
    t,
    await runCli(['age-xids', roleUrl, '--by', '1000000', '--events', events], { t }),
    new RegExp(`role ${role} on database \\S+ lacks USAGE on language plpgsql`)
  )
  t.ok((await databaseAge(db.url)) - before < 1000000, 'no xids spent')
  t.same(await readEvents(events).catch(() => []), [], 'no event: nothing started')
})
