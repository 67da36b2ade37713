// The generator's parts around the worker, on a fake clock and a stand-in
// server: the pacer's schedule and lateness, the request watch's cancel and
// grace, the refusals' episode, the run state's incarnations and the
// threads' reports, and a Generator's clients, pause and stop. No server.
import t from 'tap'
import { Generator } from '../../lib/generator/generator.js'
import { Pacer } from '../../lib/generator/pacer.js'
import { RequestWatch, CANCEL_GRACE_MS, CANCEL_TIMEOUT_MS, QUERY_CANCELED } from '../../lib/generator/request-watch.js'
import { Refusals, connectRefusal, TOO_MANY_CONNECTIONS } from '../../lib/generator/refusals.js'
import { RunState } from '../../lib/generator/run-state.js'
import { ThreadRunState, StateReplay } from '../../lib/generator/thread-state.js'
import { monotonicEpochMs, latest } from '../../lib/generator/clock.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'
import { ConnectionLostError, RequestTimeoutError, ServerError } from '../../lib/wire/errors.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { mixOf } from '../../lib/config/mix.js'
import { FakeClock, settle } from '../helpers/fake-clock.js'
import { StandInServer, oneValue } from '../helpers/stand-in-server.js'

t.test('pacer: a fixed schedule from its origin, late arrivals skipped past the max lag', async t => {
  const clock = new FakeClock(5000).install(t)
  const pacer = new Pacer({ rate: 200, arrival: 'fixed', maxLagMs: 20 })
  t.equal(pacer.originMs, 5000, 'the schedule starts now')
  t.same([pacer.take(), pacer.take(), pacer.take()], [5000, 5005, 5010], 'every 5 ms at 200/s')
  await clock.advance(100)
  // now 5100: arrivals before 5080 are more than 20 ms late
  t.equal(pacer.takeOnTime(), 5080, 'the first within the max lag')
  t.equal(pacer.skipped, 13, 'the 13 before it (5015 … 5075) skipped')
  pacer.setRate(100)
  t.same([pacer.take(), pacer.take()], [5100, 5110], 'a new rate starts over from now, owing nothing')
  t.equal(new Pacer({ rate: 200, arrival: 'fixed', maxLagMs: null }).takeOnTime(), 5100, 'no max lag: none skipped')
})

t.test('pacer: Poisson arrivals from a seed, their mean gap the rate, repeatable', async t => {
  new FakeClock(0).install(t)
  const arrivals = (/** @type {number} */ seed) => {
    const pacer = new Pacer({ rate: 1000, arrival: 'poisson', maxLagMs: null, seed })
    return Array.from({ length: 20000 }, () => pacer.take())
  }
  const times = arrivals(7)
  t.same(arrivals(7).slice(0, 100), times.slice(0, 100), 'the same seed, the same arrivals')
  t.ok(
    times.every((time, i) => i === 0 || time >= times[i - 1]),
    'in order'
  )
  const meanGap = times[times.length - 1] / times.length
  t.ok(Math.abs(meanGap - 1) < 0.03, `mean gap ${meanGap.toFixed(3)} ms at 1000/s`)
  const gaps = times.slice(1).map((time, i) => time - times[i])
  const overTwice = gaps.filter(gap => gap > 2).length / gaps.length
  t.ok(Math.abs(overTwice - Math.exp(-2)) < 0.01, `P(gap > 2 means) ${overTwice.toFixed(3)}, e^-2 for exponential gaps`)
})

/**
 * A stand-in for the watched connection: what was asked of it.
 * @param {{ backendKey?: unknown }} [options]
 */
