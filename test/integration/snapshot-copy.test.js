// Snapshots with the copy driver on the lab's embedded server, under a
// running generator: snapshot, more load, rollback; the row count returns
// exactly to the snapshot's and the generator carries on. Refusals change
// nothing.
import t from 'tap'
import { mkdtemp, chmod, rm, readdir } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readEvents } from '../helpers/control.js'
import { runCli } from '../helpers/cli.js'
import {
  assertRefused,
  rollbackUnderLoad,
  snapshotCli,
  snapshotNames,
  startGenerator,
  stopServerOn
} from '../helpers/snapshot.js'
import { assertIdsFound } from '../helpers/summary.js'

// A private directory the postgres user can enter; the data directory and
// the snapshots kept beside it (pgdata.snapshots) live in it.
const root = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-copy-'))
await chmod(root, 0o755)
const dataDir = path.join(root, 'pgdata')
const events = path.join(root, 'events.ndjson')
t.teardown(async () => {
  await stopServerOn(dataDir)
  await rm(root, { recursive: true, force: true })
})

t.test('snapshot and rollback under a running generator', async t => {
  // Rows first, inserts only: a generator starting on an empty table reads
  // id 1 before it exists, and the not-found counts below must be the
  // rollback's alone.
  const seed = await runCli(
    [
      'run',
      '--data-dir',
      dataDir,
      '--profile',
      'default',
      '-p',
      '0',
      '-c',
      '2',
      '-d',
      '1',
      '--mix',
      'insert_row=1',
      '--events',
      events
    ],
    { t }
  )
  t.equal(seed.code, 0, `a first run creates the server and some rows; stderr: ${seed.stderr}`)
  const generator = await startGenerator(t, { dataDir, events })

  await t.test('before init: no driver, a clear refusal', async t => {
    assertRefused(t, await snapshotCli(dataDir, ['create', 's0']), {
      code: 2,
      problem: /no snapshot driver set up.*snapshot init/
    })
    assertRefused(t, await snapshotCli(dataDir, ['init', '--driver', 'lvm']), {
      code: 2,
      problem: /unknown snapshot driver "lvm"/
    })
    t.notOk(existsSync(`${dataDir}.snapshots`), 'nothing was created beside the data directory')
  })

  const init = await snapshotCli(dataDir, ['init', '--driver', 'copy'])
  t.equal(init.code, 0, `snapshot init --driver copy: exit 0; stderr: ${init.stderr}`)
  t.match(init.stderr, /copy driver/, 'the driver is named')
  t.same(await snapshotNames(t, dataDir), [], 'no snapshot yet')

  const outcome = await rollbackUnderLoad(t, { dataDir, generator, events })
  if (!outcome.summary) return
  // Ids are dense and nothing is deleted: beyond the frontier's few, a read
  // or update that finds no row aimed at a row the rollback removed.
  assertIdsFound(t, outcome.summary, 'none aimed at a row the rollback removed')

  const timeline = (await readEvents(events)).map(e => `${e.kind}:${e.action}`)
  t.same(
    timeline,
    [
      'point:pause',
      'start:snapshot_create',
      'end:snapshot_create',
      'point:resume',
      'point:pause',
      'start:rollback',
      'end:rollback',
      'point:resume',
      'point:pause'
    ],
    'each pause and resume, the snapshot and the rollback are on one timeline'
  )
})

t.test('after the run: the snapshot is kept, destroy --yes removes it', async t => {
  t.notOk(existsSync(`${dataDir}.before-rollback`), 'the data directory replaced by the rollback was removed')
  t.same(await snapshotNames(t, dataDir), ['s1'], 'snapshot list --json shows s1 with the server stopped')
  const listed = await snapshotCli(dataDir, ['list'])
  t.match(listed.stdout, /^s1\t\d{4}-\d\d-\d\dT/m, 'snapshot list prints name and creation time')
  assertRefused(t, await snapshotCli(dataDir, ['destroy', 's1']), { code: 2, problem: /--yes/ })
  t.same(await snapshotNames(t, dataDir), ['s1'], 'destroy without --yes kept it')
  const destroyed = await snapshotCli(dataDir, ['destroy', 's1', '--yes'])
  t.equal(destroyed.code, 0, `destroy s1 --yes: exit 0; stderr: ${destroyed.stderr}`)
  t.same(await snapshotNames(t, dataDir), [], 'gone from the list')
  t.same((await readdir(`${dataDir}.snapshots`)).sort(), ['config.json'], 'and from the disk')
  assertRefused(t, await snapshotCli(dataDir, ['rollback', 's1', '--yes']), {
    code: 2,
    problem: /no snapshot named "s1"/
  })
  t.notOk(existsSync(path.join(dataDir, 'postmaster.pid')), 'the refused rollback started no server')
})

t.test('a rollback with the server stopped leaves it stopped', async t => {
  // The server is down (the generator stopped the one it started): take a
  // snapshot, change nothing, roll back; the command starts the server to
  // check it comes up, then stops it again.
  t.equal((await snapshotCli(dataDir, ['create', 'cold'])).code, 0, 'snapshot create with the server stopped')
  const result = await snapshotCli(dataDir, ['rollback', 'cold', '--yes'])
  t.equal(result.code, 0, `rollback: exit 0; stderr: ${result.stderr}`)
  t.notOk(existsSync(path.join(dataDir, 'postmaster.pid')), 'no server left running')
  t.ok(existsSync(path.join(dataDir, 'PG_VERSION')), 'the data directory is there')
})
