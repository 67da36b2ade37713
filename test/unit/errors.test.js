// The program's coded errors without a server: every code is documented in
// docs/errors.md and mapped by the CLI to an exit code, causes are kept, the
// CLI prints one line (and the cause chain at --log-level debug), and a
// control connection maps its failures to a coded error and survives a
// server that drops it while idle (a local socket plays the server).
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createServer } from 'node:net'
import { once } from 'node:events'
import * as errors from '../../lib/errors.js'
import { EXIT_CODES, describeChain, exitCodeFor } from '../../lib/cli/exit-codes.js'
import { closeControlClient, openControlClient, withControlClient } from '../../lib/pg/control-client.js'
import { codedServerError, serverErrorCode } from '../../lib/pg/server-errors.js'
import { parsePlan } from '../../lib/experiment/plan.js'
import { parseSchedule } from '../../lib/sidecar/schedule.js'
import { loadWorkload } from '../../lib/workloads/index.js'
import { createLogger } from '../../lib/log.js'
import { runCli } from '../helpers/cli.js'

const { ERROR_CLASSES, ERROR_CODES, ERROR_FAMILIES, PgloadgenError, InputError, RuntimeError, rephrased } = errors
const ROOT = new URL('../../', import.meta.url)

/** The code each class gives its errors. */
const classCodes = ERROR_CLASSES.map(Kind => new Kind('x').code)
/** Every code of the table. */
const codes = /** @type {Array<keyof typeof ERROR_CODES>} */ (Object.keys(ERROR_CODES))

t.test('every error class of lib/errors.js is listed, with a distinct code', async t => {
  const exported = Object.values(errors).filter(
    value => typeof value === 'function' && value.prototype instanceof PgloadgenError
  )
  t.same(new Set(exported), new Set(ERROR_CLASSES), 'ERROR_CLASSES holds every exported class')
  t.equal(new Set(classCodes).size, classCodes.length, 'no two classes share a code')
  for (const code of classCodes) t.ok(Object.hasOwn(ERROR_CODES, code), `${code}: in the table`)
  for (const code of codes) t.match(code, /^PGLG_[A-Z_]+$/, code)
  const source = await readFile(new URL('lib/error-codes.js', ROOT), 'utf8')
  t.same(
    new Set(source.match(/PGLG_[A-Z_]+/g)),
    new Set([...codes, ...Object.keys(errors.WARNING_CODES)]),
    'the source names no other code'
  )
})

t.test('docs/errors.md documents every code, and no other', async t => {
  const page = await readFile(new URL('docs/errors.md', ROOT), 'utf8')
  const rows = [...page.matchAll(/^\| `(PGLG_[A-Z_]+)` \| `(\w+)` \| (\d) \|/gm)]
  t.same(
    new Set(page.match(/PGLG_[A-Z_]+/g)),
    new Set([...codes, ...Object.keys(errors.WARNING_CODES)]),
    'the codes named on the page are the codes defined'
  )
  t.same(new Set(rows.map(row => row[1])), new Set(codes), 'each code has a row')
  for (const [, code, className, exitCode] of rows) {
    const Kind = ERROR_CLASSES.find(kind => new kind('x').code === code)
    const family = ERROR_FAMILIES[ERROR_CODES[/** @type {keyof typeof ERROR_CODES} */ (code)].family]
    t.equal(className, Kind?.name ?? family.className, `${code}: its class`)
    t.equal(Number(exitCode), EXIT_CODES[code], `${code}: the exit code the CLI gives`)
  }
})

t.test('the CLI maps every code, with the exit codes of the README', async t => {
  t.same(new Set(Object.keys(EXIT_CODES)), new Set(codes), 'one exit code per code')
  for (const code of codes) {
    const family = ERROR_CODES[code].family
    const err = family === 'input' ? new InputError('x', { code: /** @type {any} */ (code) }) : null
    if (err) t.equal(exitCodeFor(err), 2, `${code}: bad input`)
    else t.equal(EXIT_CODES[code], 1, `${code}: runtime`)
  }
  const runtime = new RuntimeError('x', { code: 'PGLG_SNAPSHOT_FAILED' })
  t.equal(exitCodeFor(runtime), 1, 'a finer runtime code exits 1')
  t.equal(runtime.name, 'RuntimeError', 'and is named after its family')
  for (const Kind of ERROR_CLASSES) {
    const err = new Kind('x')
    const kind = err instanceof InputError ? 'bad input' : 'runtime'
    t.equal(exitCodeFor(err), err instanceof InputError ? 2 : 1, `${Kind.name}: ${kind}`)
  }
  t.equal(exitCodeFor(new Error('x')), null, "an uncoded error is not the mapping's")
  t.equal(exitCodeFor(Object.assign(new Error('x'), { code: '08006' })), null, 'nor is a driver error with a SQLSTATE')
  t.notOk('exitCode' in new InputError('x'), 'errors carry no exit code')
  for (const Kind of ERROR_CLASSES) {
    const family = new Kind('x') instanceof InputError ? 'InputError' : 'RuntimeError'
    t.equal(new Kind('x').name, family, `${Kind.name}: named after its family, as Node names its own errors`)
  }
})

