// Pipelines (pgbench's \startpipeline … \endpipeline) on the wire client,
// against PostgreSQL 15 and an embedded PostgreSQL 18: statements sent
// without a Sync settle when one is answered; an error in the middle fails
// that statement, the server skips the rest (PipelineAbortedError), and the
// connection goes on; the transaction status follows.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestDatabase } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import { WireConnection, ServerError, PipelineAbortedError } from '../../lib/wire/wire-connection.js'

const pg15 = await createTestDatabase(t, 'wire_pipeline')
const pg18 = await startEmbedded(t)
const servers = [
  { server: 'PostgreSQL 15', url: pg15.url },
  { server: 'PostgreSQL 18', url: pg18.url }
]

/**
 * @param {import('tap').Test} t
 * @param {string} url
 * @param {'prepared' | 'extended' | 'simple'} protocol
 */
async function connect(t, url, protocol) {
  const connection = await WireConnection.connect(url, { protocol, applicationName: 'pgloadgen-wire-test' })
  t.teardown(() => connection.close())
  return connection
}

/**
 * What each promise came to: a result's first value, or the error's class
 * (and SQLSTATE).
 * @param {Array<Promise<unknown>>} pending
 */
async function outcomes(pending) {
  return (await Promise.allSettled(pending)).map(outcome => {
    if (outcome.status === 'rejected') {
      return outcome.reason.code ? `${outcome.reason.name} ${outcome.reason.code}` : outcome.reason.name
    }
    const value = /** @type {{ first?: string | null } | undefined} */ (outcome.value)
    return value === undefined ? 'synced' : value.first
  })
}

const NO_SYNC = { sync: false }

