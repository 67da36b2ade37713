// pg_wal full under load, on a real ZFS dataset with a quota (zfs-fuse; a
// pool on a file, created here and destroyed at the end): the embedded
// server's pg_wal is on a dataset of its own, a writer beside the run fills
// it until a backend PANICs, crash recovery fails for want of WAL space and
// the postmaster shuts down. The run says why and what to free, records a
// server_down event, leaves the server down while pg_wal has no room, and
// starts it again (crash recovery) once the quota is raised; the generator
// reconnects, and at the end the audit is exact: nothing acknowledged is
// missing or vanished, and the table holds exactly the acknowledged rows
// and the in-doubt ones the audit found stored.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { CliRun, sleep, waitFor } from '../helpers/cli.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { readEvents } from '../helpers/control.js'
import { embeddedUrl, stopServerOn } from '../helpers/snapshot.js'
import { ensureZfs, filePool, zfs } from '../helpers/zfs.js'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { stoppedCleanly } from '../../lib/embedded/server-exit.js'
import { MIN_WAL_ROOM_BYTES } from '../../lib/lab/server-watch.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'

const exec = promisify(execFile)
const POOL = `pglgwal${process.pid}`
const WAL = `${POOL}/wal`
const POOL_BYTES = 512 * 1024 * 1024
// room left on the WAL dataset: less than a segment, so the next one cannot be made
const HEADROOM = 4 * 1024 * 1024
const CONCURRENCY = 4
const FIXTURE = new URL('../fixtures/workloads/manta-ack-log.js', import.meta.url).pathname
const WAL_WRITE_FAILED = /could not write to file "pg_wal\/xlogtemp\.\d+": Disk quota exceeded/

const problem = await ensureZfs()
if (problem) t.fail(problem)
else await onPool()

async function onPool() {
  /** @type {string} */
  let dataDir = ''
  const made = await filePool(t, {
    prefix: 'pgloadgen-walfull-',
    pool: POOL,
    bytes: POOL_BYTES,
    datasets: [
      { name: 'data', mount: 'data' },
      { name: 'wal', mount: 'wal' }
    ],
    beforeDestroy: () => stopServerOn(dataDir)
  })
  if (!made) return
  const { root, mounts } = made
  dataDir = path.join(mounts.data, 'pgdata')
  // The data directory made, its pg_wal moved to the WAL dataset and linked back.
  const server = new EmbeddedServer({
    dataDir,
    profileFile: resolveProfile('default'),
    log: createLogger({ level: 'silent' })
  })
  await server.start()
  await server.shutdown()
  await exec('mv', [path.join(dataDir, 'pg_wal'), path.join(mounts.wal, 'pg_wal')])
  await symlink(path.join(mounts.wal, 'pg_wal'), path.join(dataDir, 'pg_wal'))
  const where = { dataDir, walMount: mounts.wal, events: path.join(root, 'events.ndjson'), server }
  t.test('pg_wal fills, the server stops, and is started again when space returns', async t => scenario(t, where))
  t.test('pg_wal fills for good: the run ends with the server down, and says what to free', async t =>
    staysFull(t, where)
  )
}

/**
 * The run, on the embedded server of dataDir, with the fixture that writes
 * down each acknowledged insert.
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, events: string }} where
 * @param {string} ackLog
 */
function startRun(t, { dataDir, events }, ackLog) {
  return new CliRun(
    [
      'run',
      '--data-dir',
      dataDir,
      '--profile',
      'default',
      '-w',
      FIXTURE,
      '-c',
      String(CONCURRENCY),
      '-p',
      '0',
      '--json',
      '--events',
      events,
      // the pool's metaslabs are not what this test is about
      '--zfs-interval',
      '0'
    ],
    { t, env: { PGLOADGEN_TEST_ACK_LOG: ackLog } }
  )
}

/**
 * The server_down events of the events file.
 * @param {string} events
 */
async function serverDownEvents(events) {
  return (await readEvents(events)).filter(e => e.action === 'server_down')
}

/**
 * Rows of the run written and acknowledged, from /metrics.
 * @param {string} metricsUrl
 */
async function rowsWritten(metricsUrl) {
  return sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_rows_written_total', { type: 'insert_row' }) ?? 0
}

/**
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, walMount: string, events: string, server: EmbeddedServer }} where
 */
