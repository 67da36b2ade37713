// Bad workloads and scripts: one line naming the problem (FILE:LINE for a
// script), exit 2, and nothing touched: no session on the database.
import t from 'tap'
import { runCli, lines, sleep } from '../helpers/cli.js'
import { createTestDatabase, listTables, sessionsOf } from '../helpers/pg.js'

const db = await createTestDatabase(t, 'workload_bad_input')
const BOUNDED = ['-d', '2', '--connect-timeout', '2', '-p', '0']
const MODULES = 'test/fixtures/workloads'
const SCRIPTS = 'test/fixtures/bad-scripts'

/** @type {{ name: string, args: string[], problem: RegExp }[]} */
const cases = [
  // scripts
  { name: 'missing script', args: ['-f', 'test/fixtures/no-such-script.sql'], problem: /no-such-script\.sql/ },
  { name: 'unreadable script (a directory)', args: ['-f', SCRIPTS], problem: /bad-scripts/ },
  { name: 'syntax error in an expression', args: ['-f', `${SCRIPTS}/syntax.sql`], problem: /syntax\.sql:2: / },
  {
    name: '\\shell is refused',
    args: ['-f', `${SCRIPTS}/shell.sql`],
    problem: /shell\.sql:2: .*\\shell.*not supported/
  },
  {
    name: '\\setshell is refused',
    args: ['-f', `${SCRIPTS}/setshell.sql`],
    problem: /setshell\.sql:2: .*\\setshell.*not supported/
  },
  { name: 'unknown meta-command', args: ['-f', `${SCRIPTS}/unknown-meta.sql`], problem: /unknown-meta\.sql:2: .*foo/ },
  { name: '\\if without \\endif', args: ['-f', `${SCRIPTS}/unclosed-if.sql`], problem: /unclosed-if\.sql.*endif/ },
  { name: 'empty script', args: ['-f', `${SCRIPTS}/empty.sql`], problem: /empty\.sql/ },
  { name: 'unknown builtin', args: ['-b', 'tpcc'], problem: /tpcc/ },
  { name: 'bad weight', args: ['-b', 'tpcb-like@heavy'], problem: /weight/ },
  { name: 'negative weight', args: ['-b', 'select-only@-1'], problem: /weight/ },
  { name: 'all weights zero', args: ['-b', 'select-only@0'], problem: /weight|zero/ },
  {
    name: 'two scripts of one name',
    args: ['-b', 'select-only', '-b', 'select-only'],
    problem: /two scripts are named "select-only"/
  },
  {
    name: '-f with a workload that is not scripts',
    args: ['--workload', 'manta', '-b', 'tpcb-like'],
    problem: /cannot be combined with --workload manta/
  },
  { name: '--reset with scripts', args: ['-b', 'tpcb-like', '--reset'], problem: /--reset/ },
  { name: '-s with manta', args: ['-s', '10'], problem: /--scale/ },
  { name: 'bad -D', args: ['-b', 'tpcb-like', '-D', 'novalue'], problem: /-D: expected NAME=VALUE/ },
  {
    name: 'mix naming a type the scripts lack',
    args: ['-b', 'tpcb-like', '--mix', 'insert_row=1'],
    problem: /--mix: unknown request type "insert_row" \(known: tpcb-like\)/
  },
  {
    name: 'unknown protocol',
    args: ['-M', 'binary'],
    problem: /--protocol \(-M\) must be simple, extended or prepared/
  },
  { name: 'bad random seed', args: ['-b', 'tpcb-like', '--random-seed', 'soon'], problem: /random seed.*"soon"/ },
  { name: '--random-seed with manta', args: ['--random-seed', '1'], problem: /--random-seed/ },
  // modules
  {
    name: 'module with a syntax error',
    args: ['--workload', `${MODULES}/syntax-error.js`],
    problem: /cannot load workload .*syntax-error\.js: SyntaxError/
  },
  {
    name: 'module that throws at load',
    args: ['--workload', `${MODULES}/throws-at-load.js`],
    problem: /cannot load workload .*throws-at-load\.js: Error: the module refuses to load/
  },
  {
    name: 'module without a default export',
    args: ['--workload', `${MODULES}/no-default.js`],
    problem: /no default export/
  },
  {
    name: 'module without request types',
    args: ['--workload', `${MODULES}/no-types.js`],
    problem: /declares no request type/
  },
  {
    name: 'module with 65 request types',
    args: ['--workload', `${MODULES}/too-many-types.js`],
    problem: /65 request types; at most 64/
  },
  {
    name: 'module missing a request function',
    args: ['--workload', `${MODULES}/missing-request.js`],
    problem: /requests\.write: missing/
  },
  {
    name: 'module declaring a type twice',
    args: ['--workload', `${MODULES}/duplicate-type.js`],
    problem: /"read" is declared twice/
  },
  {
    name: 'missing module',
    args: ['--workload', './no/such/module.js'],
    problem: /cannot load workload .*no such file/
  },
  {
    name: 'a workload option out of its range',
    args: ['--workload', 'notes/workloads/job-queue.js', '--payload-bytes', '0'],
    problem: /--payload-bytes: must be at least 1, got 0/
  },
  {
    name: 'a workload option that is not a number',
    args: ['--workload', 'notes/workloads/job-queue.js', '--queues', 'many'],
    problem: /--queues: expected a number, got "many"/
  },
  {
    name: 'a workload option of another workload',
    args: ['--payload-bytes', '10'],
    problem: /unknown argument: payload-bytes/i
  },
  {
    name: 'module refusing a -D setting',
    args: ['--workload', 'test/fixtures/workloads/ledger.js', '-D', 'bulk_rows=lots'],
    problem: /ledger.*bulk_rows must be a whole number/
  },
  {
    name: 'mix naming a type the module lacks',
    args: ['--workload', 'notes/workloads/job-queue.js', '--mix', 'insert_row=1'],
    problem: /unknown request type "insert_row" \(known: enqueue, dequeue, peek\)/
  },
  {
    name: '-f with a module',
    args: ['--workload', 'notes/workloads/job-queue.js', '-f', 'x.sql'],
    problem: /cannot be combined with --workload/
  }
]

