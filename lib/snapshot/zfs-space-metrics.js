// The space probe's figures on /metrics (zfs-space.js): read from the probe
// at every scrape, with no series for a figure it does not have.
import client from 'prom-client'

/**
 * What the metrics read of the probe.
 * @typedef {object} ZfsSpaceFigures
 * @property {string} pool
 * @property {{ size: number | null, free: number | null, fragmentationPct: number | null } | null} poolFigures
 * @property {import('./zfs-output.js').MetaslabFigures | null} metaslabFigures
 * @property {number | null} lastRoundS   wall time of the last round
 * @property {{ zdb: number, zpool: number }} errors   tool runs that failed
 */

/**
 * Registers the probe's gauges and its counter of failed tool runs.
 * @param {import('prom-client').Registry} registry
 * @param {ZfsSpaceFigures} probe
 */
export function registerZfsSpaceMetrics(registry, probe) {
  const labelNames = ['pool']
  /**
   * @param {string} name
   * @param {string} help
   * @param {() => number | null | undefined} value   null or undefined: no series
   */
  const gauge = (name, help, value) =>
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset()
        const v = value()
        if (v !== null && v !== undefined && Number.isFinite(v)) this.set({ pool: probe.pool }, v)
      }
    })
  gauge(
    'pgloadgen_zfs_pool_free_bytes',
    "Free bytes of the ZFS pool holding the data directory (zpool get free; rounded to three significant digits where zpool has no -p, as zfs-fuse's)",
    () => probe.poolFigures?.free
  )
  gauge(
    'pgloadgen_zfs_pool_size_bytes',
    'Size of the ZFS pool holding the data directory (zpool get size)',
    () => probe.poolFigures?.size
  )
  gauge('pgloadgen_zfs_metaslabs', 'Metaslabs of the pool, from zdb -mm', () => probe.metaslabFigures?.metaslabs)
  gauge(
    'pgloadgen_zfs_free_segments',
    "Free segments of all the pool's metaslabs together, from zdb -mm (more for the same free space: more fragmented)",
    () => probe.metaslabFigures?.freeSegments
  )
  gauge(
    'pgloadgen_zfs_largest_free_segment_bytes',
    'The largest free segment of any metaslab of the pool, from zdb -mm',
    () => probe.metaslabFigures?.largestFreeSegmentBytes
  )
  gauge(
    'pgloadgen_zfs_fragmentation_ratio',
    'zpool get fragmentation, as a ratio; no series where the pool has no such property (zfs-fuse)',
    () =>
      probe.poolFigures?.fragmentationPct === null || probe.poolFigures?.fragmentationPct === undefined
        ? null
        : probe.poolFigures.fragmentationPct / 100
  )
  gauge(
    'pgloadgen_zfs_sample_seconds',
    'Wall time of the last sampling round of the pool (zpool get and zdb -mm)',
    () => probe.lastRoundS
  )
  new client.Counter({
    name: 'pgloadgen_zfs_sample_errors_total',
    help: 'Runs of zdb or zpool that failed or were killed at their timeout while sampling the pool (the last figures are kept, marked stale)',
    labelNames: ['pool', 'tool'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [tool, n] of Object.entries(probe.errors)) this.inc({ pool: probe.pool, tool }, n)
    }
  })
}
