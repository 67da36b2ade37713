// A full disk, as the lab watches it: the free space of the server's data
// directory (and of its pg_wal, which may be a symlink to a filesystem of
// its own), the requests that failed because a write found no space, and
// one disk_full event from the first sign of it to the moment writes
// succeed again.
//
// The free space comes from statfs(2) on the data directory when it is
// local (the embedded server, or a --data-dir given with a URL), polled
// every second off the request path: a scrape reads the last figures, and a
// statfs that hangs (a wedged FUSE daemon) only makes the next polls skip.
import { readFile, realpath, statfs } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import client from 'prom-client'

// isDiskFullError lives in lib/pg/disk-full.js, so that the generator's
// threads can classify errors without loading prom-client.
export { isDiskFullError } from '../pg/disk-full.js'

// Below this, a filesystem counts as full even before a write failed.
export const NEARLY_FULL_BYTES = 1024 * 1024
const POLL_MS = 1000

/**
 * @typedef {object} SpaceFigures
 * @property {number} freeBytes   available to the server's user (f_bavail)
 * @property {number} sizeBytes
 */

/**
 * @typedef {object} DiskSpaceOptions
 * @property {string | null} dataDir    the server's data directory when local, else null
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../recorder/event-log.js').EventLog | null} events
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 */

export class DiskSpaceWatch {
  /** @param {DiskSpaceOptions} options */
  constructor({ dataDir, stats, events, registry, log }) {
    this.dataDir = dataDir
    this.stats = stats
    this.events = events
    this.log = log
    /** @type {Record<'data' | 'pg_wal', string> | null} */
    this.paths = dataDir === null ? null : { data: dataDir, pg_wal: path.join(dataDir, 'pg_wal') }
    /** @type {Map<string, SpaceFigures>} */
    this.space = new Map()
    /** @type {Map<string, number>} the lowest free space seen */
    this.minFree = new Map()
    this.polling = false
    this.statfsFailing = false
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    // the episode under way: since when, what it saw
    /** @type {{ since: number, failures: number, types: Set<number> } | null} */
    this.episode = null
    this.episodes = 0
    this.fullMs = 0
    this.previousDiskFull = Float64Array.from(stats.diskFull)
    this.previousDone = Float64Array.from(stats.done)
    this.previousFailed = Float64Array.from(stats.failed)
    this.register(registry)
  }

  /** @param {import('prom-client').Registry} registry */
  register(registry) {
    const watch = this
    /** @param {string} name @param {string} help @param {keyof SpaceFigures} field */
    const spaceGauge = (name, help, field) =>
      new client.Gauge({
        name,
        help,
        labelNames: ['directory'],
        registers: [registry],
        collect() {
          this.reset()
          for (const [directory, figures] of watch.space) this.set({ directory }, figures[field])
        }
      })
    // no series to give for a server elsewhere: not even the families
    if (this.paths !== null) {
      spaceGauge(
        'pg_data_directory_free_bytes',
        'Space left for the server on the filesystem of its data directory (directory="data") and of its pg_wal (directory="pg_wal"), from statfs: f_bavail × f_bsize; a ZFS dataset\'s quota counts',
        'freeBytes'
      )
      spaceGauge(
        'pg_data_directory_size_bytes',
        'Size of the filesystem of the data directory and of pg_wal, from statfs (a ZFS dataset with a quota: the quota)',
        'sizeBytes'
      )
    }
    new client.Gauge({
      name: 'pgloadgen_disk_full',
      help: "1 from the first request that failed for want of disk space (or the data directory's free space near zero) until writes succeed again",
      registers: [registry],
      collect() {
        this.set(watch.episode ? 1 : 0)
      }
    })
    const types = this.stats.types
    new client.Counter({
      name: 'pgloadgen_disk_full_failures_total',
      help: 'Requests that failed because the server could not write for want of space (SQLSTATE 53100, ENOSPC, EDQUOT), by type',
      labelNames: ['type'],
      registers: [registry],
      collect() {
        this.reset()
        for (let i = 0; i < types.length; i++) this.inc({ type: types[i] }, watch.stats.diskFull[i])
      }
    })
  }

