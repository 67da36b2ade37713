// Every bad input: one line naming the problem on stderr, exit code 2, and
// nothing touched: no connection to the database, no data directory created.
import t from 'tap'
import net from 'node:net'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { runCli, lines, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, urlFor, listTables, sessionsOf, withClient } from '../helpers/pg.js'
import { tempDataDir } from '../helpers/embedded.js'

const PASSWORD = 's3cret'
const db = await createTestDatabase(t, 'bad_input')
// A valid URL to a fresh database, with a password that must never be printed.
const url = urlFor(db.url, db.name, { password: PASSWORD })
// Bounds for the case where a bad input were accepted by mistake: the run
// would end by itself, and the database checks below would catch it.
const BOUNDED = ['-d', '2', '--connect-timeout', '2', '-p', '0']

/**
 * @param {import('tap').Test} t
 * @param {import('../helpers/cli.js').CliResult} result
 * @param {RegExp} problem
 */
function assertUsageError(t, result, problem) {
  t.equal(result.code, 2, 'exit code 2')
  t.equal(result.signal, null, 'not killed by a signal')
  t.equal(result.stdout, '', 'nothing on stdout')
  const errorLines = lines(result.stderr)
  t.equal(errorLines.length, 1, `exactly one line on stderr: ${JSON.stringify(result.stderr)}`)
  t.match(errorLines[0], /^pgloadgen: \S/, 'the line says who speaks')
  t.match(errorLines[0], problem, 'the line names the problem')
  t.notMatch(result.stderr, PASSWORD, 'the password is not printed')
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
  t.ok(result.elapsedMs < 10000, `fails fast (${result.elapsedMs} ms)`)
}

