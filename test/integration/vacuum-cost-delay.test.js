// A vacuum action's cost_delay: the vacuum runs throttled as autovacuum is,
// by its own session's vacuum_cost_delay, and says so in its start event;
// a bad delay, or one on another action, is refused with its field named.
import t from 'tap'
import { runAction, checkAction } from '../../lib/sidecar/actions.js'
import { EventLog } from '../../lib/recorder/event-log.js'
import { createLogger } from '../../lib/log.js'
import { createTestDatabase, withClient } from '../helpers/pg.js'
import { parsePlan } from '../../lib/experiment/plan.js'

t.test('a throttled FREEZE takes the time its costs say; the same FREEZE unthrottled does not', async t => {
  const db = await createTestDatabase(t, 'vacuum_cost_delay')
  const table = async (/** @type {string} */ name) =>
    withClient(db.url, async c => {
      // about 2.5 MB: some 320 pages, each a miss and a dirtied page for FREEZE
      await c.query(`CREATE TABLE ${name} (id bigint, v text) WITH (autovacuum_enabled = false)`)
      await c.query(`INSERT INTO ${name} SELECT g, md5(g::text) FROM generate_series(1, 40000) g`)
      await c.query('CHECKPOINT')
    })
  await table('throttled')
  await table('unthrottled')
  const events = new EventLog({ file: null, log: createLogger({ level: 'warn' }) })
  const context = { connectionString: db.url, events, log: createLogger({ level: 'warn' }) }
  const slow = await runAction({ action: 'vacuum', table: 'throttled', freeze: true, cost_delay: '50ms' }, context)
  const fast = await runAction({ action: 'vacuum', table: 'unthrottled', freeze: true }, context)
  t.ok(slow.ok && fast.ok, 'both vacuums succeed')
  // ~320 pages × (1 to 10 for the read + 20 for the dirtied page) / 200 per 50 ms sleep
  t.ok(slow.duration_s >= 1, `throttled: ${slow.duration_s} s`)
  t.ok(fast.duration_s < slow.duration_s / 4, `unthrottled: ${fast.duration_s} s`)
  const start = events.recent.find(e => e.kind === 'start' && e.table === 'throttled')
  t.equal(start?.detail?.cost_delay_ms, 50, 'the start event gives the delay')
})

t.test('bad delays and delays on other actions are refused, naming the field; a plan takes it', async t => {
  for (const [value, problem] of /** @type {Array<[unknown, RegExp]>} */ ([
    ['101ms', /0 to 100 ms/],
    ['-1', /0 to 100 ms/],
    ['fast', /0 to 100 ms/],
    [true, /0 to 100 ms/]
  ])) {
    t.throws(
      () => checkAction({ action: 'vacuum', table: 't', cost_delay: /** @type {any} */ (value) }, 'actions[0]'),
      { message: new RegExp(`^actions\\[0\\]\\.cost_delay: .*${problem.source}`) },
      `cost_delay ${JSON.stringify(value)}`
    )
  }
  t.throws(() => checkAction({ action: 'checkpoint', cost_delay: '2ms' }, 'actions[0]'), {
    message: /actions\[0\]\.cost_delay: only for vacuum/
  })
  t.doesNotThrow(() => checkAction({ action: 'vacuum', table: 't', cost_delay: 0 }, 'actions[0]'), '0 is unthrottled')
  t.doesNotThrow(
    () => checkAction({ action: 'vacuum', table: 't', cost_delay: '2.5ms' }, 'actions[0]'),
    'fractions of a millisecond'
  )
  const plan = await parsePlan(
    {
      name: 'p',
      server: { embedded: true },
      workload: 'manta',
      prepare: { rows: 10 },
      variants: [
        { name: 'v', steps: [{ action: { action: 'vacuum', table: 'test_table', freeze: true, cost_delay: '12ms' } }] }
      ]
    },
    { baseDir: '.' }
  )
  const step = /** @type {any} */ (plan.variants[0].steps[0])
  t.equal(step.action?.cost_delay, '12ms', 'a plan step carries it')
})