async function scenario(t, { dataDir, walMount, events, server }) {
  const ackDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-acklog-'))
  t.teardown(() => rm(ackDir, { recursive: true, force: true }))
  const ackLog = path.join(ackDir, 'acknowledged.ndjson')
  const run = startRun(t, { dataDir, events }, ackLog)
  const metricsUrl = await run.metricsUrl(90000)
  const metrics = async () => (await scrape(metricsUrl)).families
  const written = () => rowsWritten(metricsUrl)
  await waitFor(async () => (await written()) >= 300, { what: 'some rows written', timeoutMs: 60000 })
  const serverDown = () => serverDownEvents(events)

  await t.test('pg_wal fills: a backend PANICs, crash recovery fails, the postmaster stops', async t => {
    await setQuota(WAL, HEADROOM)
    const got = await fillWal(await embeddedUrl(dataDir))
    t.ok(got.length > 0, `the writer beside the run was dropped: ${got.join('; ')}`)
    await waitFor(async () => (await serverDown()).length > 0, { what: 'a server_down event', timeoutMs: 60000 })
    const [start] = await serverDown()
    t.equal(start.kind, 'start', 'the event starts')
    t.match(start.detail.cause, WAL_WRITE_FAILED, `its cause from the server log: ${start.detail.cause}`)
    t.equal(start.detail.mount_point, walMount, "pg_wal's filesystem: the WAL dataset")
    t.equal(start.detail.pg_wal, path.join(walMount, 'pg_wal'), 'pg_wal where it really is')
    t.ok(start.detail.wal_needed_bytes >= MIN_WAL_ROOM_BYTES, `room wanted: ${start.detail.wal_needed_bytes} bytes`)
    t.ok(
      start.detail.wal_free_bytes < start.detail.wal_needed_bytes,
      `less than that free: ${start.detail.wal_free_bytes} bytes`
    )
    const said = await run.waitForStderr(
      /pgloadgen warn \[PGLG_W_SERVER_STOPPED\]: embedded PostgreSQL stopped: .*/,
      10000
    )
    t.match(said[0], WAL_WRITE_FAILED, 'the log line names the cause')
    t.match(
      said[0],
      `pg_wal is ${path.join(walMount, 'pg_wal')}, on the filesystem mounted at ${walMount}, `,
      'and the filesystem to free'
    )
    t.match(said[0], /free at least 64\.0 MiB there .*the lab starts it again once they are free$/, 'and how much')
    t.equal(await server.runningPort(), null, 'the server is down')
    t.equal(await stoppedCleanly(dataDir), false, 'pg_control: it did not shut down cleanly')
    t.ok(run.running, 'the generator runs on')
  })

  await t.test('the quota is raised: the server is started again, the load comes back', async t => {
    t.same(
      (await serverDown()).map(e => e.kind),
      ['start'],
      'not started again while pg_wal had no room'
    )
    await zfs('zfs', ['set', 'quota=none', WAL])
    const raisedAt = Date.now()
    await waitFor(async () => (await serverDown()).length === 2, { what: 'the server started again', timeoutMs: 60000 })
    const backS = (Date.now() - raisedAt) / 1000
    t.comment(`started again ${backS.toFixed(1)} s after the quota was raised`)
    const end = (await serverDown())[1]
    t.equal(end.kind, 'end', 'the event ends')
    t.equal(end.ok, true, 'well: the server runs')
    t.equal(end.detail.restarts, 1, 'one start')
    t.ok(end.detail.wal_free_bytes >= MIN_WAL_ROOM_BYTES, `pg_wal has room: ${end.detail.wal_free_bytes} bytes`)
    await run.waitForStderr(/pgloadgen info: embedded PostgreSQL started again after [\d.]+ s/, 10000)
    await waitFor(async () => sampleValue(await metrics(), 'pgloadgen_nconns') === CONCURRENCY, {
      what: `${CONCURRENCY} connections again`,
      timeoutMs: 60000
    })
    const rows = await written()
    await waitFor(async () => (await written()) >= rows + 300, { what: '300 more rows written', timeoutMs: 60000 })
  })

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `the run exits 0 at SIGTERM; stderr: ${result.stderr.slice(-3000)}`)
  const summary = result.summary
  if (!t.ok(summary, 'a JSON summary')) return
  t.equal(summary.server_restarts, 1, 'server_restarts: 1')
  t.ok(summary.reconnects >= CONCURRENCY, `the connections were replaced (${summary.reconnects} reconnects)`)
  t.equal(summary.acknowledged_missing, 0, 'acknowledged_missing: 0')
  t.equal(summary.acknowledged_vanished, 0, 'acknowledged_vanished: 0')
  const acknowledged = (await readFile(ackLog, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
  t.equal(summary.acknowledged_inserts, acknowledged.length, `every acknowledgement counted (${acknowledged.length})`)
  // the run stopped the server it owns: started here to read the table
  const url = await server.start()
  const stored = await readTable(url)
  const present = acknowledged.filter(([id, fp]) => stored.get(id) === fp).length
  t.equal(present, acknowledged.length, 'every acknowledged row is in the table as written')
  t.ok(
    summary.inserts_in_doubt_stored !== null && summary.inserts_in_doubt_stored <= summary.inserts_in_doubt,
    `in doubt: ${summary.inserts_in_doubt} inserts, ${summary.inserts_in_doubt_stored} of them stored`
  )
  t.equal(
    stored.size - summary.acknowledged_inserts - summary.inserts_in_doubt_stored,
    0,
    `no row unaccounted for: ${stored.size} rows = ${summary.acknowledged_inserts} acknowledged + ` +
      `${summary.inserts_in_doubt_stored} in doubt and stored`
  )
  await server.shutdown()
}

/**
 * Puts a quota of what the dataset uses plus `headroom`. ZFS reports what is
 * used as of its last transaction group, so a quota below what was written
 * since is refused: then used is read again.
 * @param {string} dataset
 * @param {number} headroom
 */
async function setQuota(dataset, headroom) {
  await waitFor(
    async () => {
      const used = Number((await zfs('zfs', ['get', '-H', '-p', '-o', 'value', 'used', dataset])).trim())
      try {
        await zfs('zfs', ['set', `quota=${used + headroom}`, dataset])
        return true
      } catch (err) {
        if (!/less than current used/.test(String(/** @type {any} */ (err).stderr))) throw err
        return false
      }
    },
    { what: `a quota on ${dataset}`, timeoutMs: 30000, intervalMs: 500 }
  )
}

/**
 * Writes WAL beside the run, in a table of its own, until the server drops
 * the writer: a backend that cannot make a WAL segment PANICs and takes
 * every connection with it. An ERROR for want of space (a segment made
 * outside a critical section) leaves the server up: the writer goes on.
 * @param {string} url
 * @returns {Promise<string[]>} what the writer got, in order
 */
async function fillWal(url) {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  /** @type {string[]} */
  const got = []
  const deadline = Date.now() + 60000
  try {
    await client.query('CREATE TABLE IF NOT EXISTS wal_filler (n bigint, pad text)')
    while (Date.now() < deadline) {
      try {
        await client.query("INSERT INTO wal_filler SELECT g, repeat('x', 200) FROM generate_series(1, 20000) AS g")
      } catch (err) {
        got.push(/** @type {Error} */ (err).message)
        if (/** @type {{ severity?: string }} */ (err).severity !== 'ERROR') return got
      }
      await sleep(0)
    }
    throw new Error(`pg_wal did not fill within 60 s: ${got.join('; ')}`)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * The manta rows as the fixture fingerprints them, by id.
 * @param {string} url
 * @returns {Promise<Map<number, number>>}
 */
async function readTable(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query("SELECT id, ('x' || left(c1, 4))::bit(16)::int AS fp FROM test_table")
    return new Map(rows.map(row => [Number(row.id), Number(row.fp)]))
  } finally {
    await client.end()
  }
}

/**
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, walMount: string, events: string, server: EmbeddedServer }} where
 */
async function staysFull(t, { dataDir, walMount, events, server }) {
  const ackDir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-acklog-'))
  t.teardown(() => rm(ackDir, { recursive: true, force: true }))
  const before = (await serverDownEvents(events)).length
  const run = startRun(t, { dataDir, events }, path.join(ackDir, 'acknowledged.ndjson'))
  const began = Date.now()
  const at = () => `${((Date.now() - began) / 1000).toFixed(1)} s`
  const metricsUrl = await run.metricsUrl(90000)
  await waitFor(async () => (await rowsWritten(metricsUrl)) >= 100, { what: 'some rows written', timeoutMs: 60000 })
  t.comment(`loading at ${at()}`)
  await setQuota(WAL, HEADROOM)
  t.comment(`the writer beside the run got: ${(await fillWal(await embeddedUrl(dataDir))).join('; ')} (${at()})`)
  await waitFor(async () => (await serverDownEvents(events)).length > before, {
    what: 'a server_down event',
    timeoutMs: 60000
  })
  t.comment(`server_down at ${at()}`)
  run.kill('SIGTERM')
  const result = await run.exited
  t.comment(`the run ended at ${at()}`)
  t.equal(result.code, 0, 'the run exits 0, as when a server at a URL is lost')
  const said =
    /pgloadgen warn \[PGLG_W_SERVER_STOPPED\]: the run ends with the embedded PostgreSQL stopped for [\d.]+ s: (.*)/.exec(
      result.stderr
    )
  t.ok(said, `the end says the server is down: ${said?.[0]}`)
  t.match(said?.[1], WAL_WRITE_FAILED, 'the cause')
  t.match(
    said?.[1],
    `pg_wal is ${path.join(walMount, 'pg_wal')}, on the filesystem mounted at ${walMount}, `,
    'the filesystem to free'
  )
  t.match(
    said?.[1],
    /free at least 64\.0 MiB there for its crash recovery; the rows cannot be checked, and a later pgloadgen run on .* starts it/,
    'and how much'
  )
  const [start, end] = (await serverDownEvents(events)).slice(before)
  t.equal(start?.kind, 'start', 'the server_down event starts')
  t.same([end?.kind, end?.ok], ['end', false], 'and ends unresolved with the run')
  t.equal(end?.error, said?.[0].replace('pgloadgen warn [PGLG_W_SERVER_STOPPED]: ', ''), 'its error is the message')
  t.equal(result.summary?.server_restarts, 0, 'server_restarts: 0')
  t.equal(result.summary?.acknowledged_missing, null, 'the audit could not run: acknowledged_missing is null')
  t.equal(await server.runningPort(), null, 'the server is still down')
  await zfs('zfs', ['set', 'quota=none', WAL])
}
