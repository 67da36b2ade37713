// The free space of the ZFS pool that holds the data directory, sampled
// while a load runs: per metaslab, how much is free, in how many segments,
// and the largest of them, read from `zdb -mm <pool>`; the pool's size,
// free and allocated bytes from `zpool get`; its fragmentation where the
// implementation has the property (zfs-fuse, pool version 23, has not).
//
// A probe of the load session (lib/lab/load-session.js): started and stopped
// with it, its last figures written into every recorded sample under `zfs`,
// and exported on /metrics. The cost is bounded: one zdb at a time, every
// intervalS (default 10 s), killed after timeoutS; each round's wall time is
// measured and exported. A round that fails is counted, and the last
// figures are kept, marked stale. zfs-tools.js finds and runs the tools;
// zfs-space-metrics.js exports the figures.
import { performance } from 'node:perf_hooks'
import { parseDuration } from '../config/number-flags.js'
import { parseZdbMetaslabs, parseZpoolGet, summariseMetaslabs } from './zfs-output.js'
import { registerZfsSpaceMetrics } from './zfs-space-metrics.js'
import { runZfsTool, toolPath, zfsDatasetOf } from './zfs-tools.js'
import { round, roundOrNull } from '../helpers/numbers.js'

export { parseZdbMetaslabs, parseZfsSize, parseZpoolGet, summariseMetaslabs } from './zfs-output.js'
/** @typedef {import('./zfs-output.js').Metaslab} Metaslab */
/** @typedef {import('./zfs-output.js').MetaslabFigures} MetaslabFigures */

export const DEFAULT_INTERVAL_S = 10
export const DEFAULT_TIMEOUT_S = 30
const ZPOOL_TIMEOUT_MS = 15000

const NO_FRAGMENTATION_PROPERTY =
  'this zpool has no fragmentation property (zfs-fuse, pool version 23: it came with the space map histograms of later ZFS)'

/**
 * The sample written into samples.ndjson under `zfs`.
 * @typedef {object} ZfsSample
 * @property {string} pool
 * @property {string | null} at                 when the figures were read (the end of the last round without a failure)
 * @property {number | null} size_bytes         zpool get size
 * @property {number | null} free_bytes         zpool get free
 * @property {number | null} allocated_bytes    zpool get allocated
 * @property {boolean} pool_bytes_rounded       zpool printed them rounded (no -p: zfs-fuse)
 * @property {number | null} metaslabs
 * @property {number | null} metaslab_bytes
 * @property {number | null} metaslab_free_bytes
 * @property {number | null} free_segments
 * @property {number | null} largest_free_segment_bytes
 * @property {number | null} median_metaslab_free_share
 * @property {number | null} fragmentation_pct
 * @property {string | null} fragmentation_unknown   why fragmentation_pct is null
 * @property {number | null} sample_s           wall time of the last round (zpool and zdb)
 * @property {number | null} zdb_s              of which zdb
 * @property {number} rounds                    rounds done
 * @property {number} sampling_s_total          their wall time added up
 * @property {number} errors                    tool runs that failed (timeouts included)
 * @property {boolean} stale                    the last round failed: these are older figures
 * @property {string | null} error              what the last failure said
 */

/**
 * @typedef {object} ZfsSpaceOptions
 * @property {string} pool
 * @property {number} [intervalS]   seconds between the starts of two rounds (default 10)
 * @property {number} [timeoutS]    a zdb or zpool still running then is killed (default 30)
 * @property {import('prom-client').Registry | null} [registry]
 * @property {import('../log.js').Logger} log
 */

// The probe. Each round runs zpool get, then zdb -mm; rounds never overlap.
export class ZfsSpaceProbe {
  /** @param {ZfsSpaceOptions} options */
  constructor({ pool, intervalS = DEFAULT_INTERVAL_S, timeoutS = DEFAULT_TIMEOUT_S, registry = null, log }) {
    this.name = 'zfs'
    this.pool = pool
    this.intervalS = intervalS
    this.timeoutS = timeoutS
    this.log = log
    this.zdb = toolPath('zdb')
    this.zpool = toolPath('zpool')
    /** @type {boolean | null} whether zpool takes -Hp (null: not tried yet) */
    this.parsable = null
    /**
     * @type {{ size: number | null, free: number | null, allocated: number | null,
     *     fragmentationPct: number | null } | null}
     */
    this.poolFigures = null
    /** @type {MetaslabFigures | null} */
    this.metaslabFigures = null
    /** @type {string | null} */
    this.at = null
    this.rounds = 0
    this.samplingS = 0
    /** @type {number | null} */
    this.lastRoundS = null
    /** @type {number | null} */
    this.lastZdbS = null
    this.errors = { zdb: 0, zpool: 0 }
    this.stale = false
    /** @type {string | null} */
    this.error = null
    this.failing = false
    this.running = false
    this.stopped = false
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    /** @type {Promise<void> | null} */
    this.round = null
    this.abort = new AbortController()
    if (registry) registerZfsSpaceMetrics(registry, this)
  }

  /** Starts sampling: the first round at once (not waited for), then every intervalS. */
  async start() {
    this.log.info(
      `ZFS pool ${this.pool}: sampling its metaslabs (zdb -mm) and free space (zpool get) every ${this.intervalS} s`
    )
    this.schedule(0)
  }

