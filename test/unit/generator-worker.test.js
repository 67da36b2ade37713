// A worker's closed and open loops against a stand-in server
// (test/helpers/stand-in-server.js), on a fake clock: the requests it
// issues, what it records of them, a request timeout ending in a cancel, a
// refused connection retried with backoff. No server.
import t from 'tap'
import { Worker } from '../../lib/generator/worker.js'
import { Pacer } from '../../lib/generator/pacer.js'
import { RunState } from '../../lib/generator/run-state.js'
import { Refusals, TOO_MANY_CONNECTIONS } from '../../lib/generator/refusals.js'
import { QUERY_CANCELED, CANCEL_GRACE_MS } from '../../lib/generator/request-watch.js'
import { RequestStats, CANCELS_SENT, CANCELS_SUCCEEDED, CANCELS_GAVE_UP } from '../../lib/metrics/request-stats.js'
import { WireConnection, ServerError } from '../../lib/wire/wire-connection.js'
import { mixOf } from '../../lib/config/mix.js'
import { FakeClock, settle } from '../helpers/fake-clock.js'
import { StandInServer, oneValue } from '../helpers/stand-in-server.js'
import * as m from '../helpers/backend-messages.js'

const TYPES = ['read', 'write']

/** A log that keeps what it was told. */
function recordingLog() {
  /** @type {string[]} */
  const lines = []
  const say = (/** @type {string} */ level) => (/** @type {string} */ message) => lines.push(`${level}: ${message}`)
  return {
    lines,
    log: /** @type {any} */ ({ debug: say('debug'), info: say('info'), warn: say('warn'), error: say('error') })
  }
}

/**
 * A worker of a two-type workload (read: SELECT $1; write: an INSERT), its
 * connections opened on server.
 * @param {import('tap').Test} t
 * @param {StandInServer} server
 * @param {object} [options]
 * @param {number[]} [options.weights]  of read and write
 * @param {number | null} [options.requests]  -t
 * @param {Pacer | null} [options.pacer]
 * @param {() => Promise<WireConnection>} [options.connect]  instead of a connection to server
 */
function worker(t, server, { weights = [1, 1], requests = null, pacer = null, connect } = {}) {
  const realConnect = WireConnection.connect
  WireConnection.connect = connect ?? (async () => server.connect())
  t.teardown(() => {
    WireConnection.connect = realConnect
  })
  const { lines, log } = recordingLog()
  const stats = new RequestStats(TYPES)
  const connections = { open: 0, limits: 0 }
  const workload = {
    config: {},
    defines: {},
    pacing: null,
    idTable: null,
    expectedErrors: [null, null],
    initClient: async () => {},
    requests: [
      async (/** @type {any} */ db) => (await db.query('SELECT $1::int', [7])).first === '7',
      async (/** @type {any} */ db) => {
        await db.query('INSERT INTO t VALUES ($1)', ['x'])
      }
    ]
  }
  const context = /** @type {any} */ ({
    connectionString: 'postgres://stand-in/db',
    protocol: 'prepared',
    workload,
    shared: null,
    state: new RunState(0),
    mix: mixOf(TYPES, weights),
    stats,
    log,
    onConnectionChange: (/** @type {number} */ delta) => (connections.open += delta),
    onReconnect: () => {},
    pacer,
    clients: { requestsPerClient: requests, seed: 1 },
    onLimit: () => connections.limits++,
    gate: { paused: false, resumed: Promise.resolve() },
    refusals: new Refusals(log, stats.refusals, () => connections.open)
  })
  return { worker: new Worker(0, context), stats, lines, connections }
}

/** @param {string} text @param {Array<string | null>} params */
const answer = (text, params) => {
  if (text.startsWith('SELECT')) return oneValue(params[0])
  return [m.commandComplete(text.startsWith('INSERT') ? 'INSERT 0 1' : text)]
}

t.test('a closed loop issues its -t requests through the connection, one after the other', async t => {
  new FakeClock().install(t)
  const server = new StandInServer(answer)
  const { worker: w, stats, connections } = worker(t, server, { requests: 20 })
  await w.start().done
  t.equal(server.statements.length, 20, 'twenty statements reached the server')
  t.equal(stats.done[0] + stats.done[1], 20, 'twenty requests recorded')
  t.ok(stats.done[0] > 0 && stats.done[1] > 0, 'of both types of the mix')
  t.same([...stats.failed], [0, 0], 'none failed')
  t.equal(stats.notFound[0], 0, 'every read found its row')
  const texts = new Set(server.statements.map(s => s.text))
  t.same([...texts].sort(), ['INSERT INTO t VALUES ($1)', 'SELECT $1::int'], 'the workload statements')
  t.same(connections, { open: 0, limits: 1 }, 'the limit said once, the connection closed')
  t.equal(server.connections.length, 1, 'one connection for the whole loop')
})

t.test('a failed request is counted with its message, and the loop goes on', async t => {
  new FakeClock().install(t)
  let n = 0
  const server = new StandInServer(text => {
    if (text === 'ROLLBACK') {
      server.status = 'I'
      return [m.commandComplete('ROLLBACK')]
    }
    if (++n % 3 !== 0) return oneValue('7')
    server.status = 'E' // a failed transaction, as a workload's BEGIN … would leave it
    return [m.errorResponse('deadlock detected', '40P01')]
  })
  const { worker: w, stats } = worker(t, server, { weights: [1, 0], requests: 9 })
  await w.start().done
  t.equal(stats.done[0], 9)
  t.equal(stats.failed[0], 3, 'every third failed')
  t.equal(stats.unexpectedFailures, 3)
  const rollbacks = server.statements.filter(s => s.text === 'ROLLBACK').length
  t.equal(rollbacks, 3, 'each failure rolled back before the next request')
  t.same(stats.errors.toJSON(), { 'deadlock detected': 3 }, 'the message counted')
})