function watchedConnection({ backendKey = { pid: 1, secret: Buffer.alloc(4) } } = {}) {
  const calls = { cancels: /** @type {number[]} */ ([]), failures: /** @type {Error[]} */ ([]) }
  /** @type {() => void} */
  let answer = () => {}
  const connection = {
    broken: false,
    backendKey,
    cancel: (/** @type {number} */ timeoutMs) => {
      calls.cancels.push(timeoutMs)
      return new Promise(resolve => (answer = () => resolve(true)))
    },
    fail: (/** @type {Error} */ err) => {
      connection.broken = true
      calls.failures.push(err)
    }
  }
  return { connection: /** @type {any} */ (connection), calls, answerCancel: () => answer() }
}

t.test('request watch: a wait past the timeout is cancelled, then cut after the grace', async t => {
  const clock = new FakeClock().install(t)
  const cancels = new Float64Array(3)
  const watch = new RequestWatch(cancels)
  const { connection, calls } = watchedConnection()
  watch.begin(connection)
  watch.check(clock.nowMs + 999, 1000)
  t.same(calls.cancels, [], 'not yet')
  watch.check(clock.nowMs + 1000, 1000)
  t.same(calls.cancels, [CANCEL_TIMEOUT_MS], 'a cancel sent at the timeout')
  t.ok(watch.timedOut)
  watch.check(clock.nowMs + 5000, 1000)
  t.equal(calls.cancels.length, 1, 'once')
  await clock.advance(CANCEL_GRACE_MS)
  t.equal(calls.failures.length, 1, 'the connection cut after the grace')
  t.ok(calls.failures[0] instanceof RequestTimeoutError, 'with the timeout for its error')
  t.same([...cancels], [1, 0, 1], 'sent, gave up')
  t.equal(watch.failureMessage(calls.failures[0]), 'request timed out after 1 s')
})

t.test('request watch: a cancel that works keeps the connection, and its exchange is waited for', async t => {
  const clock = new FakeClock().install(t)
  const cancels = new Float64Array(3)
  const watch = new RequestWatch(cancels)
  const { connection, calls, answerCancel } = watchedConnection()
  watch.begin(connection)
  await clock.advance(300)
  watch.check(clock.nowMs, 250)
  const cancelled = new ServerError({ C: QUERY_CANCELED, M: 'canceling statement due to user request' })
  t.equal(watch.failureMessage(cancelled), 'request timed out after 250 ms; cancelled on the server')
  t.equal(watch.failureMessage(new Error('boom')), 'boom (request timed out)')
  watch.end()
  let settled = false
  const settling = watch.settle(connection).then(() => (settled = true))
  await settle()
  t.notOk(settled, "settle waits for the cancel's exchange")
  answerCancel()
  await settling
  t.equal(clock.pending, 0, 'the grace timer cleared')
  t.same([...cancels], [1, 1, 0], 'sent, succeeded')
  t.same(calls.failures, [], 'the connection kept')
  t.notOk(watch.timedOut, 'the next wait starts clean')
})

t.test('request watch: no backend key, no cancel: the connection is cut at once; shutdown', async t => {
  const clock = new FakeClock().install(t)
  const watch = new RequestWatch(new Float64Array(3))
  const keyless = watchedConnection({ backendKey: null })
  watch.begin(keyless.connection)
  watch.check(clock.nowMs + 10, 10)
  t.equal(keyless.calls.failures.length, 1, 'cut')
  t.same(keyless.calls.cancels, [], 'no cancel could be sent')
  const shutdown = new RequestWatch(new Float64Array(3))
  const running = watchedConnection()
  shutdown.cancelAtShutdown()
  t.same(running.calls.cancels, [], 'nothing waiting: nothing to cancel')
  shutdown.begin(running.connection)
  shutdown.cancelAtShutdown()
  t.same(running.calls.cancels, [CANCEL_TIMEOUT_MS], 'a wait at shutdown is cancelled')
  t.equal(
    shutdown.failureMessage(new ServerError({ C: QUERY_CANCELED, M: 'x' })),
    'still running at the shutdown timeout; cancelled on the server'
  )
  t.ok(shutdown.cutError() instanceof ConnectionLostError)
  running.answerCancel()
  await shutdown.settle(running.connection)
  t.equal(clock.pending, 0, 'ended within the grace: nothing cut')
  t.same(running.calls.failures, [])
})

