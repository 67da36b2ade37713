// Through a real PgBouncer in transaction pooling mode, where a client's
// statements run on whichever server connection is free: named prepared
// statements (-M prepared) break, as they do for pgbench; -M extended
// (unnamed statements) and -M simple work, with nothing lost.
import t from 'tap'
import { runCli } from '../helpers/cli.js'
import { createTestDatabase, countRows } from '../helpers/pg.js'
import { startPgBouncer } from '../helpers/pgbouncer.js'
import { assertConsistent } from '../helpers/summary.js'

const db = await createTestDatabase(t, 'pgbouncer')
const bouncer = await startPgBouncer(t, db.url, { poolMode: 'transaction', poolSize: 3 })

// a count of requests, not a time, so that the counts below hold however
// busy the machine: 8 × 125 of manta's mix, some 600 inserts and 180 updates
/** @param {string[]} extra */
const run = extra =>
  runCli(
    ['run', bouncer.url, '-c', '8', '-t', '125', '--json', '-p', '0', '--no-pg-stats', '--log-level', 'warn', ...extra],
    { t }
  )

t.test(
  '-M prepared fails through a transaction pooler: statements prepared on one server connection are used on another',
  async t => {
    const result = await run(['-M', 'prepared'])
    t.equal(result.code, 0, `the run itself completes; stderr: ${result.stderr}`)
    t.equal(result.summary.protocol, 'prepared')
    t.ok(result.summary.unexpected_failures > 0, `requests fail (${result.summary.unexpected_failures})`)
    t.ok(
      Object.keys(result.summary.errors).some(message =>
        /prepared statement "\?" (does not exist|already exists)/.test(message)
      ),
      `the failures are about prepared statements: ${JSON.stringify(result.summary.errors)}`
    )
  }
)

for (const protocol of ['extended', 'simple']) {
  t.test(`-M ${protocol} runs manta through the pooler without an unexpected failure`, async t => {
    const before = await countRows(db.url, 'test_table')
    const result = await run(['-M', protocol])
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
    const summary = result.summary
    t.equal(summary.protocol, protocol)
    assertConsistent(t, summary, { concurrency: 8 })
    t.equal(summary.unexpected_failures, 0, `no unexpected failure: ${JSON.stringify(summary.errors)}`)
    t.ok(summary.requests.insert_row.done > 500, `inserts went through (${summary.requests.insert_row.done})`)
    t.ok(
      summary.requests.update_row.done > 100,
      `pipelined update transactions went through (${summary.requests.update_row.done})`
    )
    t.equal(summary.acknowledged_missing, 0, 'every acknowledged insert is in the table')
    t.equal(
      (await countRows(db.url, 'test_table')) - before,
      summary.acknowledged_inserts,
      'the table gained exactly the rows acknowledged'
    )
  })
}
