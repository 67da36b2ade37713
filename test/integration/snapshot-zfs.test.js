// Snapshots with the zfs driver on a real ZFS pool (Debian's zfs-fuse; a pool
// on a file, created here and destroyed at the end): the driver refuses a
// dataset that is not marked as the lab's; once marked, snapshot, more load
// and rollback under a running generator bring the row count back exactly
// to the snapshot's, and the generator carries on.
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import { mkdtemp, chmod, open, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from '../helpers/cli.js'
import { assertRefused, rollbackUnderLoad, snapshotCli, snapshotNames, startGenerator, stopServerOn, tableState } from '../helpers/snapshot.js'

const exec = promisify(execFile)
const POOL = `pgl${process.pid}`
const DATASET = `${POOL}/lab`
const POOL_BYTES = 512 * 1024 * 1024

/**
 * Runs a ZFS tool; resolves with stdout. Bounded: a wedged daemon must fail
 * the test, not hang it.
 * @param {string} tool   zfs or zpool
 * @param {string[]} args
 * @param {number} [timeoutMs]
 */
async function zfs (tool, args, timeoutMs = 120000) {
  return (await exec(tool, args, { timeout: timeoutMs, killSignal: 'SIGKILL' })).stdout
}

/**
 * Makes sure the zfs-fuse daemon runs (CI starts it; a fresh machine may
 * not have). Returns why ZFS cannot be used, or null.
 * @returns {Promise<string | null>}
 */
async function ensureZfs () {
  if (spawnSync('sh', ['-c', 'command -v zfs && command -v zpool && command -v zfs-fuse']).status !== 0) {
    return 'zfs-fuse is not installed (apt-get install -y zfs-fuse)'
  }
  if (process.getuid?.() !== 0) return 'the ZFS test creates a pool and must run as root'
  // Whether the daemon answers is the test: a killed daemon leaves a zombie
  // and a pid file, and zfs-fuse refuses to start over its own pid file.
  if (spawnSync('zpool', ['list']).status !== 0) {
    await rm('/run/zfs-fuse.pid', { force: true })
    const started = spawnSync('zfs-fuse', ['--pidfile', '/run/zfs-fuse.pid'], { encoding: 'utf8' })
    if (started.status !== 0) return `cannot start the zfs-fuse daemon: ${started.stderr || started.error}`
  }
  try {
    await waitFor(() => spawnSync('zpool', ['list']).status === 0, { what: 'the zfs-fuse daemon to answer', timeoutMs: 15000 })
  } catch (err) {
    return String(err)
  }
  return null
}

/** The snapshots on the test's pool, as ZFS lists them. */
async function poolSnapshots () {
  return (await zfs('zfs', ['list', '-H', '-o', 'name', '-t', 'snapshot', '-r', POOL])).split('\n').filter(Boolean)
}

const problem = await ensureZfs()
if (problem) t.fail(problem)
else await onPool()

async function onPool () {
  // Everything in one private directory the postgres user can enter: the
  // file holding the pool, the pool's and the dataset's mount points.
  const root = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-zfs-'))
  await chmod(root, 0o755)
  const image = path.join(root, 'pool.img')
  const labMount = path.join(root, 'lab')
  const dataDir = path.join(labMount, 'pgdata')
  const events = path.join(root, 'events.ndjson')
  t.teardown(async () => {
    // The server first (it holds files on the dataset), then the pool, then
    // the file. Never `zpool destroy -f`: forcing zfs-fuse to unmount a
    // dataset with files still open can hang its FUSE side for every pool.
    await stopServerOn(dataDir)
    for (let attempt = 1; ; attempt++) {
      try {
        await zfs('zpool', ['destroy', POOL], 30000)
        break
      } catch (err) {
        const said = String(/** @type {any} */ (err).stderr || err)
        if (/no such pool/.test(said)) break
        if (attempt === 10 || /** @type {any} */ (err).killed) {
          console.error(`cannot destroy the test pool ${POOL} (file ${image}): ${said}`)
          return
        }
        await new Promise(resolve => setTimeout(resolve, 1000))
      }
    }
    await rm(root, { recursive: true, force: true })
  })
  const file = await open(image, 'w')
  await file.truncate(POOL_BYTES)
  await file.close()
  await zfs('zpool', ['create', '-m', path.join(root, 'pool'), POOL, image])
  await zfs('zfs', ['create', '-o', `mountpoint=${labMount}`, DATASET])
  // The daemon serves the mount (a wedged zfs-fuse creates pools but never
  // answers on their mounts; a process touching one would hang).
  const probe = spawnSync('stat', ['-c', '%i', labMount], { encoding: 'utf8', timeout: 15000, killSignal: 'SIGKILL' })
  if (probe.status !== 0) {
    t.fail(`the zfs-fuse daemon does not answer on the mount of ${DATASET} (${probe.stderr || probe.error || 'no answer in 15 s'}); restart the daemon`)
    return
  }
  await chmod(labMount, 0o755)

  t.test('snapshots of a data directory on a ZFS dataset, under a running generator', async t => {
    const generator = await startGenerator(t, { dataDir, events })

    await t.test('a dataset not marked as the lab\'s is refused', async t => {
      const unmarked = { code: 1, problem: new RegExp(`refusing to touch ZFS dataset ${DATASET}: it is not marked as the lab's`) }
      const rows = await tableState(dataDir)
      assertRefused(t, await snapshotCli(dataDir, ['create', 's0', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['list', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['rollback', 's0', '--yes', '--driver', 'zfs']), unmarked)
      assertRefused(t, await snapshotCli(dataDir, ['destroy', 's0', '--yes', '--driver', 'zfs']), unmarked)
      t.same(await poolSnapshots(), [], 'zfs list -t snapshot: none taken')
      t.equal((await zfs('zfs', ['get', '-H', '-o', 'value', 'pgloadgen:lab', DATASET])).trim(), '-', 'the dataset is still unmarked')
      t.ok((await tableState(dataDir)).count >= rows.count, 'the server was not stopped or rolled back')
    })

    const init = await snapshotCli(dataDir, ['init', '--driver', 'zfs'])
    t.equal(init.code, 0, `snapshot init --driver zfs: exit 0; stderr: ${init.stderr}`)
    t.match(init.stderr, `zfs driver on dataset ${DATASET}`, 'the dataset is found from the data directory')
    t.equal((await zfs('zfs', ['get', '-H', '-o', 'value', 'pgloadgen:lab', DATASET])).trim(), 'on', 'zfs get pgloadgen:lab: on')
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
    for (const name of ['s2', 's3']) t.equal((await snapshotCli(dataDir, ['create', name])).code, 0, `snapshot create ${name}`)
    t.same(await snapshotNames(t, dataDir), ['s1', 's2', 's3'], 'in the order taken')
    assertRefused(t, await snapshotCli(dataDir, ['rollback', 's1']), { code: 2, problem: /destroys the later snapshots s2, s3; add --yes/ })
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