t.test('refusals: an episode said when it starts and when every refused client is back', async t => {
  /** @type {string[]} */
  const lines = []
  const log = /** @type {any} */ ({
    warn: (/** @type {string} */ s) => lines.push(s),
    info: (/** @type {string} */ s) => lines.push(s)
  })
  const counter = new Float64Array(1)
  const refusals = new Refusals(log, counter, () => 4)
  const err = new ServerError({ C: TOO_MANY_CONNECTIONS, M: 'sorry, too many clients already' })
  t.ok(connectRefusal(err) && !connectRefusal(new Error('x')) && !connectRefusal(null), 'a refusal is its SQLSTATE')
  refusals.add(1, err)
  refusals.add(2, err)
  refusals.add(1, err)
  t.equal(counter[0], 3, 'every attempt counted')
  t.equal(lines.length, 1, 'said once')
  t.match(lines[0], /refuses connections \(sorry, too many clients already, SQLSTATE 53300\): keeping the 4 open/)
  refusals.clear(1)
  t.equal(lines.length, 1, 'one refused client is still out')
  refusals.leave(2)
  refusals.clear(3)
  t.equal(lines.length, 1, 'a client never refused says nothing')
  refusals.add(5, err)
  refusals.clear(5)
  t.equal(lines.length, 3, 'a second episode: said when it starts and ends')
  t.equal(lines[2], 'the server accepts connections again (1 attempts refused meanwhile)')
})

t.test('run state: incarnations, acknowledgements, in-doubt inserts; a thread reports them in order', async t => {
  const state = new RunState(10)
  t.equal(state.incarnationOf('2026-01-01'), 0)
  const ids = state.forConnection(
    () => 0,
    () => 0.999
  )
  t.equal(ids.randomId(), 10, 'uniform in [1, maxId]')
  ids.noteInserted(11, 5)
  t.equal(state.maxId, 11, 'an insert above the max raises it')
  t.equal(state.incarnationOf('2026-01-02'), 1, 'a new start time: the server restarted')
  t.equal(state.incarnationOf('2026-01-01'), 0, 'a start time seen before keeps its number')
  ids.insertFailed(new ConnectionLostError('gone'), 9)
  ids.insertFailed(new ServerError({ C: '23505', M: 'duplicate' }))
  t.same(state.insertsInDoubt(), [{ rows: 1, probe: null, fingerprint: 9 }], 'only a lost reply leaves it in doubt')
  state.noteMaxIdAfterReconnect(3)
  t.equal(state.maxId, 3, 'the max may go down after a reconnect')

  const thread = new ThreadRunState(0)
  const main = new RunState(0)
  const replay = new StateReplay(main)
  t.equal(thread.takeReport(), null, 'nothing happened: no report')
  thread.incarnationOf('a')
  thread.noteInserted(1, 7)
  thread.incarnationOf('b')
  thread.noteInserted(2, 8)
  thread.inDoubt.push({ rows: 2, probe: null })
  replay.apply(/** @type {any} */ (thread.takeReport()))
  t.equal(thread.takeReport(), null, 'each thing reported once')
  t.same([...main.incarnations.keys()], ['a', 'b'], 'the incarnations, in order')
  t.equal(main.maxId, 2)
  t.ok(main.acknowledged.has(1) && main.acknowledged.has(2), 'the acknowledgements replayed')
  t.ok(main.acknowledged.fromEarlierIncarnation(1) && !main.acknowledged.fromEarlierIncarnation(2), 'with theirs')
  t.equal(main.inDoubt.length, 1)
})