  /** @param {number} delayMs */
  schedule(delayMs) {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.timer = null
      const started = performance.now()
      this.round = this.sampleOnce().finally(() => {
        this.round = null
        this.schedule(Math.max(0, this.intervalS * 1000 - (performance.now() - started)))
      })
    }, delayMs)
    this.timer.unref()
  }

  /** Stops sampling; a zdb still running is killed. */
  async stop() {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.abort.abort()
    await this.round?.catch(() => {})
  }

  /** One round: zpool get, then zdb -mm. Never rejects. */
  async sampleOnce() {
    if (this.running || this.stopped) return
    this.running = true
    const started = performance.now()
    /** @type {string[]} */
    const failures = []
    try {
      try {
        this.poolFigures = await this.readPool()
      } catch (err) {
        if (this.stopped) return
        this.errors.zpool++
        failures.push(/** @type {Error} */ (err).message)
      }
      const zdbStarted = performance.now()
      try {
        const out = await runZfsTool(this.zdb, ['-mm', this.pool], {
          timeoutMs: this.timeoutS * 1000,
          signal: this.abort.signal
        })
        const metaslabs = parseZdbMetaslabs(out)
        if (metaslabs.length === 0) throw new Error(`zdb -mm ${this.pool}: no metaslab in its output`)
        this.metaslabFigures = summariseMetaslabs(metaslabs)
      } catch (err) {
        if (this.stopped) return
        this.errors.zdb++
        failures.push(/** @type {Error} */ (err).message)
      } finally {
        this.lastZdbS = (performance.now() - zdbStarted) / 1000
      }
      this.lastRoundS = (performance.now() - started) / 1000
      this.samplingS += this.lastRoundS
      this.rounds++
      if (failures.length === 0) this.at = new Date().toISOString()
      this.stale = failures.length > 0
      this.error = failures.length > 0 ? failures.join('; ') : null
      if (this.stale && !this.failing) {
        this.log.warn(
          `ZFS pool ${this.pool}: ${this.error}; the last figures are kept, marked stale`,
          'PGLG_W_SPACE_UNREADABLE'
        )
      }
      if (!this.stale && this.failing) this.log.info(`ZFS pool ${this.pool}: sampled again`)
      this.failing = this.stale
    } finally {
      this.running = false
    }
  }

  /** zpool get, exact where it takes -Hp, else as it prints the sizes. */
  async readPool() {
    const timeoutMs = Math.min(ZPOOL_TIMEOUT_MS, this.timeoutS * 1000)
    if (this.parsable !== false) {
      try {
        const out = await runZfsTool(this.zpool, ['get', '-Hp', 'size,free,allocated,fragmentation', this.pool], {
          timeoutMs,
          signal: this.abort.signal
        })
        this.parsable = true
        return parseZpoolGet(out, true)
      } catch (err) {
        // zfs-fuse's zpool get has neither -H nor -p: it says so, and prints its usage
        const output = /** @type {{ output?: string }} */ (err).output ?? ''
        if (this.parsable === true || !/invalid (property|option)|bad property list|usage:/i.test(output)) throw err
        this.parsable = false
      }
    }
    return parseZpoolGet(
      await runZfsTool(this.zpool, ['get', 'size,free,allocated', this.pool], { timeoutMs, signal: this.abort.signal }),
      false
    )
  }

  /** @returns {ZfsSample | null} the last figures; null before the first round ended */
  sample() {
    if (this.rounds === 0) return null
    const pool = this.poolFigures
    const ms = this.metaslabFigures
    const fragmentation = pool?.fragmentationPct ?? null
    return {
      pool: this.pool,
      at: this.at,
      size_bytes: pool?.size ?? null,
      free_bytes: pool?.free ?? null,
      allocated_bytes: pool?.allocated ?? null,
      pool_bytes_rounded: this.parsable !== true,
      metaslabs: ms?.metaslabs ?? null,
      metaslab_bytes: ms?.metaslabBytes ?? null,
      metaslab_free_bytes: ms?.freeBytes ?? null,
      free_segments: ms?.freeSegments ?? null,
      largest_free_segment_bytes: ms?.largestFreeSegmentBytes ?? null,
      median_metaslab_free_share:
        ms?.medianFreeShare === null || ms?.medianFreeShare === undefined
          ? null
          : Math.round(ms.medianFreeShare * 10000) / 10000,
      fragmentation_pct: fragmentation,
      fragmentation_unknown:
        fragmentation !== null
          ? null
          : this.parsable === false
            ? NO_FRAGMENTATION_PROPERTY
            : pool
              ? 'zpool gives no fragmentation for this pool'
              : 'zpool did not answer',
      sample_s: roundOrNull(this.lastRoundS, 3),
      zdb_s: roundOrNull(this.lastZdbS, 3),
      rounds: this.rounds,
      sampling_s_total: round(this.samplingS, 3),
      errors: this.errors.zdb + this.errors.zpool,
      stale: this.stale,
      error: this.error
    }
  }
}

/**
 * --zfs-interval: seconds between two rounds (or with a unit), up to an
 * hour; 0: none; absent: the default.
 * @param {unknown} value
 */
export function parseZfsInterval(value) {
  if (value === undefined) return DEFAULT_INTERVAL_S
  return String(value).trim() === '0' ? 0 : parseDuration(value, '--zfs-interval', { max: 3600 })
}

/**
 * The probe of the pool holding a data directory, or null when it is not on
 * ZFS (or intervalS is 0: no sampling).
 * @param {string | null} dataDir
 * @param {{ intervalS?: number, timeoutS?: number, registry: import('prom-client').Registry,
 *     log: import('../log.js').Logger }} options
 * @returns {Promise<ZfsSpaceProbe | null>}
 */
export async function zfsSpaceProbeFor(dataDir, { intervalS = DEFAULT_INTERVAL_S, timeoutS, registry, log }) {
  if (dataDir === null || intervalS === 0) return null
  const found = await zfsDatasetOf(dataDir)
  if (!found) return null
  log.info(`the data directory is on ZFS dataset ${found.dataset}`)
  return new ZfsSpaceProbe({ pool: found.pool, intervalS, timeoutS, registry, log })
}
