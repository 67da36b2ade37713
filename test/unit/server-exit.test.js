// What a data directory says about how its server stopped (the last PANIC
// or FATAL of its log after a mark, its WAL segments' size), where its
// pg_wal really is, and which failed writes the audit must look for.
import t from 'tap'
import { appendFile, mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { exitCause, lastServerFailure, serverLogSize, walSegmentBytes } from '../../lib/embedded/server-exit.js'
import { LOG_FILE } from '../../lib/embedded/server.js'
import { filesystemOf } from '../../lib/lab/disk-space.js'
import { ServerError, ConnectionLostError, leavesOutcomeUnknown } from '../../lib/wire/errors.js'

/** @param {import('tap').Test} t */
async function scratch(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-server-exit-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** @param {number} pid @param {string} severity @param {string} message */
const line = (pid, severity, message) => `2026-11-27 14:33:54.368 UTC [${pid}] ${severity}:  ${message}\n`

t.test('the cause is the last PANIC or FATAL about the server written after the mark', async t => {
  const dataDir = await scratch(t)
  const log = path.join(dataDir, LOG_FILE)
  await writeFile(log, line(1, 'FATAL', 'could not open file "global/pg_filenode.map": an earlier run'))
  const mark = await serverLogSize(dataDir)
  t.equal(await exitCause(dataDir, mark), null, 'nothing after the mark: no cause')
  const panic = 'could not write to file "pg_wal/xlogtemp.12878": Disk quota exceeded'
  const recovery = 'could not write to file "pg_wal/xlogtemp.12889": Disk quota exceeded'
  await appendFile(
    log,
    line(12878, 'PANIC', panic) +
      line(12878, 'STATEMENT', 'INSERT INTO test_table (c1) VALUES ($1)') +
      line(12850, 'LOG', 'client backend (PID 12878) was terminated by signal 6: Aborted') +
      line(12889, 'FATAL', recovery) +
      line(12901, 'FATAL', 'the database system is in recovery mode') +
      line(12902, 'FATAL', 'the database system is shutting down') +
      line(12850, 'LOG', 'database system is shut down')
  )
  t.equal(await exitCause(dataDir, mark), `FATAL:  ${recovery}`, "the recovery's failure, not the clients turned away")
  t.equal(
    lastServerFailure(
      line(12878, 'PANIC', panic) + line(3, 'FATAL', 'terminating connection due to administrator command')
    ),
    `PANIC:  ${panic}`,
    'a connection cut by the stop says nothing of why'
  )
  t.equal(await exitCause(dataDir, 10 ** 9), null, 'a log shorter than the mark is another log: no cause')
  t.equal(await exitCause(path.join(dataDir, 'none'), 0), null, 'no log: no cause')
})

t.test("a WAL segment's size is read from a segment file of pg_wal", async t => {
  const dataDir = await scratch(t)
  t.equal(await walSegmentBytes(dataDir), 16 * 1024 * 1024, 'no pg_wal: the default, 16 MiB')
  await mkdir(path.join(dataDir, 'pg_wal', 'archive_status'), { recursive: true })
  const segment = path.join(dataDir, 'pg_wal', '000000010000000000000003')
  await writeFile(segment, '')
  await truncate(segment, 64 * 1024 * 1024)
  t.equal(await walSegmentBytes(dataDir), 64 * 1024 * 1024, 'initdb --wal-segsize 64: 64 MiB')
})

t.test('pg_wal through a symlink: its real place and the mount point of its filesystem', async t => {
  const dir = await scratch(t)
  await mkdir(path.join(dir, 'elsewhere'))
  await symlink(path.join(dir, 'elsewhere'), path.join(dir, 'pg_wal'))
  const { directory, mountPoint } = await filesystemOf(path.join(dir, 'pg_wal'))
  t.equal(directory, path.join(dir, 'elsewhere'), 'the symlink followed')
  t.ok(mountPoint !== null && directory.startsWith(mountPoint), `on the filesystem mounted at ${mountPoint}`)
  t.equal((await filesystemOf('/proc/self')).mountPoint, '/proc', '/proc is a mount of its own')
})

t.test('a PANIC, like a broken connection, leaves a write in doubt; another server error does not', async t => {
  const fields = { C: 'XX000', M: 'could not write to file "pg_wal/xlogtemp.1": Disk quota exceeded' }
  t.equal(leavesOutcomeUnknown(new ServerError({ ...fields, S: 'PANIC', V: 'PANIC' })), true, 'PANIC: in doubt')
  t.equal(leavesOutcomeUnknown(new ServerError({ ...fields, S: 'ERROR', V: 'ERROR' })), false, 'ERROR: not written')
  t.equal(leavesOutcomeUnknown(new ConnectionLostError('connection closed')), true, 'connection lost: in doubt')
})
