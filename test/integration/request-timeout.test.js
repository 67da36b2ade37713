// --request-timeout against the tests' PostgreSQL 15, with no network fault:
// manta's inserts alone, while a session holds their table locked for longer than the timeout. Every
// request stuck behind the lock fails as a timeout, counted by type on
// /metrics and in the summary; its connection is replaced (the new
// connection's own first statement waits on the lock too, and is timed out
// the same way); the load comes back once the lock goes. The backends left
// behind still insert once the lock goes, although nobody is listening: the
// inserts left in doubt are found committed at exit, and the table holds
// exactly the acknowledged rows and those.
import t from 'tap'
import pg from 'pg'
import { CliRun, sleep, waitFor } from '../helpers/cli.js'
import { createTestDatabase, countRows } from '../helpers/pg.js'
import { scrape } from '../helpers/prom.js'
import { requestsDone } from '../helpers/disruption.js'

const db = await createTestDatabase(t, 'request_timeout')

t.test(
  'requests stuck behind a lock time out, their connections are replaced, the in-doubt inserts are resolved',
  async t => {
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
    t.ok(summary.reconnects >= 4, `the connections were replaced (${summary.reconnects} reconnects)`)
    t.match(result.stderr, /request timed out after 1 s/, 'the failure says what happened')
    t.match(
      result.stderr,
      /timeouts: [\d,]+ requests? got no answer within the request timeout/,
      'the end table counts them'
    )
    t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
    t.equal(summary.acknowledged_vanished, 0, 'none vanished')
    // every request is an insert: each timeout left one in doubt
    t.equal(
      summary.inserts_in_doubt,
      summary.requests.insert_row.timeouts,
      `every insert that timed out is in doubt (${summary.inserts_in_doubt})`
    )
    t.type(summary.inserts_in_doubt_stored, 'number', 'and looked for at exit')
    const rows = await countRows(db.url, 'test_table')
    t.equal(
      rows,
      summary.acknowledged_inserts + summary.inserts_in_doubt_stored,
      `the table holds the acknowledged inserts and the in-doubt ones found committed ` +
        `(${summary.inserts_in_doubt_stored} of ${summary.inserts_in_doubt})`
    )
  }
)
