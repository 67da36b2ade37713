// The partition matrix: a manta run against a PostgreSQL 15 on an address of
// its own, in a network namespace of the test's making (test/helpers/netns.js),
// while the network between them fails:
// - the link down for less than the request timeout: ridden out, no timeout;
// - the link down for more than the timeout: the requests time out, the
//   live-connection gauge drops within a few timeouts, and the load comes back;
// - the same with no request timeout: keepalive and TCP_USER_TIMEOUT notice;
// - the server's address vanishing and coming back;
// - the server restarted while nobody could reach it.
// Each time, with synchronous_commit = on: the run exits 0 with its summary,
// throughput returns after the outage, no acknowledged insert is missing or
// vanished, and the inserts left in doubt are counted and resolved: the table
// holds exactly the acknowledged rows and the in-doubt ones found committed.
import t from 'tap'
import pg from 'pg'
import { CliRun, sleep, waitFor } from '../helpers/cli.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { requestsDone } from '../helpers/disruption.js'
import { NetnsServer } from '../helpers/netns.js'

const CONCURRENCY = 4
const root = t

/** @type {NetnsServer | null} */
let server = null
let databases = 0

/**
 * A new database on the server in the namespace.
 * @param {NetnsServer} on
 */
async function freshDatabase(on) {
  const name = `partition_${++databases}`
  const client = new pg.Client({ connectionString: on.urlOf('postgres') })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  return on.urlOf(name)
}

/**
 * @param {string} url
 * @param {string} sql
 */
async function queryOne(url, sql) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql)).rows[0]
  } finally {
    await client.end()
  }
}

/**
 * The live connections on /metrics, every 100 ms, with when each was seen.
 * @param {string} metricsUrl
 */
function watchGauge(metricsUrl) {
  /** @type {{ at: number, value: number }[]} */
  const seen = []
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      try {
        const value = sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns')
        if (typeof value === 'number') seen.push({ at: Date.now(), value })
      } catch {
        // between the end of the load and the exit
      }
      await sleep(100)
    }
  })()
  return {
    seen,
    /** The first moment at or after from when the gauge read 0, or null. */
    firstZeroAfter(/** @type {number} */ from) {
      return seen.find(sample => sample.at >= from && sample.value === 0)?.at ?? null
    },
    async stop() {
      stopped = true
      await loop
    }
  }
}

/**
 * Runs manta against the server while `fault` breaks the network from
 * second 4 of the load for outageS seconds, then checks what every case
 * must show; returns what the case's own checks need.
 * @param {import('tap').Test} t
 * @param {{ timeout: string, outageS: number, fault: (server: NetnsServer) => Promise<void>,
 *     heal: (server: NetnsServer) => Promise<void>, during?: (server: NetnsServer) => Promise<void> }} scenario
 */