t.test('each bad input', { jobs: 3 }, async t => {
  for (const c of cases) {
    t.test(c.name, async t => {
      const result = await runCli(['run', db.url, ...c.args, ...BOUNDED], { t })
      t.equal(result.code, 2, `exit code 2 (stderr: ${result.stderr})`)
      t.equal(result.stdout, '', 'nothing on stdout')
      const errorLines = lines(result.stderr)
      t.equal(errorLines.length, 1, `exactly one line on stderr: ${JSON.stringify(result.stderr)}`)
      t.match(errorLines[0], /^pgloadgen: \S/, 'the line says who speaks')
      t.match(errorLines[0], c.problem, 'the line names the problem')
      t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
    })
  }
})

t.test('init: bad options are refused before anything connects', async t => {
  for (const [args, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['-s', '0'], /scale/],
    [['-s', 'ten'], /scale/],
    [['-F', '5'], /fillfactor/],
    [['-I', 'dtx'], /init step|unrecognized/i],
    [['--partition-method', 'hash'], /partitions/]
  ])) {
    const result = await runCli(['init', db.url, ...args], { t })
    t.equal(result.code, 2, `${args.join(' ')}: exit 2 (stderr: ${result.stderr})`)
    t.equal(lines(result.stderr).length, 1, `${args.join(' ')}: one line`)
    t.match(result.stderr, problem, `${args.join(' ')}: names the problem`)
  }
})

t.test('none of the bad inputs touched the database', async t => {
  await sleep(500)
  const after = await sessionsOf(db.adminUrl, db.name)
  t.equal(after.sessions, 0, 'no session was ever opened on the test database')
  t.same(await listTables(db.url), [], 'no table was created')
})