t.test('cause is kept, and a rephrased error keeps its kind', async t => {
  const driver = new Error('connect ECONNREFUSED 127.0.0.1:1')
  for (const Kind of ERROR_CLASSES) {
    const err = new Kind('cannot connect', { cause: driver })
    t.equal(err.cause, driver, `${Kind.name} keeps its cause`)
    t.equal(err.message, 'cannot connect')
  }
  const inner = new errors.InvalidWorkloadError('-D: invalid variable name "1x"')
  const outer = rephrased(inner, 'variants[0].options: -D: invalid variable name "1x"')
  t.type(outer, errors.InvalidWorkloadError)
  t.equal(outer.code, 'PGLG_INVALID_WORKLOAD')
  t.equal(outer.cause, inner)
  const number = new InputError('not a number', { code: 'PGLG_INVALID_NUMBER' })
  t.equal(rephrased(number, 'field: not a number').code, 'PGLG_INVALID_NUMBER', 'a rephrased error keeps its code')
  const chain = describeChain(new RuntimeError('cannot prepare the schema', { cause: outer }))
  t.match(
    chain,
    /^RuntimeError \[PGLG_RUNTIME_FAILURE\]: cannot prepare the schema\n/,
    'the chain starts with the error'
  )
  t.match(chain, /\ncaused by InputError \[PGLG_INVALID_WORKLOAD\]: variants\[0\]/, 'and goes through its causes')
  t.match(chain, /\ncaused by InputError \[PGLG_INVALID_WORKLOAD\]: -D: invalid variable name/)
  t.match(chain, /errors\.test\.js/, 'with their stacks')
})

t.test('a plan, a schedule and a workload refuse with their own codes, the inner check as cause', async t => {
  const plan = await parsePlan({ name: 'p', nonsense: 1 }, { baseDir: '.' }).then(
    () => null,
    err => err
  )
  t.match(plan, { code: 'PGLG_INVALID_PLAN', message: 'nonsense: unknown field' })
  t.type(plan?.cause, InputError, "the field's own check as cause")
  t.equal(exitCodeFor(plan), 2)
  const schedule = t.throws(() => parseSchedule({ actions: [] }, new Date()))
  t.match(schedule, { code: 'PGLG_INVALID_PLAN', message: 'schedule: expected a non-empty list "actions"' })
  const workload = await loadWorkload('no-such-workload').then(
    () => null,
    err => err
  )
  t.match(workload, { code: 'PGLG_INVALID_WORKLOAD', message: /^unknown workload "no-such-workload"/ })
  t.equal(exitCodeFor(workload), 2)
  const kept = new errors.InvalidPlanError("already a plan's")
  t.equal(errors.reclassified(kept, errors.InvalidPlanError), kept, 'an error of the kind already is kept as it is')
  const bug = new TypeError('a bug')
  t.equal(errors.reclassified(bug, errors.InvalidPlanError), bug, 'an uncoded error is not reclassified')
})

t.test('the CLI prints one line, and with --log-level debug the stacks of the error and its causes', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-errors-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = path.join(dir, 'plan.yaml')
  await writeFile(plan, 'name: p\nnonsense: 1\n')
  const args = ['experiment', plan, '--out', path.join(dir, 'out')]
  const plain = await runCli(args)
  t.equal(plain.code, 2, 'exit 2, as for any bad input')
  t.equal(plain.stderr, 'pgloadgen: nonsense: unknown field\n', 'one line')
  const debug = await runCli([...args, '--log-level', 'debug'])
  t.equal(debug.code, 2, 'the same exit code')
  t.match(debug.stderr, /^pgloadgen: nonsense: unknown field\n/, 'the line first')
  t.match(
    debug.stderr,
    /\npgloadgen debug: InputError \[PGLG_INVALID_PLAN\]: nonsense: unknown field\n\s+at /,
    'then the error, with its code and stack'
  )
  t.match(
    debug.stderr,
    /\ncaused by InputError \[PGLG_UNKNOWN_OPTION\]: nonsense: unknown field\n\s+at /,
    'the cause, with its code and stack'
  )
})

t.test("a control connection not made is PGLG_SERVER_UNAVAILABLE, the driver's error its cause", async t => {
  // a socket directory where no server listens
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-errors-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const err = await openControlClient({ connectionString: socketUrl(dir) }).then(
    () => null,
    e => e
  )
  t.type(err, errors.ServerUnavailableError)
  t.equal(err?.code, 'PGLG_SERVER_UNAVAILABLE')
  t.match(err?.message, /ENOENT/, "the driver's message")
  t.equal(/** @type {{ code?: string }} */ (err?.cause)?.code, 'ENOENT', "the driver's error as cause")
})

