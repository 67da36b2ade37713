// A full disk under load (issue 12), on a real ZFS dataset with a quota
// (Debian's zfs-fuse; a pool on a file, created here and destroyed at the
// end): the embedded server's data directory fills while manta runs; the
// generator keeps running and counts the failures by type and message,
// /metrics shows the free space going to zero, a disk_full event starts;
// when the quota is raised, writes come back without a restart, the event
// ends, and no acknowledged row is lost.
//
// pg_wal is on a dataset of its own, as a careful operator keeps it: with
// WAL on the full dataset PostgreSQL PANICs when it cannot write WAL, and
// its crash recovery, which must write WAL too, fails, so the postmaster
// shuts down and no quota raise brings it back (see docs/snapshots.md,
// "Watching the disk fill").
import t from 'tap'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { open, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { CliRun, waitFor, sleep } from '../helpers/cli.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { readEvents } from '../helpers/control.js'
import { assertConsistent, REQUEST_TYPES } from '../helpers/summary.js'
import { stopServerOn } from '../helpers/snapshot.js'
import { ensureZfs, filePool, zfs } from '../helpers/zfs.js'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { NEARLY_FULL_BYTES } from '../../lib/lab/disk-space.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'

const exec = promisify(execFile)
const POOL = `pgldf${process.pid}`
const DATA = `${POOL}/data`
const POOL_BYTES = 512 * 1024 * 1024
// room left on the data dataset when the quota is put on under load
const HEADROOM = 8 * 1024 * 1024
// of it, what the load must write to fill the dataset
const LOAD_FILL = 1024 * 1024
const CONCURRENCY = 8
const DISK_FULL_MESSAGE =
  /^could not extend file "\?"(?: with \w+\(\))?: (?:Disk quota exceeded|No space left on device)$/

const problem = await ensureZfs()
if (problem) t.fail(problem)
else await onPool()

async function onPool() {
  // One private directory the postgres user can enter: the pool's file, the
  // mount points, and the events and record outside the datasets (a full
  // dataset must not take the lab's own files with it).
  /** @type {string} */
  let dataDir = ''
  const made = await filePool(t, {
    prefix: 'pgloadgen-diskfull-',
    pool: POOL,
    bytes: POOL_BYTES,
    datasets: [
      { name: 'data', mount: 'data' },
      { name: 'wal', mount: 'wal' }
    ],
    // the server first: it holds files on the datasets
    beforeDestroy: () => stopServerOn(dataDir)
  })
  if (!made) return
  const { root, mounts } = made
  const dataMount = mounts.data
  const walMount = mounts.wal
  dataDir = path.join(dataMount, 'pgdata')
  const events = path.join(root, 'events.ndjson')
  const recordDir = path.join(root, 'record')

  // The data directory made, then its pg_wal moved to the WAL dataset and
  // linked back, as an operator moves it (initdb --waldir does the same).
  const server = new EmbeddedServer({
    dataDir,
    profileFile: resolveProfile('default'),
    log: createLogger({ level: 'silent' })
  })
  await server.start()
  await server.shutdown()
  await exec('mv', [path.join(dataDir, 'pg_wal'), path.join(walMount, 'pg_wal')])
  await symlink(path.join(walMount, 'pg_wal'), path.join(dataDir, 'pg_wal'))

  t.test('a full disk under load, and its recovery', async t => scenario(t, { dataDir, events, recordDir }))
}

/**
 * @param {import('tap').Test} t
 * @param {{ dataDir: string, events: string, recordDir: string }} where
 */
async function scenario(t, { dataDir, events, recordDir }) {
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
      String(CONCURRENCY),
      '--json',
      '--events',
      events,
      '--record',
      recordDir,
      '--stats-interval',
      '1'
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl(60000)
  const metrics = async () => (await scrape(metricsUrl)).families
  /** @param {Map<string, any>} families @param {string} name */
  const total = (families, name) =>
    REQUEST_TYPES.reduce((n, type) => n + (sampleValue(families, name, { type }) ?? 0), 0)
  /** rows the inserts wrote and the server acknowledged, from /metrics */
  const written = async () => sampleValue(await metrics(), 'pgloadgen_rows_written_total', { type: 'insert_row' }) ?? 0
  await waitFor(async () => sampleValue(await metrics(), 'pgloadgen_nconns') === CONCURRENCY, {
    what: `${CONCURRENCY} connections`,
    timeoutMs: 60000
  })
  await waitFor(async () => (await written()) >= 500, { what: 'some rows written', timeoutMs: 30000 })

  await t.test('the free space of the data directory and of pg_wal is on /metrics', async t => {
    const families = await metrics()
    for (const directory of ['data', 'pg_wal']) {
      const free = sampleValue(families, 'pg_data_directory_free_bytes', { directory })
      const size = sampleValue(families, 'pg_data_directory_size_bytes', { directory })
      t.ok(
        typeof free === 'number' && typeof size === 'number' && free > 0 && free <= size,
        `${directory}: ${free} bytes free of ${size}`
      )
    }
    t.equal(sampleValue(families, 'pgloadgen_disk_full'), 0, 'pgloadgen_disk_full is 0')
  })

  // The quota, put on under load: the data dataset has HEADROOM left.
  // ZFS reports what is used as of its last transaction group, so the load
  // may have written past used + HEADROOM already: then read it again.
  let quota = 0
  for (let attempt = 1; quota === 0; attempt++) {
    const used = Number((await zfs('zfs', ['get', '-H', '-p', '-o', 'value', 'used', DATA])).trim())
    try {
      await zfs('zfs', ['set', `quota=${used + HEADROOM}`, DATA])
      quota = used + HEADROOM
    } catch (err) {
      if (attempt === 5 || !/less than current used/.test(String(/** @type {any} */ (err).stderr))) throw err
      await sleep(500)
    }
  }
  // The load fills the last LOAD_FILL bytes; a file of the dataset (another
  // writer on the same disk) takes the rest at once, so that the disk fills
  // in seconds however slowly a loaded machine lets the load write.
  await fill(path.join(path.dirname(dataDir), 'filler'), HEADROOM - LOAD_FILL)
  const quotaSetAt = Date.now()
  /** @type {string | undefined} what started the episode, as its event says */
  let startCause

  await t.test('the dataset fills: failures counted, the event starts, the load goes on', async t => {
    await waitFor(
      async () => {
        const size = sampleValue(await metrics(), 'pg_data_directory_size_bytes', { directory: 'data' }) ?? 0
        return Math.abs(size - quota) <= 1024 * 1024
      },
      {
        what: `statfs to show the quota (${quota} bytes) as the size of the data directory's filesystem`,
        timeoutMs: 10000
      }
    )
    await waitFor(async () => sampleValue(await metrics(), 'pgloadgen_disk_full') === 1, {
      what: 'pgloadgen_disk_full to turn 1',
      timeoutMs: 45000
    })
    t.comment(`full ${((Date.now() - quotaSetAt) / 1000).toFixed(1)} s after the quota was set`)
    // Full under load: the failures pile up, the generator stays. The poll
    // of the free space can see it run out before a write fails (the last
    // free bytes still hold rows in pages the table has), so the test waits
    // for the first failure rather than for a time that assumes a speed.
    const insertFailures = async () =>
      sampleValue(await metrics(), 'pgloadgen_disk_full_failures_total', { type: 'insert_row' }) ?? 0
    await waitFor(async () => (await insertFailures()) > 0, {
      what: 'an insert to fail for want of space',
      timeoutMs: 45000
    }).catch(() => {})
    const families = await metrics()
    const failures = sampleValue(families, 'pgloadgen_disk_full_failures_total', { type: 'insert_row' }) ?? 0
    t.ok(failures > 0, `pgloadgen_disk_full_failures_total{type="insert_row"}: ${failures}`)
    const free = sampleValue(families, 'pg_data_directory_free_bytes', { directory: 'data' }) ?? Infinity
    t.ok(free < 1024 * 1024, `the data directory has next to no space left: ${free} bytes`)
    t.ok(
      (sampleValue(families, 'pg_data_directory_free_bytes', { directory: 'pg_wal' }) ?? 0) > 64 * 1024 * 1024,
      'pg_wal, on its own dataset, has room'
    )
    t.ok(total(families, 'pgloadgen_nqueries_failed') >= failures, 'the disk-full failures are failed requests')
    const messages = (families.get('pgloadgen_error_messages')?.samples ?? []).map(s => s.labels.errorMessage)
    t.ok(
      messages.some(m => DISK_FULL_MESSAGE.test(m)),
      `the message is counted: ${JSON.stringify(messages)}`
    )
    t.ok(run.running, 'the generator is still running')
    t.equal(
      sampleValue(families, 'pgloadgen_nconns'),
      CONCURRENCY,
      'with all its connections: the server did not crash'
    )
    const started = (await readEvents(events)).filter(e => e.action === 'disk_full')
    t.same(
      started.map(e => e.kind),
      ['start'],
      'one disk_full start event'
    )
    // Whichever the generator saw first starts it: a write failing for want
    // of space, or the once-a-second poll finding the free space under
    // NEARLY_FULL_BYTES; which one wins is a race of the two.
    const detail = started[0]?.detail
    startCause = detail?.cause
    if (detail?.cause === 'failures') t.ok(detail.failures > 0, `started by the failures (${detail.failures})`)
    else
      t.ok(
        detail?.cause === 'free_space' && detail.data_free_bytes < NEARLY_FULL_BYTES,
        `started by the free space running out (${detail?.cause}, ${detail?.data_free_bytes} bytes free)`
      )
    t.ok(detail?.data_free_bytes < HEADROOM, `with the free space then: ${detail?.data_free_bytes}`)
  })

  await t.test('the quota is raised: writes come back without a restart, the event ends', async t => {
    const failuresBefore = total(await metrics(), 'pgloadgen_disk_full_failures_total')
    await zfs('zfs', ['set', 'quota=none', DATA])
    const raisedAt = Date.now()
    await waitFor(async () => sampleValue(await metrics(), 'pgloadgen_disk_full') === 0, {
      what: 'pgloadgen_disk_full to turn 0',
      timeoutMs: 30000
    })
    t.comment(`writes back ${((Date.now() - raisedAt) / 1000).toFixed(1)} s after the quota was raised`)
    const rows = await written()
    const failuresAtEnd = total(await metrics(), 'pgloadgen_disk_full_failures_total')
    await waitFor(async () => (await written()) >= rows + 1000, { what: '1000 more rows written', timeoutMs: 30000 })
    const families = await metrics()
    t.equal(
      total(families, 'pgloadgen_disk_full_failures_total'),
      failuresAtEnd,
      `no disk-full failure since the event ended (${failuresAtEnd}, ${failuresAtEnd - failuresBefore} of them ` +
        `while the quota was being raised)`
    )
    t.ok(
      (sampleValue(families, 'pg_data_directory_free_bytes', { directory: 'data' }) ?? 0) > HEADROOM,
      'the free space is back'
    )
    const episode = (await readEvents(events)).filter(e => e.action === 'disk_full')
    t.same(
      episode.map(e => e.kind),
      ['start', 'end'],
      'the disk_full event ended'
    )
    const end = episode[1]
    t.equal(end?.ok, true, 'ended well: writes succeed again')
    t.ok(end?.duration_s > 0, `full for ${end?.duration_s} s`)
    t.equal(end?.detail?.failures, failuresAtEnd, 'the end counts the failures of the episode')
  })

  run.kill('SIGTERM')
  const result = await run.exited
  t.equal(result.code, 0, `the generator exits 0 at SIGTERM; stderr: ${result.stderr.slice(-3000)}`)
  const saysWhy = startCause === 'failures' ? '\\d+ requests? failed for want of disk space' : 'the free space ran out'
  t.match(
    result.stderr,
    new RegExp(
      `pgloadgen warn \\[PGLG_W_DISK_FULL\\]: disk full: ${saysWhy} \\(data directory: .*\\); the load goes on`
    ),
    'the log says the disk is full, and why'
  )
  t.match(result.stderr, /pgloadgen info: disk full no more: writes succeed again/, 'and when it is no more')
  const summary = result.summary
  if (!t.ok(summary, 'a JSON summary')) return
  assertConsistent(t, summary, { concurrency: CONCURRENCY })
  const diskFull = summary.disk_full
  t.ok(diskFull.failures > 0, `disk_full.failures: ${diskFull.failures}`)
  t.equal(
    Object.values(diskFull.by_type).reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0),
    diskFull.failures,
    'by_type adds up to the failures'
  )
  t.ok(diskFull.by_type.insert_row > 0, `insert_row failed for want of space ${diskFull.by_type.insert_row} times`)
  for (const type of REQUEST_TYPES)
    t.ok(
      summary.requests[type].failed >= diskFull.by_type[type],
      `${type}: its disk-full failures are among its failures`
    )
  t.equal(diskFull.by_type.read_row, 0, 'reads never failed for want of space')
  t.equal(summary.unexpected_failures, diskFull.failures, 'the unexpected failures are the disk-full ones')
  const messages = Object.keys(summary.errors).filter(m => !/pgloadgen_injected_error/.test(m))
  t.ok(
    messages.some(m => DISK_FULL_MESSAGE.test(m)),
    `counted by message: ${JSON.stringify(summary.errors)}`
  )
  t.equal(diskFull.episodes, 1, 'one episode')
  t.equal(diskFull.full_now, false, 'not full at the end')
  t.equal(diskFull.data_directory, dataDir, 'the data directory watched')
  t.ok(diskFull.min_free_bytes.data < 1024 * 1024, `the lowest free space seen: ${diskFull.min_free_bytes.data}`)
  t.ok(diskFull.free_bytes.data > HEADROOM, `free at the end: ${diskFull.free_bytes.data}`)
  t.equal(summary.reconnects, 0, 'no connection was lost: the server never crashed')
  t.ok(summary.acknowledged_inserts > 0, `inserts acknowledged: ${summary.acknowledged_inserts}`)
  t.equal(summary.acknowledged_missing, 0, 'nothing acknowledged is missing')

  await t.test('the recorded samples follow the free space and the disk-full state', async t => {
    const { readFile } = await import('node:fs/promises')
    const samples = (await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map(line => JSON.parse(line))
    t.ok(
      samples.every(s => s.disk && typeof s.disk.data_free_bytes === 'number'),
      'every sample has the free space'
    )
    t.ok(
      samples.some(s => s.disk.full === true && s.disk.data_free_bytes < 1024 * 1024),
      'some are full, with no space left'
    )
    t.equal(samples.at(-1)?.disk.full, false, 'the last is not')
    t.same(
      (await readEvents(events)).filter(e => e.action === 'disk_full').map(e => e.kind),
      ['start', 'end'],
      'the events file holds the episode'
    )
  })
}

/**
 * Writes bytes of random data (ZFS compression gains nothing on it) to
 * file, synced; stops early, without an error, when the dataset is full.
 * @param {string} file
 * @param {number} bytes
 */
async function fill(file, bytes) {
  const chunk = randomBytes(256 * 1024)
  const handle = await open(file, 'w')
  try {
    for (let written = 0; written < bytes; written += chunk.length)
      await handle.write(chunk, 0, Math.min(chunk.length, bytes - written))
    await handle.sync()
  } catch (err) {
    // libuv has no name for EDQUOT: its errno is all there is
    const { errno } = /** @type {NodeJS.ErrnoException} */ (err)
    if (![os.constants.errno.EDQUOT, os.constants.errno.ENOSPC].includes(-(errno ?? 0))) throw err
  } finally {
    await handle.close().catch(() => {})
  }
}
