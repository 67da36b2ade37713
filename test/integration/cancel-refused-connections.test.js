// A server with no slot left for some of the run's clients: an embedded
// server with max_connections = 10 (none reserved), five of them held by the
// test. The run asks for eight clients: those the server refuses (SQLSTATE
// 53300) are said once, counted, and shown on the progress line; the clients
// that got a connection keep it and the load goes on. When the test lets
// four of its connections go, the refused clients get theirs with backoff,
// and the run says so once. At no moment does the run hold more backends
// than its clients and its setup connection.
import t from 'tap'
import pg from 'pg'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { startEmbedded } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const MAX_CONNECTIONS = 10
const HELD = 5
const CLIENTS = 8

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-refused-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const profile = path.join(dir, 'few-connections.conf')
await writeFile(profile, `max_connections = ${MAX_CONNECTIONS}\nsuperuser_reserved_connections = 0\n`)
const script = path.join(dir, 'select.sql')
await writeFile(script, 'SELECT 1;\n')

const { url } = await startEmbedded(t, { profile })

/** @type {pg.Client[]} */
const held = []
t.teardown(() => Promise.all(held.map(client => client.end().catch(() => {}))))
for (let i = 0; i < HELD; i++) {
  const client = new pg.Client({ connectionString: url, application_name: 'slot-holder' })
  await client.connect()
  held.push(client)
}
const poller = held[0]

/** The run's backends now (its clients and setup connection are named pgloadgen…). */
async function runBackends() {
  const { rows } = await poller.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'pgloadgen%'"
  )
  return /** @type {number} */ (rows[0].n)
}

t.test('refused connections are said once, counted, retried; the run goes on', async t => {
  const run = new CliRun(
    ['run', url, '-f', script, '-c', String(CLIENTS), '-d', '14', '-P', '1', '-p', '0', '--json', '--no-pg-stats'],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await run.waitForStderr(/the server refuses connections/, 20000)
  let most = 0
  let stopped = false
  const watching = (async () => {
    while (!stopped) {
      most = Math.max(most, await runBackends())
      await sleep(100)
    }
  })()
  // the progress line of a period with refusals, before any slot is freed
  await run.waitForStderr(/connections refused/, 10000)
  // four slots back; the poller stays
  await Promise.all(held.splice(1).map(client => client.end()))
  await waitFor(async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === CLIENTS, {
    what: `all ${CLIENTS} clients connected once slots were free`,
    timeoutMs: 12000,
    intervalMs: 200
  })
  const result = await run.exited
  stopped = true
  await watching
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.slice(-400)})`)
  const summary = result.summary
  t.ok(
    summary.refused_connections >= CLIENTS - (MAX_CONNECTIONS - HELD),
    `the refusals counted (${summary.refused_connections})`
  )
  t.equal(result.stderr.match(/the server refuses connections/g)?.length, 1, 'said in one line')
  t.match(result.stderr, /too many clients already, SQLSTATE 53300/, "with the server's reason")
  t.equal(result.stderr.match(/the server accepts connections again/g)?.length, 1, 'and once when it is over')
  t.match(result.stderr, /refused: \d+ connection attempts? refused by the server/, 'the end table counts them')
  t.equal(summary.reconnects, 0, 'the clients that had a connection kept it')
  t.equal(summary.requests.select.failed, 0, 'no request failed')
  t.ok(summary.requests.select.done > 100, `the load went on (${summary.requests.select.done} requests)`)
  t.ok(most <= CLIENTS + 1, `at most the clients and the setup connection at once (${most})`)
})