/**
 * The URL of a server on the Unix socket of dir: the unit loop has no
 * network, not even loopback.
 * @param {string} dir
 */
function socketUrl(dir) {
  return `postgres://lab@${encodeURIComponent(dir)}/db`
}

/**
 * A server that accepts one session without authentication, answers every
 * query with an empty result, and can drop the connection.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 */
async function fakeServer(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-errors-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  /** @type {import('node:net').Socket[]} */
  const sockets = []
  const server = createServer(socket => {
    sockets.push(socket)
    let started = false
    socket.on('data', data => {
      if (!started) {
        started = true
        // AuthenticationOk, ReadyForQuery (idle)
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]))
        return
      }
      // a simple Query: EmptyQueryResponse, ReadyForQuery
      if (data[0] === 0x51) socket.write(Buffer.from([0x49, 0, 0, 0, 4, 0x5a, 0, 0, 0, 5, 0x49]))
      // Terminate: the client ends
      if (data[0] === 0x58) socket.end()
    })
    socket.on('error', () => {})
  }).listen(path.join(dir, '.s.PGSQL.5432'))
  await once(server, 'listening')
  t.teardown(() => new Promise(resolve => server.close(resolve)))
  return { url: socketUrl(dir), sockets }
}

t.test('a control connection dropped while idle is reported, not fatal, and the client still ends', async t => {
  const server = await fakeServer(t)
  /** @type {string[]} */
  const warnings = []
  /** @type {import('../../lib/log.js').Logger} */
  const log = {
    ...createLogger({ level: 'silent' }),
    warn: m => {
      warnings.push(m)
    }
  }
  const client = await openControlClient({ connectionString: server.url, applicationName: 'pgloadgen-test', log })
  await client.query('')
  // events.once would reject on the 'error' this emits first
  const ended = new Promise(resolve => client.once('end', resolve))
  server.sockets[0].destroy()
  await ended
  t.equal(warnings.length, 1, 'one warning')
  t.match(warnings[0], /^control connection pgloadgen-test lost: /, 'naming the connection')
  await t.rejects(client.query(''), 'the next statement fails')
  await closeControlClient(client)
  t.pass('the process is still here')
})

t.test('withControlClient ends the client when the work fails', async t => {
  const server = await fakeServer(t)
  /** @type {import('pg').Client | null} */
  let used = null
  const failure = new Error('the work failed')
  await t.rejects(
    withControlClient({ connectionString: server.url }, async client => {
      used = client
      await client.query('')
      throw failure
    }),
    failure,
    "the work's error, unchanged"
  )
  await once(server.sockets[0], 'close')
  t.ok(used, 'the work ran')
  t.pass('the connection was closed')
})

t.test('a warning line shows its code, and a line without one is as before', async t => {
  /** @type {string[]} */
  const lines = []
  const log = createLogger({ level: 'info', stream: { write: s => lines.push(s) } })
  log.warn('disk full: no space left on device; the load goes on', 'PGLG_W_DISK_FULL')
  log.warn('SIGINT again: exiting now')
  t.same(lines, [
    'pgloadgen warn [PGLG_W_DISK_FULL]: disk full: no space left on device; the load goes on\n',
    'pgloadgen warn: SIGINT again: exiting now\n'
  ])
})

t.test("the driver's and the server's errors map to codes through one table", async t => {
  /** @param {string} code @param {string} [message] */
  const driver = (code, message = 'x') => Object.assign(new Error(message), { code })
  t.equal(serverErrorCode(driver('ECONNREFUSED')), 'PGLG_SERVER_UNAVAILABLE', 'a refused socket')
  t.equal(serverErrorCode(driver('08006')), 'PGLG_SERVER_UNAVAILABLE', 'a SQLSTATE of class 08, by its class')
  t.equal(serverErrorCode(driver('28P01')), 'PGLG_SERVER_UNAVAILABLE', 'a failed authentication')
  t.equal(serverErrorCode(driver('53100')), 'PGLG_DISK_FULL', 'disk_full')
  t.equal(serverErrorCode(driver('XX000', 'could not extend file: Disk quota exceeded')), 'PGLG_DISK_FULL', 'a quota')
  t.equal(serverErrorCode(driver('42P01')), null, 'an undefined table is not named by the table')
  t.equal(serverErrorCode(new Error('x')), null, 'nor an error without a code')
  const refused = codedServerError('cannot connect', driver('53300'), 'PGLG_SCHEMA_FAILED')
  t.type(refused, errors.ServerUnavailableError, 'too many connections: the server is unavailable')
  t.equal(refused.cause?.constructor, Error, "the driver's error is the cause")
  const failed = codedServerError('cannot prepare the schema', driver('42501'), 'PGLG_SCHEMA_FAILED')
  t.match(failed, { name: 'RuntimeError', code: 'PGLG_SCHEMA_FAILED', message: 'cannot prepare the schema' })
})