  async start() {
    await this.pollSpace()
    this.timer = setInterval(() => {
      this.tick()
    }, POLL_MS)
    this.timer.unref()
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  async tick() {
    // the space read just before the check: an episode that starts says the space then, not a second before
    await this.pollSpace()
    this.check()
  }

  async pollSpace() {
    if (this.paths === null || this.polling) return
    this.polling = true
    try {
      for (const [directory, where] of Object.entries(this.paths)) {
        const figures = await spaceOf(where)
        this.space.set(directory, figures)
        this.minFree.set(directory, Math.min(this.minFree.get(directory) ?? Infinity, figures.freeBytes))
      }
      if (this.statfsFailing) this.log.info('disk space: statfs of the data directory succeeds again')
      this.statfsFailing = false
    } catch (err) {
      if (!this.statfsFailing) {
        this.log.warn(
          `disk space: cannot statfs the data directory: ${/** @type {Error} */ (err).message}`,
          'PGLG_W_SPACE_UNREADABLE'
        )
      }
      this.statfsFailing = true
    } finally {
      this.polling = false
    }
  }

  /** Whether a watched filesystem has next to no space left now. */
  nearlyFull() {
    for (const figures of this.space.values()) if (figures.freeBytes < NEARLY_FULL_BYTES) return true
    return false
  }

  /**
   * Once a second: starts an episode at the first disk-full failure or when
   * the free space runs out; ends it when a second passes with no such
   * failure, writes of the types that failed succeeding, and space free.
   */
  check() {
    const { stats } = this
    let failures = 0
    let recovered = false
    /** @type {Set<number>} */
    const failingTypes = new Set()
    for (let i = 0; i < stats.types.length; i++) {
      const newFailures = stats.diskFull[i] - this.previousDiskFull[i]
      const successes = stats.done[i] - this.previousDone[i] - (stats.failed[i] - this.previousFailed[i])
      if (newFailures > 0) failingTypes.add(i)
      failures += newFailures
      if (this.episode?.types.has(i) && successes > 0) recovered = true
    }
    this.previousDiskFull.set(stats.diskFull)
    this.previousDone.set(stats.done)
    this.previousFailed.set(stats.failed)
    const nearlyFull = this.nearlyFull()
    if (this.episode === null) {
      if (failures === 0 && !nearlyFull) return
      this.episode = { since: Date.now(), failures, types: failingTypes }
      this.episodes++
      const cause =
        failures > 0
          ? `${failures} request${failures === 1 ? '' : 's'} failed for want of disk space`
          : 'the free space ran out'
      this.log.warn(`disk full: ${cause}${this.describeSpace()}; the load goes on`, 'PGLG_W_DISK_FULL')
      this.events?.record({
        kind: 'start',
        action: 'disk_full',
        detail: { cause: failures > 0 ? 'failures' : 'free_space', failures, ...this.spaceDetail() }
      })
      return
    }
    const episode = this.episode
    episode.failures += failures
    for (const type of failingTypes) episode.types.add(type)
    // An episode seen only in the free space ends when space is back; one
    // with failures when the types that failed write again.
    const writesBack = episode.types.size === 0 || recovered
    if (failures > 0 || nearlyFull || !writesBack) return
    const durationS = Math.round(Date.now() - episode.since) / 1000
    this.fullMs += Date.now() - episode.since
    this.episode = null
    this.log.info(
      `disk full no more: writes succeed again after ${durationS} s and ${episode.failures} failed requests${this.describeSpace()}`
    )
    this.events?.record({
      kind: 'end',
      action: 'disk_full',
      duration_s: durationS,
      ok: true,
      detail: { failures: episode.failures, ...this.spaceDetail() }
    })
  }

  spaceDetail() {
    /** @type {Record<string, number>} */
    const detail = {}
    for (const [directory, figures] of this.space) {
      detail[`${directory}_free_bytes`] = figures.freeBytes
      detail[`${directory}_size_bytes`] = figures.sizeBytes
    }
    return detail
  }

  describeSpace() {
    const data = this.space.get('data')
    if (!data) return ''
    const wal = this.space.get('pg_wal')
    const mib = (/** @type {number} */ bytes) => `${(bytes / 1048576).toFixed(1)} MiB`
    return ` (data directory: ${mib(data.freeBytes)} free of ${mib(data.sizeBytes)}${wal && wal.sizeBytes !== data.sizeBytes ? `; pg_wal: ${mib(wal.freeBytes)} free` : ''})`
  }

  /** The figures of the last poll, for the recorded samples; null when not local. */
  sample() {
    if (this.paths === null && this.episode === null) return null
    const data = this.space.get('data')
    const wal = this.space.get('pg_wal')
    return {
      data_free_bytes: data?.freeBytes ?? null,
      data_size_bytes: data?.sizeBytes ?? null,
      wal_free_bytes: wal?.freeBytes ?? null,
      wal_size_bytes: wal?.sizeBytes ?? null,
      full: this.episode !== null,
      failures: sum(this.stats.diskFull)
    }
  }

  /**
   * The disk_full part of the summary.
   * @returns {import('../summary/summary.js').DiskFullFigures}
   */
  summary() {
    const { stats } = this
    /** @type {Record<string, number>} */
    const byType = {}
    for (let i = 0; i < stats.types.length; i++) byType[stats.types[i]] = stats.diskFull[i]
    /** @param {Map<string, number>} values */
    const figures = values => (this.paths === null ? null : Object.fromEntries(values))
    return {
      failures: sum(stats.diskFull),
      by_type: byType,
      episodes: this.episodes,
      full_now: this.episode !== null,
      full_s: Math.round(this.fullMs + (this.episode ? Date.now() - this.episode.since : 0)) / 1000,
      data_directory: this.dataDir,
      free_bytes: figures(new Map([...this.space].map(([directory, f]) => [directory, f.freeBytes]))),
      size_bytes: figures(new Map([...this.space].map(([directory, f]) => [directory, f.sizeBytes]))),
      min_free_bytes: figures(this.minFree)
    }
  }
}

/** @param {Float64Array} values */
function sum(values) {
  let total = 0
  for (let i = 0; i < values.length; i++) total += values[i]
  return total
}

/**
 * The space a directory's filesystem has left for the server, from statfs
 * (through symlinks: pg_wal's own filesystem when it is one).
 * @param {string} directory
 * @returns {Promise<SpaceFigures>}
 */
export async function spaceOf(directory) {
  const fs = await statfs(directory)
  return { freeBytes: fs.bavail * fs.bsize, sizeBytes: fs.blocks * fs.bsize }
}

/**
 * Where a directory really is (symlinks followed) and the mount point of
 * its filesystem (from /proc/self/mountinfo; null where there is none).
 * @param {string} directory
 * @returns {Promise<{ directory: string, mountPoint: string | null }>}
 */
export async function filesystemOf(directory) {
  const real = await realpath(directory).catch(() => directory)
  let mountPoint = null
  try {
    for (const line of (await readFile('/proc/self/mountinfo', 'utf8')).split('\n')) {
      // the fifth field, with spaces and the like escaped as \ooo
      const field = line.split(' ')[4]
      if (field === undefined) continue
      const mount = field.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)))
      const inside = real === mount || real.startsWith(mount === '/' ? '/' : `${mount}/`)
      if (inside && mount.length >= (mountPoint?.length ?? 0)) mountPoint = mount
    }
  } catch {
    // no mountinfo (not Linux): the directory alone
  }
  return { directory: real, mountPoint }
}

/**
 * The data directory whose free space can be watched: the embedded
 * server's, or, with a URL, a --data-dir given on the command line that
 * holds a PostgreSQL data directory (a lab server on this machine); else null.
 * @param {{ embedded: { dataDir: string } | null }} target
 * @param {string | undefined} dataDir   --data-dir, when given
 */
export function localDataDir(target, dataDir) {
  if (target.embedded) return target.embedded.dataDir
  if (dataDir === undefined || !existsSync(path.join(dataDir, 'PG_VERSION'))) return null
  return path.resolve(dataDir)
}
