// Snapshots taken and rolled back under a running generator: the scenario
// both drivers (copy, zfs) must pass, driven through the real CLI.
import { readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { CliRun, runCli, lines, sleep, waitFor } from './cli.js'
import { withClient } from './pg.js'
import { scrape, sampleValue } from './prom.js'
import { baseOf, control, pauseAndDrain, readEvents, requestTotals, status } from './control.js'
import { assertConsistent } from './summary.js'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'

export const TABLE = 'test_table'

/**
 * The port of the server running on a data directory, from postmaster.pid.
 * @param {string} dataDir
 */
export async function runningPort(dataDir) {
  const text = await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')
  return Number(text.split('\n')[3])
}

/**
 * A URL to the lab database of the embedded server running on dataDir, with
 * the password pgloadgen keeps in it.
 * @param {string} dataDir
 * @param {string} [database]
 */
export async function embeddedUrl(dataDir, database = 'pgloadgen') {
  const password = (await readFile(path.join(dataDir, 'pgloadgen.secret'), 'utf8')).trim()
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${await runningPort(dataDir)}/${database}`
}

/**
 * Rows and highest id of the workload's table.
 * @param {string} dataDir
 */
export async function tableState(dataDir) {
  return withClient(await embeddedUrl(dataDir), async client => {
    const { rows } = await client.query(
      `SELECT count(*)::bigint AS n, coalesce(max(id), 0)::bigint AS max FROM ${TABLE}`
    )
    return { count: Number(rows[0].n), maxId: Number(rows[0].max) }
  })
}

/**
 * Rows whose id is in (low, high].
 * @param {string} dataDir
 * @param {number} low
 * @param {number} high
 */
export async function rowsBetween(dataDir, low, high) {
  return withClient(await embeddedUrl(dataDir), async client => {
    const { rows } = await client.query(`SELECT count(*)::bigint AS n FROM ${TABLE} WHERE id > $1 AND id <= $2`, [
      low,
      high
    ])
    return Number(rows[0].n)
  })
}

/**
 * Stops whatever server still runs on dataDir (a test that failed half-way
 * leaves one behind when its generator is killed).
 * @param {string} dataDir
 */
export async function stopServerOn(dataDir) {
  if (!existsSync(path.join(dataDir, 'postmaster.pid'))) return
  const server = new EmbeddedServer({
    dataDir,
    profileFile: resolveProfile('default'),
    log: createLogger({ level: 'silent' })
  })
  if ((await server.runningPort()) !== null) await server.shutdown().catch(() => {})
}

/**
 * pgloadgen snapshot … --data-dir dataDir
 * @param {string} dataDir
 * @param {string[]} args
 * @param {{ events?: string }} [options]
 */
export function snapshotCli(dataDir, args, { events = '/dev/null' } = {}) {
  // Events go where the test looks at them, or nowhere: never into the
  // repository's default events file.
  return runCli(['snapshot', ...args, '--data-dir', dataDir, '--events', events])
}

/**
 * The snapshots `snapshot list --json` shows.
 * @param {import('tap').Test} t
 * @param {string} dataDir
 * @returns {Promise<string[]>}
 */
export async function snapshotNames(t, dataDir) {
  const result = await snapshotCli(dataDir, ['list', '--json'])
  t.equal(result.code, 0, `snapshot list --json: exit 0; stderr: ${result.stderr}`)
  return JSON.parse(result.stdout).map((/** @type {{ name: string }} */ s) => s.name)
}

/**
 * Checks a refusal: non-zero exit with one clear line, no stack trace.
 * @param {import('tap').Test} t
 * @param {import('./cli.js').CliResult} result
 * @param {{ code: number, problem: RegExp }} expected
 */
export function assertRefused(t, result, { code, problem }) {
  t.equal(result.code, code, `exit ${code}; stderr: ${result.stderr}`)
  const errorLines = lines(result.stderr)
  t.equal(errorLines.length, 1, `one line on stderr: ${JSON.stringify(result.stderr)}`)
  t.match(errorLines[0] ?? '', /^pgloadgen: \S/, 'the line says who speaks')
  t.match(errorLines[0] ?? '', problem, 'the line names the problem')
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
}

/**
 * Starts a generator on the lab's embedded server in dataDir (started by
 * the run when not running), with no end of its own, and waits until it is
 * fully connected and busy.
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, events: string, concurrency?: number }} options
 */
export async function startGenerator(t, { dataDir, events, concurrency = 4 }) {
  const run = new CliRun(
    [
      'run',
      '--data-dir',
      dataDir,
      '--profile',
      'default',
      '-p',
      '0',
      '-c',
      String(concurrency),
      '--json',
      '--events',
      events
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl(60000)
  await waitFor(async () => sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === concurrency, {
    what: `${concurrency} connections`,
    timeoutMs: 60000
  })
  await waitFor(async () => (await requestTotals(metricsUrl)).done >= 500, { what: 'some load done', timeoutMs: 30000 })
  return { run, metricsUrl, base: baseOf(metricsUrl), concurrency }
}

/**
 * The create and the rollback are on the events file, each a start and an
 * end that succeeded, in order, with their duration.
 * @param {import('tap').Test} t
 * @param {any[]} recorded
 */
function assertSnapshotEvents(t, recorded) {
  const snapshotEvents = recorded.filter(e => e.action === 'snapshot_create' || e.action === 'rollback')
  t.same(
    snapshotEvents.map(e => `${e.kind}:${e.action}`),
    ['start:snapshot_create', 'end:snapshot_create', 'start:rollback', 'end:rollback'],
    'snapshot create and rollback are events'
  )
  for (const e of snapshotEvents) t.equal(e.detail?.snapshot, 's1', `${e.kind}:${e.action} names the snapshot`)
  for (const e of snapshotEvents.filter(e => e.kind === 'end')) {
    t.equal(e.ok, true, `${e.action} ended well`)
    t.ok(typeof e.duration_s === 'number' && e.duration_s > 0, `${e.action} took ${e.duration_s} s`)
  }
}

/**
 * Resumes and waits until the generator has its connections back and has
 * done `requests` more.
 * @param {{ metricsUrl: string, base: string, concurrency: number }} generator
 * @param {number} requests
 */
export async function resumeAndLoad({ metricsUrl, base, concurrency }, requests) {
  const before = (await requestTotals(metricsUrl)).done
  await control(base, '/resume')
  await waitFor(async () => (await requestTotals(metricsUrl)).done >= before + requests, {
    what: `${requests} requests after resuming`,
    timeoutMs: 30000
  })
  await waitFor(async () => (await status(base)).connections === concurrency, {
    what: `${concurrency} connections after resuming`,
    timeoutMs: 20000
  })
}

/**
 * The scenario of issue 5 on a generator already running on dataDir whose
 * snapshots are set up (snapshot init done): pause, snapshot, more load,
 * pause, refusals, rollback, the count is the snapshot's again, the
 * generator carries on; then its summary.
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, generator: Awaited<ReturnType<typeof startGenerator>>, events: string,
 *     loadRequests?: number }} options
 */
export async function rollbackUnderLoad(t, { dataDir, generator, events, loadRequests = 2000 }) {
  const { run, base } = generator

  await pauseAndDrain(generator.metricsUrl)
  t.equal((await status(base)).paused, true, '/status: paused')
  const atSnapshot = await tableState(dataDir)
  t.ok(atSnapshot.count > 0, `rows at the snapshot: ${atSnapshot.count}`)
  const portBefore = await runningPort(dataDir)

  const created = await snapshotCli(dataDir, ['create', 's1'], { events })
  t.equal(created.code, 0, `snapshot create s1: exit 0; stderr: ${created.stderr}`)
  t.match(created.stderr, /snapshot "s1" taken/, 'the snapshot is reported')
  t.same(await snapshotNames(t, dataDir), ['s1'], 'snapshot list --json shows s1')
  t.equal((await tableState(dataDir)).count, atSnapshot.count, 'taking the snapshot changed no row')
  t.equal(await runningPort(dataDir), portBefore, 'the server runs on its port after the snapshot')

  await resumeAndLoad(generator, loadRequests)
  await pauseAndDrain(generator.metricsUrl)
  const beforeRollback = await tableState(dataDir)
  const vanishing = beforeRollback.count - atSnapshot.count
  t.ok(vanishing > 0, `rows inserted after the snapshot: ${vanishing}`)

  await t.test('refusals change nothing', async t => {
    const eventsBefore = await readFile(events, 'utf8')
    /** @param {string[]} args */
    const refused = args => snapshotCli(dataDir, args, { events })
    assertRefused(t, await refused(['rollback', 's1']), { code: 2, problem: /--yes/ })
    assertRefused(t, await refused(['destroy', 's1']), { code: 2, problem: /--yes/ })
    assertRefused(t, await refused(['rollback', 'nosuch', '--yes']), { code: 2, problem: /no snapshot named "nosuch"/ })
    assertRefused(t, await refused(['destroy', 'nosuch', '--yes']), { code: 2, problem: /no snapshot named "nosuch"/ })
    assertRefused(t, await refused(['create', 's1']), { code: 2, problem: /"s1" already exists/ })
    assertRefused(t, await refused(['create', '../evil']), { code: 2, problem: /snapshot name/ })
    t.same(await tableState(dataDir), beforeRollback, 'the table is as it was')
    t.same(await snapshotNames(t, dataDir), ['s1'], 'the snapshot is still there, and no other')
    t.equal(await runningPort(dataDir), portBefore, 'the server was not restarted')
    t.equal(await readFile(events, 'utf8'), eventsBefore, 'no event was recorded for a refusal')
  })

  const rolledBack = await snapshotCli(dataDir, ['rollback', 's1', '--yes'], { events })
  t.equal(rolledBack.code, 0, `snapshot rollback s1 --yes: exit 0; stderr: ${rolledBack.stderr}`)
  t.match(rolledBack.stderr, /rolled back to snapshot "s1"/, 'the rollback is reported')
  t.equal(await runningPort(dataDir), portBefore, 'the server is back on the same port')
  const afterRollback = await tableState(dataDir)
  t.equal(afterRollback.count, atSnapshot.count, `the row count is the snapshot's again (${atSnapshot.count})`)
  t.equal(afterRollback.maxId, atSnapshot.maxId, 'and so is the highest id')
  t.same(await snapshotNames(t, dataDir), ['s1'], 'the snapshot stays after a rollback to it')
  assertSnapshotEvents(t, await readEvents(events))

  await resumeAndLoad(generator, loadRequests)
  const doneAfter = (await status(base)).rates
  t.ok(
    Object.values(doneAfter).some(rate => Number(rate) > 0),
    `the generator carries on: ${JSON.stringify(doneAfter)}`
  )
  await sleep(500)
  await pauseAndDrain(generator.metricsUrl)
  const final = await tableState(dataDir)
  // Ids acknowledged between the snapshot and the rollback that are in the
  // table again: inserted anew after the rollback, with the same id.
  const reused = await rowsBetween(dataDir, atSnapshot.maxId, beforeRollback.maxId)
  t.ok(final.count > atSnapshot.count, `rows inserted after the rollback (${final.count - atSnapshot.count})`)

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `the generator exits 0 at SIGTERM; stderr: ${result.stderr.slice(-3000)}`)
  const summary = result.summary
  if (!t.ok(summary, 'a JSON summary')) return { result, vanishing, reused }
  assertConsistent(t, summary, { concurrency: generator.concurrency })
  t.equal(summary.unexpected_failures, 0, `no unexpected failure: ${JSON.stringify(summary.errors)}`)
  // The rows acknowledged between the snapshot and the rollback vanished
  // with it, and the summary says how many (all inserts were acknowledged:
  // the generator was paused and drained around the snapshot and rollback);
  // everything acknowledged since is in the table.
  t.equal(
    summary.acknowledged_vanished,
    vanishing,
    `acknowledged_vanished (${summary.acknowledged_vanished}) is the ${vanishing} rows acknowledged after the ` +
      `snapshot (${reused} of their ids were handed out again after the rollback)`
  )
  t.equal(summary.acknowledged_missing, 0, 'nothing acknowledged since the rollback is missing')
  t.ok(
    summary.reconnects >= generator.concurrency,
    `the connections the rollback closed under the paused generator were replaced (${summary.reconnects} reconnects)`
  )
  return { result, summary, vanishing, reused, atSnapshot, beforeRollback, final }
}
