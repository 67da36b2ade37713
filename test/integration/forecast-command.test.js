// pgloadgen forecast on an embedded PostgreSQL 18 with autovacuum on: the
// rates of a table the test loads while it watches, and its outlook under
// the server's settings and under --set, against the rule worked by hand
// from those rates; and the command's refusals.
import t from 'tap'
import { startEmbedded } from '../helpers/embedded.js'
import { query, withClient } from '../helpers/pg.js'
import { runCli } from '../helpers/cli.js'
import { watchForecast } from '../../lib/pgstats/autovacuum-watch.js'

t.test("a loaded table's next autovacuum and cycle, under its settings and others", async t => {
  const { url } = await startEmbedded(t)
  // a threshold far above what the watch makes, so that no autovacuum resets the counters meanwhile
  await query(url, 'CREATE TABLE churn (id int) WITH (autovacuum_vacuum_threshold = 1000000)')
  await query(url, 'INSERT INTO churn SELECT generate_series(1, 10000)')
  await query(url, 'ANALYZE churn')
  let loading = true
  const load = withClient(url, async client => {
    for (let n = 0; loading; n++) {
      await client.query('INSERT INTO churn SELECT generate_series(1, 200)')
      await client.query('DELETE FROM churn WHERE ctid IN (SELECT ctid FROM churn LIMIT 200)')
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  })
  const changes = { autovacuum_vacuum_threshold: 100, autovacuum_naptime: 10 }
  const [forecast] = await watchForecast(url, { watchS: 6, changes, table: 'churn' }).finally(() => {
    loading = false
  })
  await load
  t.match(forecast, { table: 'public.churn', vacuumed: false, enabled: true })
  const dead = forecast.rates.deadTuples
  t.ok(dead > 100 && dead < 20000, `dead rows a second: ${dead.toFixed(0)}`)
  // 10,000 rows: 1,000,000 + 0.2 × 10,000 today; 100 + 2,000 with --set; the vacuums whole naptimes apart
  const cycle = (/** @type {number} */ threshold, /** @type {number} */ naptimeS) => {
    const insertsS = (1000 + 0.2 * 10000 + 1) / forecast.rates.inserts
    return Math.max(1, Math.ceil(Math.min((threshold + 1) / dead, insertsS) / naptimeS)) * naptimeS
  }
  t.equal(
    forecast.today.cycleS?.toFixed(6),
    cycle(1_002_000, 60).toFixed(6),
    'today: the rule at the rates, naptime 60 s'
  )
  t.equal(forecast.changed?.cycleS?.toFixed(6), cycle(2100, 10).toFixed(6), 'with --set: threshold 100, naptime 10 s')
  t.ok(
    /** @type {number} */ (forecast.changed?.vacuumsPerHour) > /** @type {number} */ (forecast.today.vacuumsPerHour),
    'a lower threshold: more vacuums an hour'
  )
})

t.test('the command refuses what it cannot forecast, in one line', async t => {
  for (const [args, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['--set', 'autovacuum_freeze_max_age=1'], /not a setting the forecast knows/],
    [['--set', 'autovacuum_vacuum_scale_factor=lots'], /must be a number/],
    [['--watch', '2'], /--watch must be at least 5 seconds/]
  ])) {
    const result = await runCli(['forecast', 'postgres://nobody@127.0.0.1:1/none', ...args], { t })
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr.trim(), problem)
    t.equal(result.stderr.trim().split('\n').length, 1, 'one line')
  }
})