t.test('clock: the monotonic epoch and the latest of moments', async t => {
  const clock = new FakeClock(100).install(t)
  const before = monotonicEpochMs()
  await clock.advance(250)
  t.equal(monotonicEpochMs() - before, 250, 'moves with performance.now()')
  t.equal(latest([null, 3, 7, null]), 7)
  t.equal(latest([null]), null)
  t.equal(latest([]), null)
})

/**
 * A Generator of a one-type workload on server.
 * @param {import('tap').Test} t
 * @param {StandInServer} server
 * @param {number | null} requests
 */
function generator(t, server, requests) {
  const realConnect = WireConnection.connect
  WireConnection.connect = async () => server.connect()
  t.teardown(() => {
    WireConnection.connect = realConnect
  })
  const stats = new RequestStats(['read'])
  const log = /** @type {any} */ ({ debug() {}, info() {}, warn() {}, error() {} })
  const workload = /** @type {any} */ ({
    config: {},
    defines: {},
    pacing: null,
    idTable: null,
    expectedErrors: [null],
    initClient: async () => {},
    requests: [async (/** @type {any} */ db, /** @type {any} */ ctx) => db.query('SELECT $1::int', [ctx.clientId])]
  })
  const options = /** @type {any} */ ({
    connectionString: 'postgres://stand-in/db',
    protocol: 'prepared',
    workload,
    shared: null,
    state: new RunState(0),
    mix: mixOf(['read'], [1]),
    stats,
    log,
    pacer: null,
    clients: { requestsPerClient: requests, seed: 1 }
  })
  return { load: new Generator(options), stats }
}

t.test('generator: N clients on N connections, each to its -t', async t => {
  new FakeClock().install(t)
  const server = new StandInServer((_text, params) => oneValue(params[0]))
  const { load, stats } = generator(t, server, 5)
  load.setConcurrency(3)
  await load.limitReached
  t.equal(server.connections.length, 3, 'a connection per client')
  t.equal(stats.done[0], 15, 'five requests each')
  const byClient = server.statements.map(s => s.params[0]).sort()
  t.same([...new Set(byClient)], ['0', '1', '2'], 'the clients numbered 0 to 2')
  t.equal(await load.stop(1000), true, 'every client ended in time')
  t.equal(load.connections, 0, 'every connection closed')
  t.equal(load.concurrency, 3, 'what the load ran at')
})

t.test('generator: fewer clients, a pause, and a stop past its grace that cancels and cuts', async t => {
  const clock = new FakeClock().install(t)
  const server = new StandInServer(() => null)
  const { load } = generator(t, server, null)
  load.setConcurrency(3)
  await settle()
  t.equal(load.connections, 3, 'three connections, each request held')
  load.setConcurrency(1)
  t.equal(load.concurrency, 1)
  t.equal(load.retiring.length, 2, 'two clients retire once their request ends')
  load.pause()
  server.responder = () => oneValue('1')
  server.release()
  await settle(10)
  t.equal(load.retiring.length, 0, 'they did')
  t.equal(load.connections, 1, 'and closed their connections')
  const sent = server.statements.length
  await settle(10)
  t.equal(server.statements.length, sent, 'paused: nothing more is sent')
  server.responder = () => null
  load.resume()
  await settle()
  t.equal(server.statements.length, sent + 1, 'resumed: the client sends again, and waits')
  /** @type {number[]} */
  const cancels = []
  server.connections[0].cancel = async timeoutMs => (cancels.push(timeoutMs), true)
  const stopped = load.stop(500)
  await clock.advance(499)
  t.same(cancels, [], 'within the grace nothing is cancelled')
  await clock.advance(1)
  t.same(cancels, [CANCEL_TIMEOUT_MS], 'past it, the request is cancelled on the server')
  await clock.advance(CANCEL_GRACE_MS)
  t.equal(await stopped, false, 'the stop says requests were abandoned')
  t.ok(server.connections[0].broken, 'the connection was cut')
  t.equal(load.connections, 0)
})
