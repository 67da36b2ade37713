// --request-timeout against the tests' PostgreSQL 15, with no network fault:
// manta's inserts alone, while a session holds their table locked for longer than the timeout. Every
// request stuck behind the lock fails as a timeout, counted by type on
// /metrics and in the summary; it is cancelled on the server, so that its
// insert does not go on waiting there, and its connection is kept (replaced
// only when the cancel did not end it within its grace); the load comes
// back once the lock goes. A cancelled insert failed on the server: it is
// not in doubt; one whose connection was cut is, and is looked for at exit.
// The table holds exactly the acknowledged rows and the in-doubt ones found
// committed.
import t from 'tap'
import pg from 'pg'
import { CliRun, sleep, waitFor } from '../helpers/cli.js'
import { createTestDatabase, countRows } from '../helpers/pg.js'
import { scrape } from '../helpers/prom.js'
import { requestsDone } from '../helpers/disruption.js'

const db = await createTestDatabase(t, 'request_timeout')

t.test('requests stuck behind a lock time out and are cancelled on the server, their connections kept', async t => {
  const run = new CliRun(
    [
      'run',
      db.url,
      '-c',
      '4',
      '-d',
      '14',
      '-p',
      '0',
      '--json',
      '--no-pg-stats',
      '--request-timeout',
      '1s',
      '--mix',
      'insert_row=1'
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await waitFor(async () => (await requestsDone(metricsUrl)) > 300, { what: 'the load under way', timeoutMs: 30000 })
  const locker = new pg.Client({ connectionString: db.url, application_name: 'lock-holder' })
  await locker.connect()
  await locker.query('BEGIN')
  await locker.query('LOCK TABLE test_table IN ACCESS EXCLUSIVE MODE')
  await sleep(4000)
  const timeoutsOnMetrics = (await scrape(metricsUrl)).families.get('pgloadgen_request_timeouts_total')?.samples ?? []
  await locker.query('COMMIT')
  await locker.end()
  const doneAtRelease = await requestsDone(metricsUrl)
  await waitFor(async () => (await requestsDone(metricsUrl)) > doneAtRelease + 200, {
    what: 'the load back after the lock',
    timeoutMs: 15000
  })
  const result = await run.exited
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.slice(-400)})`)
  const summary = result.summary
  t.ok(
    timeoutsOnMetrics.reduce((n, sample) => n + sample.value, 0) >= 1,
    'pgloadgen_request_timeouts_total counted timeouts while the lock was held'
  )
  t.ok(summary.timeouts >= 4, `at least one timeout per client (${summary.timeouts})`)
  t.equal(
    Object.values(summary.requests).reduce((n, r) => n + r.timeouts, 0),
    summary.timeouts,
    'the timeouts by type add up'
  )
  const { cancels } = summary
  t.ok(cancels.succeeded >= 4, `cancelled on the server (${JSON.stringify(cancels)})`)
  t.ok(summary.reconnects <= cancels.gave_up, `a cancelled request kept its connection (${summary.reconnects})`)
  t.match(result.stderr, /request timed out after N s; cancelled on the server/, 'the failure says what happened')
  t.match(
    result.stderr,
    /timeouts: [\d,]+ requests? got no answer within the request timeout/,
    'the end table counts them'
  )
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
  t.equal(summary.acknowledged_vanished, 0, 'none vanished')
  // every request is an insert: only those whose cancel did not end them are in doubt
  t.ok(
    summary.inserts_in_doubt <= cancels.gave_up,
    `a cancelled insert is not in doubt (${summary.inserts_in_doubt} in doubt)`
  )
  t.type(summary.inserts_in_doubt_stored, 'number', 'and looked for at exit')
  const rows = await countRows(db.url, 'test_table')
  t.equal(
    rows,
    summary.acknowledged_inserts + summary.inserts_in_doubt_stored,
    `the table holds the acknowledged inserts and the in-doubt ones found committed ` +
      `(${summary.inserts_in_doubt_stored} of ${summary.inserts_in_doubt})`
  )
})
