// Snapshots with the zfs driver on a real ZFS pool (Debian's zfs-fuse; a pool
// on a file, created here and destroyed at the end): the driver refuses a
// dataset that is not marked as the lab's; once marked, snapshot, more load
// and rollback under a running generator bring the row count back exactly
// to the snapshot's, and the generator carries on.
import t from 'tap'
import path from 'node:path'
import { ensureZfs, filePool, zfs } from '../helpers/zfs.js'
import {
  assertRefused,
  rollbackUnderLoad,
  snapshotCli,
  snapshotNames,
  startGenerator,
  stopServerOn,
  tableState
} from '../helpers/snapshot.js'

const POOL = `pgl${process.pid}`
const DATASET = `${POOL}/lab`
const POOL_BYTES = 512 * 1024 * 1024

/** The snapshots on the test's pool, as ZFS lists them. */
async function poolSnapshots() {
  return (await zfs('zfs', ['list', '-H', '-o', 'name', '-t', 'snapshot', '-r', POOL])).split('\n').filter(Boolean)
}

const problem = await ensureZfs()
if (problem) t.fail(problem)
else await onPool()

async function onPool() {
  // Everything in one private directory the postgres user can enter: the
  // file holding the pool, the pool's and the dataset's mount points.
  // Torn down in order: the server first (it holds files on the dataset),
  // then the pool, then the file.
  /** @type {string} */
  let dataDir = ''
  const made = await filePool(t, {
    prefix: 'pgloadgen-zfs-',
    pool: POOL,
    bytes: POOL_BYTES,
    datasets: [{ name: 'lab', mount: 'lab' }],
    beforeDestroy: () => stopServerOn(dataDir)
  })
  if (!made) return
  const { root, mounts } = made
  const labMount = mounts.lab
  dataDir = path.join(labMount, 'pgdata')
  const events = path.join(root, 'events.ndjson')

  t.test('snapshots of a data directory on a ZFS dataset, under a running generator', async t => {
    const generator = await startGenerator(t, { dataDir, events })

    await t.test("a dataset not marked as the lab's is refused", async t => {
      const unmarked = {
        code: 1,
        problem: new RegExp(`refusing to touch ZFS dataset ${DATASET}: it is not marked as the lab's`)
      }
      const rows = await tableState(dataDir)
      assertRefused(t, await snapshotCli(dataDir, ['create', 's0', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['list', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['rollback', 's0', '--yes', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['destroy', 's0', '--yes', '--driver', 'zfs']), unmarked)
      t.same(await poolSnapshots(), [], 'zfs list -t snapshot: none taken')
      t.equal(
        (await zfs('zfs', ['get', '-H', '-o', 'value', 'pgloadgen:lab', DATASET])).trim(),
        '-',
        'the dataset is still unmarked'
      )
      t.ok((await tableState(dataDir)).count >= rows.count, 'the server was not stopped or rolled back')
    })

    const init = await snapshotCli(dataDir, ['init', '--driver', 'zfs'])
    t.equal(init.code, 0, `snapshot init --driver zfs: exit 0; stderr: ${init.stderr}`)
    t.match(init.stderr, `zfs driver on dataset ${DATASET}`, 'the dataset is found from the data directory')
    t.equal(
      (await zfs('zfs', ['get', '-H', '-o', 'value', 'pgloadgen:lab', DATASET])).trim(),
      'on',
      'zfs get pgloadgen:lab: on'
    )
    t.same(await snapshotNames(t, dataDir), [], 'no snapshot yet')

    await t.test('another dataset given with --dataset, not marked: refused', async t => {
      assertRefused(t, await snapshotCli(dataDir, ['create', 's0', '--driver', 'zfs', '--dataset', POOL]), {
        code: 1,
        problem: new RegExp(`refusing to touch ZFS dataset ${POOL}: it is not marked`)
      })
      t.same(await poolSnapshots(), [], 'zfs list -t snapshot: none taken')
    })

    const outcome = await rollbackUnderLoad(t, { dataDir, generator, events, loadRequests: 1500 })
    t.same(await poolSnapshots(), [`${DATASET}@pgloadgen-s1`], 'ZFS holds the one snapshot, with the lab prefix')
    t.equal((await zfs('zpool', ['status', '-x', POOL])).trim(), `pool '${POOL}' is healthy`, 'the pool has no errors')
    if (!outcome.summary) return
  })

  t.test('rollback -r destroys later snapshots, said before --yes; destroy --yes', async t => {
    // The generator stopped the server it started: these run on a stopped server.
    for (const name of ['s2', 's3'])
      t.equal((await snapshotCli(dataDir, ['create', name])).code, 0, `snapshot create ${name}`)
    t.same(await snapshotNames(t, dataDir), ['s1', 's2', 's3'], 'in the order taken')
    assertRefused(t, await snapshotCli(dataDir, ['rollback', 's1']), {
      code: 2,
      problem: /destroys the later snapshots s2, s3; add --yes/
    })
    t.same(await snapshotNames(t, dataDir), ['s1', 's2', 's3'], 'the refused rollback destroyed nothing')
    const result = await snapshotCli(dataDir, ['rollback', 's1', '--yes'])
    t.equal(result.code, 0, `rollback s1 --yes: exit 0; stderr: ${result.stderr}`)
    t.same(await snapshotNames(t, dataDir), ['s1'], 'the later snapshots are gone')
    t.same(await poolSnapshots(), [`${DATASET}@pgloadgen-s1`], 'in ZFS too')
    const destroyed = await snapshotCli(dataDir, ['destroy', 's1', '--yes'])
    t.equal(destroyed.code, 0, `destroy s1 --yes: exit 0; stderr: ${destroyed.stderr}`)
    t.same(await poolSnapshots(), [], 'no snapshot left in ZFS')
  })
}
