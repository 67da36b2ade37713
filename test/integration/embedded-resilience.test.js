// The embedded PostgreSQL 18 under a run: the generator's backends
// terminated, then the whole server restarted mid-run (pg_ctl restart, fast
// mode). The run goes on, counts what failed, and loses nothing acknowledged.
import t from 'tap'
import { sleep } from '../helpers/cli.js'
import { countRows, generatorPids } from '../helpers/pg.js'
import { startEmbedded } from '../helpers/embedded.js'
import {
  terminationScenario,
  startRun,
  assertRecovers,
  assertSurvived,
  watchConnections
} from '../helpers/disruption.js'

const embedded = await startEmbedded(t)
const CONCURRENCY = 4

t.test('backends terminated mid-run', async t => {
  const result = await terminationScenario(t, {
    url: embedded.url,
    workload: 'manta',
    table: 'test_table',
    concurrency: CONCURRENCY,
    rounds: 2
  })
  t.match(result.summary?.server_version, /^18\./, 'against PostgreSQL 18')
})

t.test('server restarted mid-run', async t => {
  const { url, server } = embedded
  const rowsBefore = await countRows(url, 'test_table')
  const { run, metricsUrl } = await startRun(t, { url, workload: 'manta', concurrency: CONCURRENCY, durationS: 9 })
  const gone = await generatorPids(url)
  const watch = watchConnections(metricsUrl)
  await server.restart()
  t.pass('the server restarted')
  await assertRecovers(t, { metricsUrl, url, concurrency: CONCURRENCY, gone })
  const seen = await watch.stop()
  t.ok(
    seen.min < CONCURRENCY,
    `pgloadgen_nconns showed the connections lost (lowest ${seen.min} over ${seen.samples} scrapes)`
  )
  await sleep(500)
  const result = await run.exited
  await assertSurvived(t, result, { url, table: 'test_table', rowsBefore, concurrency: CONCURRENCY, lost: CONCURRENCY })
  t.notOk(result.summary?.abandoned_in_flight, 'nothing abandoned at the end')
})