for (const { server, url } of servers) {
  t.test(server, async t => {
    for (const protocol of /** @type {const} */ (['prepared', 'extended'])) {
      t.test(`-M ${protocol}: several statements, one Sync`, async t => {
        const connection = await connect(t, url, protocol)
        const settled = /** @type {number[]} */ ([])
        /** @type {Array<Promise<unknown>>} */
        const pending = [1, 2, 3, 4].map(i => {
          const run = connection.run({ name: `wp_${protocol}_${i}`, text: `SELECT $1::int * ${i}` }, [10], NO_SYNC)
          run.then(() => settled.push(i))
          return run
        })
        await sleep(150)
        t.same(settled, [], 'nothing settles before the Sync is answered')
        pending.push(connection.sync())
        t.same(await outcomes(pending), ['10', '20', '30', '40', 'synced'], 'results in order once synced')
        t.equal(connection.transactionStatus, 'I')

        // A run with a Sync ends the pipeline too.
        const ended = [
          connection.run({ name: '', text: 'SELECT $1::text' }, ['a'], NO_SYNC),
          connection.run({ name: '', text: 'SELECT $1::text' }, ['b'], { sync: false, rows: true }),
          connection.run({ name: '', text: 'SELECT $1::text' }, ['c'])
        ]
        t.same(await outcomes(ended), ['a', 'b', 'c'], 'a run with a Sync settles the pipeline before it')
        t.same((await ended[1]).rows, [['b']], 'rows are captured in a pipeline too')
      })

      t.test(`-M ${protocol}: an error in the middle`, async t => {
        const connection = await connect(t, url, protocol)
        const table = `wp_rows_${protocol}`
        await connection.simpleQuery(`CREATE TEMP TABLE ${table} (id int)`)
        const insert = { name: `wp_insert_${protocol}`, text: `INSERT INTO ${table} VALUES ($1) RETURNING id` }
        const pending = [
          connection.run(insert, [1], NO_SYNC),
          connection.run({ name: `wp_div_${protocol}`, text: 'SELECT 1 / $1::int' }, [0], NO_SYNC),
          connection.run(insert, [2], NO_SYNC),
          connection.run({ name: `wp_after_${protocol}`, text: 'SELECT 4' }, [], NO_SYNC),
          connection.sync()
        ]
        const [first, failed, ...rest] = await Promise.allSettled(pending)
        t.equal(first.status === 'fulfilled' && first.value?.first, '1', 'the statement before the error ran')
        t.ok(
          failed.status === 'rejected' && failed.reason instanceof ServerError && failed.reason.code === '22012',
          'the failed one rejects with its ServerError'
        )
        t.ok(
          rest.slice(0, 2).every(o => o.status === 'rejected' && o.reason instanceof PipelineAbortedError),
          'the skipped ones reject with PipelineAbortedError'
        )
        t.match(/** @type {PromiseRejectedResult} */ (rest[0]).reason.message, /pipeline aborted/)
        t.equal(rest[2].status, 'fulfilled', 'the sync itself resolves')
        t.equal(connection.transactionStatus, 'I', 'idle: the implicit transaction was rolled back')
        t.equal(
          (await connection.simpleQuery(`SELECT count(*) FROM ${table}`))[0].first,
          '0',
          'the insert before the error was rolled back with it'
        )
        // Skipped statements were never parsed: prepared mode must parse them again.
        t.same(
          await outcomes([
            connection.run(insert, [3]),
            connection.run({ name: `wp_after_${protocol}`, text: 'SELECT 4' }, [])
          ]),
          ['3', '4'],
          'the connection goes on, the skipped statements run'
        )
      })

      t.test(`-M ${protocol}: a pipeline inside a transaction block`, async t => {
        const connection = await connect(t, url, protocol)
        await connection.simpleQuery('CREATE TEMP TABLE wp_tx (id int)')
        await connection.run({ name: 'wp_begin', text: 'BEGIN' }, [])
        const first = await outcomes([
          connection.run({ name: '', text: 'INSERT INTO wp_tx VALUES ($1)' }, [1], NO_SYNC),
          connection.run({ name: '', text: 'SELECT count(*) FROM wp_tx' }, [], NO_SYNC),
          connection.sync()
        ])
        t.same(first, [null, '1', 'synced'])
        t.equal(connection.transactionStatus, 'T', 'in the transaction after a good pipeline')
        const second = await outcomes([
          connection.run({ name: '', text: 'INSERT INTO wp_tx VALUES ($1)' }, [2], NO_SYNC),
          connection.run({ name: '', text: 'SELECT nosuchcolumn FROM wp_tx' }, [], NO_SYNC),
          connection.run({ name: '', text: 'INSERT INTO wp_tx VALUES ($1)' }, [3], NO_SYNC),
          connection.sync()
        ])
        t.same(second, [null, 'ServerError 42703', 'PipelineAbortedError', 'synced'])
        t.equal(connection.transactionStatus, 'E', 'a failed transaction block after the error')
        await connection.simpleQuery('ROLLBACK')
        t.equal(connection.transactionStatus, 'I', 'idle after ROLLBACK')
        t.equal(
          (await connection.run({ name: '', text: 'SELECT count(*) FROM wp_tx' }, [])).first,
          '0',
          'all of it rolled back'
        )
      })

      t.test(`-M ${protocol}: many statements in flight, corked into one write`, async t => {
        const connection = await connect(t, url, protocol)
        const statement = { name: 'wp_many', text: 'SELECT $1::int + 1' }
        connection.cork()
        const pending = []
        for (let i = 0; i < 2000; i++) pending.push(connection.run(statement, [i], NO_SYNC))
        const synced = connection.sync()
        connection.uncork()
        const results = await Promise.all(pending)
        await synced
        t.ok(
          results.every((r, i) => r.first === String(i + 1)),
          '2000 results, in order'
        )
      })

      t.test(`-M ${protocol}: an error at the Sync's commit fails the sync`, async t => {
        const connection = await connect(t, url, protocol)
        await connection.simpleQuery('CREATE TEMP TABLE wp_deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED)')
        const pending = [
          connection.run({ name: '', text: 'INSERT INTO wp_deferred VALUES ($1)' }, [1], NO_SYNC),
          connection.run({ name: '', text: 'INSERT INTO wp_deferred VALUES ($1)' }, [1], NO_SYNC),
          connection.sync()
        ]
        const results = await outcomes(pending)
        t.same(results.slice(0, 2), [null, null], 'both inserts ran')
        t.equal(results[2], 'ServerError 23505', 'the deferred check at the commit fails the sync')
        t.equal(connection.transactionStatus, 'I')
        t.equal((await connection.simpleQuery('SELECT count(*) FROM wp_deferred'))[0].first, '0', 'nothing committed')
        // With a run ending the pipeline, that run carries the error.
        const ended = await outcomes([
          connection.run({ name: '', text: 'INSERT INTO wp_deferred VALUES ($1)' }, [2], NO_SYNC),
          connection.run({ name: '', text: 'INSERT INTO wp_deferred VALUES ($1)' }, [2])
        ])
        t.same(ended, [null, 'ServerError 23505'], 'the run with the Sync rejects')
      })
    }

    t.test('-M prepared: a named statement whose Parse failed in a pipeline is parsed again', async t => {
      const connection = await connect(t, url, 'prepared')
      const late = { name: 'wp_late', text: 'SELECT count(*) FROM wp_later' }
      const skipped = { name: 'wp_skipped', text: 'SELECT 42' }
      t.same(
        await outcomes([connection.run(late, [], NO_SYNC), connection.run(skipped, [], NO_SYNC), connection.sync()]),
        ['ServerError 42P01', 'PipelineAbortedError', 'synced']
      )
      await connection.simpleQuery('CREATE TEMP TABLE wp_later (a int)')
      t.same(
        await outcomes([connection.run(late, [], NO_SYNC), connection.run(skipped, [], NO_SYNC), connection.sync()]),
        ['0', '42', 'synced'],
        'both parsed again'
      )
    })

    t.test('pipelines need the extended protocol; a simple query waits for the Sync', async t => {
      const simple = await connect(t, url, 'simple')
      await t.rejects(
        simple.run({ name: '', text: 'SELECT 1' }, [], NO_SYNC),
        /pipeline \(sync: false\) needs the extended query protocol/
      )
      t.equal((await simple.run({ name: '', text: 'SELECT 1' }, [])).first, '1', 'the simple connection goes on')

      const extended = await connect(t, url, 'extended')
      const open = extended.run({ name: '', text: 'SELECT 1' }, [], NO_SYNC)
      await t.rejects(extended.simpleQuery('SELECT 2'), /a pipeline is open on this connection: sync\(\) it/)
      await t.rejects(extended.copyFrom('COPY wp_none FROM STDIN', []), /other operations are in flight/)
      await extended.sync()
      t.equal((await open).first, '1')
      t.equal((await extended.simpleQuery('SELECT 2'))[0].first, '2', 'after the Sync a simple query goes')
    })

    t.test('a lost connection fails the pipeline in flight', async t => {
      const connection = await connect(t, url, 'extended')
      const pending = [
        connection.run({ name: '', text: 'SELECT pg_sleep(0.2)' }, [], NO_SYNC),
        connection.run({ name: '', text: 'SELECT 2' }, [], NO_SYNC),
        connection.sync()
      ]
      setTimeout(() => connection.destroy(), 50)
      const results = await outcomes(pending)
      t.same(
        results,
        ['ConnectionLostError', 'ConnectionLostError', 'ConnectionLostError'],
        'every part rejects with ConnectionLostError'
      )
      t.ok(connection.broken)
      await t.rejects(connection.sync(), /connection is closed/)
    })
  })
}
