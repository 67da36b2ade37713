// The end of a load session (LoadSession.finish, lib/lab/load-session.js) on
// a stand-in server and a fake clock: the load stopped, its time taken from the last request's end,
// and the summary built from what the requests got. No server.
import t from 'tap'
import { performance } from 'node:perf_hooks'
import client from 'prom-client'
import { LoadSession } from '../../lib/lab/load-session.js'
import { buildRunSpec } from '../../lib/lab/run-spec.js'
import { CANCEL_GRACE_MS } from '../../lib/generator/request-watch.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { mixOf } from '../../lib/config/mix.js'
import { FakeClock, settle } from '../helpers/fake-clock.js'
import { StandInServer, oneValue } from '../helpers/stand-in-server.js'
import * as m from '../helpers/backend-messages.js'

/**
 * A session of a one-type workload on server, its clients to do `requests` each.
 * @param {import('tap').Test} t
 * @param {StandInServer} server
 * @param {number | null} requests
 * @param {number} [shutdownTimeoutS]   the wait for requests in flight at the end
 */
function standInSession(t, server, requests, shutdownTimeoutS = 1) {
  const realConnect = WireConnection.connect
  WireConnection.connect = async () => server.connect()
  t.teardown(() => {
    WireConnection.connect = realConnect
  })
  /** @type {string[]} */
  const warnings = []
  const log = /** @type {any} */ ({ debug() {}, info() {}, warn: (/** @type {string} */ s) => warnings.push(s) })
  const workload = /** @type {any} */ ({
    name: 'stand-in',
    config: {},
    defines: {},
    pacing: null,
    idTable: null,
    auditTable: null,
    idFingerprint: null,
    expectedErrors: [null],
    types: ['read'],
    clients: null,
    maintain: null,
    statistics: [],
    ramp: null,
    initClient: async () => {},
    requests: [async (/** @type {any} */ db) => db.query('SELECT 1')]
  })
  const spec = buildRunSpec({
    workload,
    mix: mixOf(['read'], [1]),
    concurrency: 2,
    requestsPerClient: requests,
    seed: 1,
    shutdownTimeoutS,
    verifyTimeoutS: 1
  })
  const place = /** @type {any} */ ({
    target: { connectionString: 'postgres://stand-in/db', display: 'stand-in', embedded: false },
    describe: {},
    registry: new client.Registry(),
    log
  })
  // what LoadSession.open would have read of the server
  const prepared = { maxId: 0, serverVersion: '15.8', settings: {}, shared: null, rowsBefore: null, Collector: null }
  const session = new LoadSession(spec, place, prepared)
  session.started = performance.now()
  const { generator } = session
  return { session, generator, warnings }
}

t.test("a session's end summarises what its requests got", async t => {
  const clock = new FakeClock().install(t)
  let n = 0
  const server = new StandInServer(() => {
    clock.nowMs += 10 // the server takes 10 ms a statement
    return ++n % 5 === 0 ? [m.errorResponse('deadlock detected', '40P01')] : oneValue('1')
  })
  const { session, generator, warnings } = standInSession(t, server, 10)
  generator.setConcurrency(2)
  await generator.limitReached
  clock.nowMs += 5000 // what comes after the last request does not count
  const summary = await session.finish()
  t.equal(summary.elapsed_s, 0.2, "the load's time ends with its last request: 20 of 10 ms")
  t.match(summary.requests.read, { started: 20, done: 20, failed: 4, timeouts: 0 }, 'what the requests got')
  t.equal(summary.throughput, 100, 'requests a second')
  t.same(summary.errors, { 'deadlock detected': 4 }, 'the errors by message')
  t.equal(summary.unexpected_failures, 4)
  t.equal(summary.histograms.latency.count, 20, 'every latency recorded')
  t.ok(
    summary.latency_us.p50 >= 10000 && summary.latency_us.max <= 20000,
    'each at least the 10 ms of its own statement'
  )
  t.match(summary, {
    concurrency: 2,
    final_concurrency: 2,
    mix: 'read=1',
    server_version: '15.8',
    workload: 'stand-in'
  })
  t.equal(summary.abandoned_in_flight, false, 'every request ended in time')
  t.same(warnings, [])
  t.equal(generator.connections, 0, 'the connections closed')
})

t.test('a request still running at the end is cancelled, then cut, and the summary says so', async t => {
  const clock = new FakeClock().install(t)
  let n = 0
  const server = new StandInServer(() => {
    clock.nowMs += 10
    return ++n <= 3 ? oneValue('1') : null // the fourth never ends
  })
  const { session, generator, warnings } = standInSession(t, server, null, 2)
  generator.setConcurrency(1)
  await settle(10)
  t.equal(server.held.length, 1, 'a request waits on the server')
  const finishing = session.finish()
  /** @type {any} */
  let summary = null
  finishing.then(result => (summary = result))
  // the stop's grace, the cancel's grace, the abort's wait: time moves on until it has ended
  while (summary === null && clock.nowMs < 1000 + 2 * (2000 + CANCEL_GRACE_MS + 1000)) await clock.advance(100)
  t.equal(summary.abandoned_in_flight, true)
  t.same(warnings, [
    'connection 0 lost (request failed: still running at the shutdown timeout; connection closed); reconnecting',
    'requests still in flight after 2 s were abandoned'
  ])
  t.match(summary.requests.read, { started: 4, done: 4, failed: 1 }, 'three ended, the fourth failed when cut')
  t.same(summary.errors, { 'still running at the shutdown timeout; connection closed': 1 }, 'and says why')
  t.same(summary.cancels, { sent: 1, succeeded: 0, gave_up: 1 }, 'cancelled on the server first, in vain')
  t.ok(server.connections[0].broken, 'its connection cut')
})
