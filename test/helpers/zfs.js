// A private ZFS pool on a file (Debian's zfs-fuse), for tests that need a
// real dataset: the daemon made to answer, the pool created, and destroyed
// at the end even when the test failed half-way or the daemon died.
import { execFile, spawnSync } from 'node:child_process'
import { chmod, mkdtemp, open, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from './cli.js'

const exec = promisify(execFile)

/**
 * Runs a ZFS tool; resolves with stdout. Bounded: a wedged daemon must fail
 * the test, not hang it.
 * @param {string} tool   zfs or zpool
 * @param {string[]} args
 * @param {number} [timeoutMs]
 */
export async function zfs(tool, args, timeoutMs = 120000) {
  return (await exec(tool, args, { timeout: timeoutMs, killSignal: 'SIGKILL' })).stdout
}

/** Whether the zfs-fuse daemon answers now. */
export function daemonAnswers() {
  return spawnSync('zpool', ['list'], { timeout: 15000, killSignal: 'SIGKILL' }).status === 0
}

/**
 * Makes sure the zfs-fuse daemon runs, as .ci/run starts it. Returns why ZFS
 * cannot be used, or null.
 * @returns {Promise<string | null>}
 */
export async function ensureZfs() {
  if (spawnSync('sh', ['-c', 'command -v zfs && command -v zpool && command -v zfs-fuse']).status !== 0) {
    return 'zfs-fuse is not installed (apt-get install -y zfs-fuse)'
  }
  if (process.getuid?.() !== 0) return 'the ZFS test creates a pool and must run as root'
  // Whether the daemon answers is the test: a killed daemon leaves a pid
  // file, and zfs-fuse refuses to start over its own pid file.
  if (!daemonAnswers()) {
    await rm('/run/zfs-fuse.pid', { force: true })
    const started = spawnSync('zfs-fuse', ['--pidfile', '/run/zfs-fuse.pid'], { encoding: 'utf8' })
    if (started.status !== 0) return `cannot start the zfs-fuse daemon: ${started.stderr || started.error}`
  }
  try {
    await waitFor(() => daemonAnswers(), { what: 'the zfs-fuse daemon to answer', timeoutMs: 15000 })
  } catch (err) {
    return String(err)
  }
  return null
}

// how long a teardown waits for the daemon to let a pool go, in seconds (one try a second)
const POOL_BUSY_MOST_S = 300

/**
 * Destroys a pool. When the daemon died under the test, its mounts are
 * left dead: they are detached, the daemon is started again (it imports
 * the pool from its cache) and the pool is destroyed then. Never
 * `zpool destroy -f`: forcing zfs-fuse to unmount a dataset with files
 * still open can hang its FUSE side for every pool.
 * @param {string} pool
 * @param {string[]} mounts   the pool's mount points, deepest first
 * @returns {Promise<string | null>} what went wrong, or null
 */
export async function destroyPool(pool, mounts) {
  if (!daemonAnswers()) {
    for (const mount of mounts) spawnSync('umount', ['-l', mount], { timeout: 15000, killSignal: 'SIGKILL' })
    const problem = await ensureZfs()
    if (problem) return `the zfs-fuse daemon died and could not be started again: ${problem}`
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await zfs('zpool', ['destroy', pool], 30000)
      return null
    } catch (err) {
      const said = String(/** @type {any} */ (err).stderr || err)
      if (/no such pool/.test(said)) return null
      // zfs-fuse may hold a pool busy for more than a minute after its last file closed, on a loaded machine
      if (attempt === POOL_BUSY_MOST_S || /** @type {any} */ (err).killed)
        return `cannot destroy the test pool ${pool}: ${said}`
      await new Promise(resolve => setTimeout(resolve, 1000))
    }
  }
}

/**
 * A pool on a file in a private directory the postgres user can enter, with
 * datasets mounted in it, and its teardown: `beforeDestroy` first (a
 * server holding files on a dataset), then the pool, then the directory.
 * Null, with the test failed, when the daemon made the pool but does not
 * answer on its mounts (a wedged zfs-fuse; a process touching one would
 * hang).
 * @param {import('tap').Test} t
 * @param {{ prefix: string, pool: string, bytes: number, datasets: Array<{ name: string, mount: string }>,
 *     beforeDestroy?: () => Promise<unknown> }} options
 *   datasets: each `${pool}/${name}`, mounted at root/mount, in the order given
 * @returns {Promise<{ root: string, mounts: Record<string, string> } | null>}
 */
export async function filePool(t, { prefix, pool, bytes, datasets, beforeDestroy }) {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix))
  await chmod(root, 0o755)
  const image = path.join(root, 'pool.img')
  const poolMount = path.join(root, 'pool')
  /** @type {Record<string, string>} */
  const mounts = Object.fromEntries(datasets.map(({ name, mount }) => [name, path.join(root, mount)]))
  t.teardown(async () => {
    if (beforeDestroy && daemonAnswers()) await beforeDestroy().catch(() => {})
    const failed = await destroyPool(pool, [...Object.values(mounts).reverse(), poolMount])
    if (failed) {
      console.error(`${failed} (file ${image})`)
      return
    }
    await rm(root, { recursive: true, force: true })
  })
  const file = await open(image, 'w')
  await file.truncate(bytes)
  await file.close()
  await zfs('zpool', ['create', '-m', poolMount, pool, image])
  for (const { name } of datasets) await zfs('zfs', ['create', '-o', `mountpoint=${mounts[name]}`, `${pool}/${name}`])
  for (const { name } of datasets) {
    const probe = spawnSync('stat', ['-c', '%i', mounts[name]], {
      encoding: 'utf8',
      timeout: 15000,
      killSignal: 'SIGKILL'
    })
    if (probe.status !== 0) {
      t.fail(
        `the zfs-fuse daemon does not answer on the mount of ${pool}/${name} ` +
          `(${probe.stderr || probe.error || 'no answer in 15 s'}); restart the daemon`
      )
      return null
    }
    await chmod(mounts[name], 0o755)
  }
  return { root, mounts }
}
