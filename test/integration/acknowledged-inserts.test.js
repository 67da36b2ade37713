// Every insert the server acknowledged is in the table, and the table gains
// exactly the rows acknowledged: both workloads on PostgreSQL 15, on a fresh
// database, then on top of existing rows, then after --reset.
import t from 'tap'
import { runCli } from '../helpers/cli.js'
import { createTestDatabase, countRows, query } from '../helpers/pg.js'
import { assertConsistent, assertIdsFound } from '../helpers/summary.js'

for (const { workload, table } of [
  { workload: 'manta', table: 'test_table' },
  { workload: 'timeseries', table: 'cpu' }
]) {
  t.test(`${workload} (table ${table})`, async t => {
    const db = await createTestDatabase(t, `ack_${workload}`)
    // a count of requests, not a time: 4 × 500 of the mix hold some 1200
    // inserts however busy the machine
    const args = ['run', db.url, '-w', workload, '-c', '4', '-t', '500', '--json', '-p', '0']

    /**
     * One run; returns the rows the table had before and after, and the summary.
     * @param {string[]} extra
     */
    const run = async (extra = []) => {
      const before = await countRows(db.url, table)
      const result = await runCli([...args, ...extra], { t })
      t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
      t.ok(result.summary, 'a JSON summary')
      assertConsistent(t, result.summary, { concurrency: 4 })
      t.equal(result.summary.unexpected_failures, 0, 'no unexpected failure')
      return { before, after: await countRows(db.url, table), summary: result.summary, stderr: result.stderr }
    }

    t.test('fresh database: the schema is created, the table gets the acknowledged rows', async t => {
      const { before, after, summary } = await run()
      t.equal(before, 0, 'the table did not exist')
      t.ok(summary.acknowledged_inserts > 1000, `many inserts acknowledged (${summary.acknowledged_inserts})`)
      t.equal(
        summary.acknowledged_inserts,
        summary.requests.insert_row.done - summary.requests.insert_row.failed,
        'one acknowledgement per successful insert'
      )
      t.equal(after - before, summary.acknowledged_inserts, 'the table gained exactly the rows acknowledged')
      t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
    })

    t.test('second run on the existing rows: the max id is read at start', async t => {
      const maxBefore = Number((await query(db.url, `SELECT max(id) AS max FROM ${table}`)).rows[0].max)
      const { before, after, summary, stderr } = await run()
      t.ok(before > 0, 'the rows of the first run are there')
      t.match(stderr, new RegExp(`max id ${maxBefore}\\b`), `the run starts from the table's max id (${maxBefore})`)
      assertIdsFound(t, summary, 'ids are drawn within [1, max id]')
      t.ok(summary.acknowledged_inserts > 1000, `many inserts acknowledged (${summary.acknowledged_inserts})`)
      t.equal(after - before, summary.acknowledged_inserts, 'the table gained exactly the rows acknowledged')
      t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
      const ids = await query(db.url, `SELECT count(*)::int AS n FROM ${table} WHERE id > $1`, [maxBefore])
      t.equal(ids.rows[0].n, summary.acknowledged_inserts, 'the new rows are those above the old max id')
    })

    t.test('--reset drops the old rows', async t => {
      const { before, after, summary, stderr } = await run(['--reset'])
      t.ok(before > 0, 'there were rows before')
      t.match(stderr, /--reset/, 'the reset is announced')
      t.match(stderr, /max id 0\b/, 'the run starts from an empty table')
      t.equal(after, summary.acknowledged_inserts, 'the table holds exactly the rows acknowledged by this run')
      t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
    })
  })
}
