// A request that times out is cancelled on the server, against the tests'
// PostgreSQL 15. Two pgbench scripts, SELECT 1 at weight 9 and
// SELECT pg_sleep(30) at weight 1, four clients, a 300 ms request timeout:
// every sleep times out. While the run goes, pg_stat_activity is polled: no
// backend of the run has been sleeping for longer than the timeout, the
// cancel's grace and the sweep's delay together, and the run never has more
// backends than its clients and its control connection. After the run, no
// backend of it is left sleeping (a bounded wait, not a fixed sleep); the
// cancels are counted, and a cancel that succeeded kept its connection.
// Then the same at shutdown, with no request timeout: the requests still
// running at the shutdown timeout are cancelled before the run exits. And
// the wire client's cancel on its own: the statement ends with 57014 and the
// connection goes on.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'

const db = await createTestDatabase(t, 'cancel')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-cancel-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const fast = path.join(dir, 'fast.sql')
const slow = path.join(dir, 'slow.sql')
await writeFile(fast, 'SELECT 1;\n')
await writeFile(slow, 'SELECT pg_sleep(30);\n')

const CLIENTS = 4
const TIMEOUT_MS = 300
// the sweep looks every tenth of the timeout; the cancel has 1 s to work; a loaded machine may add a second more
const LONGEST_SLEEP_MS = TIMEOUT_MS + 1000 + 1500

/**
 * The backends of an application_name on the test database: all of them,
 * those running pg_sleep, and the longest a pg_sleep has run.
 * @param {string} applicationName
 */
async function backendsOf(applicationName) {
  const { rows } = await query(
    db.adminUrl,
    `SELECT count(*)::int AS all,
            count(*) FILTER (WHERE state = 'active' AND query LIKE '%pg_sleep%')::int AS sleeping,
            coalesce(max(extract(epoch FROM clock_timestamp() - query_start) * 1000)
              FILTER (WHERE state = 'active' AND query LIKE '%pg_sleep%'), 0)::float8 AS longest_ms
       FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
    [db.name, applicationName]
  )
  return /** @type {{ all: number, sleeping: number, longest_ms: number }} */ (rows[0])
}

/**
 * Polls backendsOf until stopped: the most backends and the longest sleep seen.
 * @param {string} applicationName
 */
function watchBackends(applicationName) {
  let stopped = false
  const seen = { polls: 0, most: 0, longestMs: 0 }
  const loop = (async () => {
    while (!stopped) {
      const now = await backendsOf(applicationName)
      seen.polls++
      seen.most = Math.max(seen.most, now.all)
      seen.longestMs = Math.max(seen.longestMs, now.longest_ms)
      await sleep(100)
    }
  })()
  return {
    async stop() {
      stopped = true
      await loop
      return seen
    }
  }
}

/**
 * Waits (bounded) until no backend of the application runs pg_sleep.
 * @param {string} applicationName
 */
async function noSleeperLeft(applicationName) {
  let left = -1
  await waitFor(
    async () => {
      left = (await backendsOf(applicationName)).sleeping
      return left === 0
    },
    { what: `no backend of ${applicationName} sleeping`, timeoutMs: 5000, intervalMs: 100 }
  ).catch(() => {})
  return left
}

t.test('timed-out requests are cancelled on the server, their connections kept', async t => {
  const app = `pgloadgen_cancel_${process.pid}`
  const run = new CliRun(
    [
      'run',
      `${db.url}?application_name=${app}`,
      '-f',
      `${fast}@9`,
      '-f',
      `${slow}@1`,
      '-c',
      String(CLIENTS),
      '-d',
      '6',
      '-P',
      '1',
      '-p',
      '0',
      '--json',
      '--no-pg-stats',
      '--request-timeout',
      `${TIMEOUT_MS}ms`
    ],
    { t }
  )
  await run.metricsUrl()
  const watch = watchBackends(app)
  const result = await run.exited
  const seen = await watch.stop()
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.slice(-400)})`)
  t.equal(await noSleeperLeft(app), 0, 'after the run, no backend of it is left sleeping')
  t.ok(seen.polls >= 5, `pg_stat_activity polled during the run (${seen.polls} times)`)
  t.ok(
    seen.longestMs < LONGEST_SLEEP_MS,
    `no sleep outlived its timeout and cancel (longest ${Math.round(seen.longestMs)} ms)`
  )
  // the clients, and the setup connection while it lasts
  t.ok(seen.most <= CLIENTS + 1, `at most the clients and a control connection at once (${seen.most})`)
  const summary = result.summary
  const { cancels } = summary
  t.ok(summary.requests.slow.timeouts >= 1, `the sleeps timed out (${summary.requests.slow.timeouts})`)
  t.equal(summary.requests.slow.timeouts, summary.requests.slow.failed, 'every sleep failed as a timeout')
  t.equal(summary.requests.fast.failed, 0, 'the fast requests did not fail')
  t.equal(cancels.sent, cancels.succeeded + cancels.gave_up, `each cancel counted once (${JSON.stringify(cancels)})`)
  t.ok(cancels.succeeded >= 1, 'cancels succeeded')
  t.ok(cancels.sent >= summary.requests.slow.timeouts, 'a cancel for every timeout')
  t.ok(
    summary.reconnects <= cancels.gave_up,
    `a cancelled request kept its connection (${summary.reconnects} reconnects)`
  )
  t.match(result.stderr, /request timed out after N ms; cancelled on the server/, 'the failure says so')
  t.match(result.stderr, /cancels: \d+ sent, \d+ ended on the server/, 'the end table counts the cancels')
  t.match(result.stderr, /\d+ cancelled/, 'a progress line counts them')
})

t.test('requests still running at the shutdown timeout are cancelled before the run exits', async t => {
  const app = `pgloadgen_cancel_stop_${process.pid}`
  const result = await new CliRun(
    [
      'run',
      `${db.url}?application_name=${app}`,
      '-f',
      slow,
      '-c',
      '2',
      '-d',
      '2',
      '-p',
      '0',
      '--json',
      '--no-pg-stats',
      '--request-timeout',
      'off',
      '--shutdown-timeout',
      '1'
    ],
    { t }
  ).exited
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.slice(-400)})`)
  t.equal(await noSleeperLeft(app), 0, 'after the run, no backend of it is left sleeping')
  t.equal(result.summary.cancels.sent, 2, 'a cancel for each request in flight')
  t.match(result.stderr, /still running at the shutdown timeout; cancelled on the server/)
  t.equal(result.summary.timeouts, 0, 'not counted as timeouts')
})

t.test("the wire client's cancel: the statement ends with 57014, the connection goes on", async t => {
  const connection = await WireConnection.connect(db.url, { applicationName: `pgloadgen_cancel_wire_${process.pid}` })
  t.teardown(() => connection.close())
  t.ok(connection.backendKey !== null, 'the start-up gave a key')
  const sleeping = connection.simpleQuery('SELECT pg_sleep(30)')
  const outcome = sleeping.then(
    () => null,
    err => err
  )
  await waitFor(async () => (await backendsOf(`pgloadgen_cancel_wire_${process.pid}`)).sleeping === 1, {
    what: 'the statement running'
  })
  t.equal(await connection.cancel(5000), true, 'the server took the cancel')
  const err = await outcome
  t.equal(err?.code, '57014', `the statement ended with query_canceled (${err?.message})`)
  t.equal(connection.broken, false, 'the connection is still usable')
  const [after] = await connection.simpleQuery('SELECT 2')
  t.equal(after.first, '2', 'and answers the next statement')
})