async function partitionRun(t, { timeout, outageS, fault, heal, during }) {
  // one server for the whole matrix, removed when the file's tests end
  const on = server ?? (server = await NetnsServer.create(root))
  const url = await freshDatabase(on)
  const run = new CliRun(
    ['run', url, '-c', String(CONCURRENCY), '-p', '0', '--json', '-P', '2', '--request-timeout', timeout],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await waitFor(async () => (await requestsDone(metricsUrl)) > 500, { what: 'the load under way', timeoutMs: 30000 })
  const gauge = watchGauge(metricsUrl)
  await sleep(1000)
  const outageStarted = Date.now()
  await fault(on)
  await during?.(on)
  await sleep(Math.max(0, outageStarted + outageS * 1000 - Date.now()))
  await heal(on)
  const healed = Date.now()
  const doneAtHeal = await requestsDone(metricsUrl)
  // the load comes back: clients reconnect (backoff at most 5 s) and requests flow again
  await waitFor(async () => (await requestsDone(metricsUrl)) > doneAtHeal + 200, {
    what: 'throughput back after the outage',
    timeoutMs: 25000,
    intervalMs: 200
  })
  const backAfterMs = Date.now() - healed
  // the run has no duration of its own (a busy machine may take most of a
  // fixed one to get the load under way): it is stopped once the load is
  // back, as a user stops it, and prints its summary
  await sleep(1000)
  run.kill('SIGTERM')
  const result = await run.exited
  await gauge.stop()
  t.equal(result.code, 0, `the run exits 0 (stderr: ${result.stderr.slice(-600)})`)
  const summary = result.summary
  t.ok(summary, 'the summary was printed')
  t.pass(`throughput came back ${(backAfterMs / 1000).toFixed(1)} s after the outage ended`)
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
  t.equal(summary.acknowledged_vanished, 0, 'no acknowledged insert vanished')
  t.type(summary.inserts_in_doubt_stored, 'number', 'the inserts left in doubt were looked for at exit')
  t.ok(summary.inserts_in_doubt_stored <= summary.inserts_in_doubt, 'no more of them committed than were in doubt')
  // the table is the run's own: it holds exactly what was acknowledged and what of the in-doubt ones committed
  const { n } = await queryOne(url, 'SELECT count(*)::int AS n FROM test_table')
  t.equal(
    n,
    summary.acknowledged_inserts + summary.inserts_in_doubt_stored,
    `the table holds the acknowledged inserts (${summary.acknowledged_inserts}) and the in-doubt ones found ` +
      `committed (${summary.inserts_in_doubt_stored} of ${summary.inserts_in_doubt})`
  )
  t.match(result.stderr, /inserts: [\d,]+ acknowledged, [\d,]+ present, 0 missing, 0 vanished/, 'the end table says so')
  return { summary, gauge, outageStarted, healed, stderr: result.stderr }
}

const linkDown = {
  fault: (/** @type {NetnsServer} */ s) => s.linkDown(),
  heal: (/** @type {NetnsServer} */ s) => s.linkUp()
}

t.test('the link down for less than the request timeout: ridden out', async t => {
  const { summary } = await partitionRun(t, { timeout: '10s', outageS: 2, ...linkDown })
  t.equal(summary.timeouts, 0, 'no request timed out')
  t.equal(summary.reconnects, 0, 'no connection was replaced')
  t.equal(summary.inserts_in_doubt, 0, 'nothing was left in doubt')
})

t.test('the link down for longer than the request timeout: timeouts, the gauge drops, the load comes back', async t => {
  const timeoutS = 2
  const { summary, gauge, outageStarted } = await partitionRun(t, {
    timeout: `${timeoutS}s`,
    outageS: 10,
    ...linkDown
  })
  const zeroAt = gauge.firstZeroAfter(outageStarted)
  t.ok(
    zeroAt !== null && zeroAt - outageStarted <= 3 * timeoutS * 1000,
    `the live-connection gauge read 0 within three timeouts of the outage ` +
      `(after ${zeroAt === null ? 'never' : `${((zeroAt - outageStarted) / 1000).toFixed(1)} s`})`
  )
  t.ok(
    summary.timeouts >= 1 && summary.timeouts <= summary.unexpected_failures,
    `requests timed out (${summary.timeouts}), counted among the failures`
  )
  t.equal(
    Object.values(summary.requests).reduce((n, r) => n + r.timeouts, 0),
    summary.timeouts,
    'the timeouts by type add up'
  )
  t.ok(summary.reconnects >= CONCURRENCY, `every connection was replaced (${summary.reconnects} reconnects)`)
})

t.test('no request timeout: keepalive and TCP_USER_TIMEOUT notice the dead connections', async t => {
  const { summary, gauge, outageStarted, healed } = await partitionRun(t, {
    timeout: 'off',
    outageS: 30,
    ...linkDown
  })
  const zeroAt = gauge.firstZeroAfter(outageStarted)
  t.ok(
    zeroAt !== null && zeroAt < healed,
    `the gauge read 0 before the outage ended ` +
      `(after ${zeroAt === null ? 'never' : `${((zeroAt - outageStarted) / 1000).toFixed(1)} s`})`
  )
  t.equal(summary.timeouts, 0, 'no request timeout was involved')
  t.ok(summary.reconnects >= CONCURRENCY, `every connection was replaced (${summary.reconnects} reconnects)`)
})

t.test("the server's address vanishes and comes back", async t => {
  const { summary } = await partitionRun(t, {
    timeout: '2s',
    outageS: 10,
    fault: s => s.removeAddress(),
    heal: s => s.restoreAddress()
  })
  t.ok(summary.timeouts >= 1, `requests timed out (${summary.timeouts})`)
  t.ok(summary.reconnects >= CONCURRENCY, `every connection was replaced (${summary.reconnects} reconnects)`)
})

t.test('the server restarted while the link is down', async t => {
  const { summary } = await partitionRun(t, {
    timeout: '2s',
    outageS: 10,
    ...linkDown,
    during: async s => {
      await sleep(2000)
      await s.restart()
    }
  })
  t.ok(summary.reconnects >= CONCURRENCY, `every connection was replaced (${summary.reconnects} reconnects)`)
})