/** @type {{ name: string, args: string[], problem: RegExp, env?: Record<string, string> }[]} */
const cases = [
  // named once, as typed (yargs would add its camelCase form)
  {
    name: 'unknown long flag',
    args: ['run', url, '--bogus-flag', ...BOUNDED],
    problem: /unknown argument: bogus-flag$/i
  },
  {
    name: 'two unknown long flags',
    args: ['run', url, '--bogus-flag', '--other-one=3', ...BOUNDED],
    problem: /unknown arguments: bogus-flag, other-one$/i
  },
  { name: 'unknown short flag', args: ['run', url, '-x', ...BOUNDED], problem: /unknown argument.*\bx\b/i },
  {
    name: 'unknown flag with a value',
    args: ['run', url, '--concurency=4', ...BOUNDED],
    problem: /unknown argument.*concurency/i
  },
  {
    name: 'unknown command',
    args: ['walk', url, ...BOUNDED],
    // yargs lists every unrecognised argument, the URL included
    problem: /unknown argument.*walk/i
  },
  { name: 'no command', args: [], problem: /command/i },
  { name: 'concurrency zero', args: ['run', url, '-c', '0', ...BOUNDED], problem: /--concurrency.*\b0\b/ },
  { name: 'concurrency negative', args: ['run', url, '--concurrency', '-3', ...BOUNDED], problem: /--concurrency.*-3/ },
  { name: 'concurrency fractional', args: ['run', url, '-c', '2.5', ...BOUNDED], problem: /--concurrency.*2\.5/ },
  { name: 'concurrency not a number', args: ['run', url, '-c', 'many', ...BOUNDED], problem: /--concurrency.*many/ },
  { name: 'concurrency empty', args: ['run', url, '-c', '', ...BOUNDED], problem: /--concurrency/ },
  {
    name: 'request timeout zero',
    args: ['run', url, '--request-timeout', '0', ...BOUNDED],
    problem: /--request-timeout must be between 0\.01 and 86400 seconds, or off, got "0"/
  },
  {
    name: 'request timeout not a duration',
    args: ['run', url, '--request-timeout', 'soon', ...BOUNDED],
    problem: /--request-timeout must be a duration.*or off, got "soon"/
  },
  {
    name: 'request timeout longer than the run',
    args: ['run', url, '--request-timeout', '5m', ...BOUNDED],
    problem: /--request-timeout 300 s is longer than the run \(2 s\)/
  },
  { name: 'unknown workload', args: ['run', url, '-w', 'tpcc', ...BOUNDED], problem: /workload.*tpcc/ },
  {
    name: 'unknown request type in --mix',
    args: ['run', url, '--mix', 'insert_row=50,delete_row=50', ...BOUNDED],
    problem: /--mix.*request type.*delete_row/
  },
  {
    name: 'request type misspelt in --mix',
    args: ['run', url, '--mix', 'insert_rows=1', ...BOUNDED],
    problem: /--mix.*insert_rows/
  },
  {
    name: 'negative weight in --mix',
    args: ['run', url, '--mix', 'insert_row=-1,read_row=5', ...BOUNDED],
    problem: /--mix.*insert_row.*negative/
  },
  {
    name: 'all weights zero in --mix',
    args: ['run', url, '--mix', 'insert_row=0,read_row=0,update_row=0,injected_error=0,fetch_max=0', ...BOUNDED],
    problem: /--mix.*zero/
  },
  {
    name: 'weight not a number in --mix',
    args: ['run', url, '--mix', 'insert_row=lots', ...BOUNDED],
    problem: /--mix.*insert_row.*lots/
  },
  { name: 'malformed URL', args: ['run', 'not a url', ...BOUNDED], problem: /malformed PostgreSQL URL/ },
  {
    name: 'malformed URL with a password',
    args: ['run', `postgres://postgres:${PASSWORD}@[127.0.0.1/${db.name}`, ...BOUNDED],
    problem: /malformed PostgreSQL URL/
  },
  {
    name: 'URL with a port out of range',
    args: ['run', `postgres://postgres:${PASSWORD}@127.0.0.1:99999/${db.name}`, ...BOUNDED],
    problem: /PostgreSQL URL/
  },
  {
    name: 'URL of another scheme',
    args: ['run', `http://127.0.0.1:5432/${db.name}`, ...BOUNDED],
    problem: /postgres:\/\//
  },
  { name: 'URL without a host', args: ['run', `postgres:///${db.name}`, ...BOUNDED], problem: /no host/ },
  {
    name: 'malformed URL in PGLOADGEN_PG_URL',
    args: ['run', ...BOUNDED],
    env: { PGLOADGEN_PG_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:5432:5433/${db.name}` },
    problem: /PostgreSQL URL/
  },
  {
    name: 'malformed URL in DATABASE_URL',
    args: ['run', ...BOUNDED],
    env: { DATABASE_URL: 'localhost 5432' },
    problem: /malformed PostgreSQL URL/
  },
  { name: 'unknown sslmode', args: ['run', `${url}?sslmode=maybe`, ...BOUNDED], problem: /unknown sslmode "maybe"/ },
  {
    name: 'sslmode=verify-ca without a root certificate',
    args: ['run', `${url}?sslmode=verify-ca`, ...BOUNDED],
    problem: /verify-ca.*sslrootcert/
  },
  {
    name: 'unreadable sslrootcert',
    args: ['run', `${url}?sslmode=verify-full&sslrootcert=/no/such/ca.pem`, ...BOUNDED],
    problem: /cannot read the sslrootcert file/
  },
  {
    name: 'empty control token',
    args: ['run', url, '--http-host', '0.0.0.0', '--control-token', '', ...BOUNDED],
    problem: /--control-token.*empty/
  },
  {
    name: 'blank control token in PGLOADGEN_CONTROL_TOKEN',
    args: ['run', url, ...BOUNDED],
    env: { PGLOADGEN_CONTROL_TOKEN: ' ' },
    problem: /PGLOADGEN_CONTROL_TOKEN.*whitespace/
  },
  {
    name: 'control token with a space',
    args: ['run', url, '--control-token', 'two words', ...BOUNDED],
    problem: /--control-token.*whitespace/
  }
]

t.test('each bad input', { jobs: 3 }, async t => {
  for (const c of cases) {
    t.test(c.name, async t => {
      assertUsageError(t, await runCli(c.args, { env: c.env, t }), c.problem)
    })
  }
})

t.test('HTTP port in use', async t => {
  const blocker = net.createServer()
  await new Promise(resolve => blocker.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.teardown(() => new Promise(resolve => blocker.close(() => resolve(undefined))))
  const port = /** @type {net.AddressInfo} */ (blocker.address()).port
  const result = await runCli(['run', url, '-p', String(port), '-d', '2', '--connect-timeout', '2'], { t })
  assertUsageError(t, result, new RegExp(`port ${port}.*in use`))
})

t.test('bad input without a URL leaves the embedded data directory alone', async t => {
  const dataDir = path.join(await tempDataDir(t), 'pgdata')
  const base = ['run', '--data-dir', dataDir, '-d', '2', '-p', '0']
  assertUsageError(t, await runCli([...base, '-c', '0'], { t }), /--concurrency/)
  assertUsageError(t, await runCli([...base, '--mix', 'read_row=-2'], { t }), /--mix.*negative/)
  assertUsageError(t, await runCli([...base, '--profile', 'no-such-profile'], { t }), /profile.*no-such-profile/)
  t.notOk(existsSync(dataDir), 'no data directory was created, no server initialised')
})

t.test('none of the bad inputs touched the database', async t => {
  // A session that was opened and closed reaches the statistics when its
  // backend exits; give a late one a moment.
  await sleep(500)
  const after = await sessionsOf(db.adminUrl, db.name)
  t.equal(after.sessions, 0, 'no session was ever opened on the test database')
  t.equal(after.backends, 0, 'no session is open on the test database')

  // The check can see a session: open one, then it is counted.
  await withClient(db.url, client => client.query('SELECT 1'))
  await waitFor(async () => (await sessionsOf(db.adminUrl, db.name)).sessions === 1, {
    what: 'the control session to be counted',
    timeoutMs: 10000
  })
  t.pass('a session on the test database is counted')

  t.same(await listTables(db.url), [], 'no table was created')
})
