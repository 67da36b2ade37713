// A second run that starts on a database where a load already runs creates
// what is missing of the schema while the first one inserts. The manta
// schema locked the sequence (ALTER SEQUENCE … OWNED BY) before the table
// (CREATE INDEX IF NOT EXISTS locks it even when the index exists), and the
// running inserts take the table and then the sequence (nextval): 6 of 40
// such set-ups ended in "deadlock detected", and 75 inserts with them. Now
// the table comes first and none deadlocks.
import t from 'tap'
import pg from 'pg'
import { createTestDatabase } from '../helpers/pg.js'
import { loadWorkload } from '../../lib/workloads/index.js'
import { prepareSchema } from '../../lib/workloads/schema.js'

const manta = await loadWorkload('manta')
const db = await createTestDatabase(t, 'schema_concurrent')

t.test('the schema prepared 40 times while 8 clients insert: no deadlock', async t => {
  const setup = new pg.Client({ connectionString: db.url })
  await setup.connect()
  t.teardown(() => setup.end())
  await prepareSchema(setup, manta)
  let stop = false
  let inserted = 0
  /** @type {string[]} */
  const insertErrors = []
  const clients = Array.from({ length: 8 }, async () => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      while (!stop) {
        try {
          await client.query("INSERT INTO test_table (c1) VALUES ('x')")
          inserted++
        } catch (err) {
          insertErrors.push(/** @type {Error} */ (err).message)
        }
      }
    } finally {
      await client.end()
    }
  })
  /** @type {string[]} */
  const setupErrors = []
  try {
    for (let i = 0; i < 40; i++) {
      await prepareSchema(setup, manta).catch(err => setupErrors.push(err.message))
    }
  } finally {
    stop = true
    await Promise.all(clients)
  }
  t.same(setupErrors, [], 'every set-up committed')
  t.same(insertErrors, [], 'no insert failed')
  t.ok(inserted > 0, `the clients inserted ${inserted} rows meanwhile`)
})