t.test('a request past the timeout is cancelled on the server, and the connection kept', async t => {
  const clock = new FakeClock().install(t)
  let first = true
  const server = new StandInServer(() => (first ? ((first = false), null) : oneValue('7')))
  const { worker: w, stats } = worker(t, server, { weights: [1, 0], requests: 2 })
  w.start()
  await settle()
  t.equal(server.held.length, 1, 'the request waits on the server')
  const connection = server.connections[0]
  /** @type {number[]} */
  const cancels = []
  connection.cancel = async timeoutMs => {
    cancels.push(timeoutMs)
    // the server stops the statement: its error comes, then the held answer's end
    connection.reader.push(m.concat(m.errorResponse('canceling statement due to user request', QUERY_CANCELED)))
    return true
  }
  w.checkTimeout(clock.nowMs + 499, 500)
  t.same(cancels, [], 'not yet late: no cancel')
  await clock.advance(500)
  w.checkTimeout(clock.nowMs, 500)
  t.same(cancels, [5000], 'a cancel, on a connection of its own bounded by its timeout')
  server.release()
  await w.done
  t.equal(stats.timeouts[0], 1, 'counted as a timeout')
  t.equal(stats.cancels[CANCELS_SENT], 1)
  t.equal(stats.cancels[CANCELS_SUCCEEDED], 1, 'the cancel ended it within the grace')
  t.equal(stats.cancels[CANCELS_GAVE_UP], 0)
  t.same(stats.errors.toJSON(), { 'request timed out after N ms; cancelled on the server': 1 }, 'the message says so')
  t.equal(stats.done[0], 2, 'the next request ran')
  t.equal(server.connections.length, 1, 'on the same connection: it was kept')
})

t.test('a cancel that does not end the request: after the grace the connection is cut', async t => {
  const clock = new FakeClock().install(t)
  const server = new StandInServer(() => null)
  const { worker: w, stats, lines } = worker(t, server, { weights: [1, 0], requests: 1 })
  w.start()
  await settle()
  const connection = server.connections[0]
  connection.cancel = async () => true
  await clock.advance(2000)
  w.checkTimeout(clock.nowMs, 1000)
  await clock.advance(CANCEL_GRACE_MS - 1)
  t.notOk(connection.broken, 'within the grace the connection stands')
  await clock.advance(1)
  t.ok(connection.broken, 'then it is cut')
  await w.done
  t.equal(stats.timeouts[0], 1)
  t.equal(stats.cancels[CANCELS_GAVE_UP], 1, 'the cancel gave up')
  t.ok(
    lines.some(line => line.startsWith('warn: connection 0 lost')),
    'the lost connection said'
  )
})

t.test('refused connections are retried with backoff, and the episode said twice', async t => {
  const clock = new FakeClock().install(t)
  const server = new StandInServer(answer)
  let attempts = 0
  const refusal = new ServerError({ S: 'FATAL', C: TOO_MANY_CONNECTIONS, M: 'sorry, too many clients already' })
  const {
    worker: w,
    stats,
    lines
  } = worker(t, server, {
    requests: 1,
    connect: async () => {
      if (++attempts <= 3) throw refusal
      return server.connect()
    }
  })
  w.start()
  await settle()
  t.equal(attempts, 1, 'refused once, then waits')
  t.equal(clock.pending, 1, 'a backoff timer')
  // backoff 100 ms, then 200, then 400, each times a random 0.5 to 1
  await clock.advance(50 - 1)
  t.equal(attempts, 1, 'no retry before half the first backoff')
  await clock.advance(100 + 200 + 400)
  await w.done
  t.equal(attempts, 4, 'three refusals, then a connection')
  t.equal(stats.refusals[0], 3, 'each refusal counted')
  t.equal(stats.done[0] + stats.done[1], 1, 'and the request ran')
  const said = lines.filter(line => /refuses connections|accepts connections again/.test(line))
  t.equal(said.length, 2, 'the refusal said once, the recovery once')
  t.match(said[1], /3 attempts refused meanwhile/)
})

t.test('an open loop waits for the pacer, and records its lag from the intended start', async t => {
  const clock = new FakeClock().install(t)
  const server = new StandInServer(answer)
  const pacer = new Pacer({ rate: 100, arrival: 'fixed', maxLagMs: null })
  pacer.begin(clock.nowMs)
  const { worker: w, stats } = worker(t, server, { requests: 5, pacer })
  w.start()
  await settle()
  t.equal(server.statements.length, 1, 'the first arrival is due at once')
  await clock.advance(9)
  t.equal(server.statements.length, 1, 'the second is not due before 10 ms')
  await clock.advance(1)
  t.equal(server.statements.length, 2, 'and goes at 10 ms')
  await clock.advance(30)
  await w.done
  t.equal(server.statements.length, 5, 'five arrivals in 40 ms at 100/s')
  t.equal(stats.lag.count, 5, 'a lag recorded for each')
  t.equal(stats.lag.max, 0, 'none late: the fake clock stood still while they ran')
})
