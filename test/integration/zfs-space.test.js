// The ZFS pool under the data directory, sampled during a load, on a real
// pool (Debian's zfs-fuse; a pool on a file, created here and destroyed at
// the end): zdb's output, captured here, read into metaslabs that agree
// with what zdb and zpool print; a probe on a pool that does not exist and
// a zdb killed at its timeout counted, the last figures kept and marked
// stale; then a recorded `pgloadgen run` on an embedded server whose data
// directory is on the pool: its samples carry the pool's figures, which
// move as the load writes, /metrics exports them, and the report shows
// them in a section of their own.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import client from 'prom-client'
import { CliRun, runCli, waitFor } from '../helpers/cli.js'
import { parsePrometheusText, scrape, sampleValue } from '../helpers/prom.js'
import { stopServerOn } from '../helpers/snapshot.js'
import { ensureZfs, filePool, zfs } from '../helpers/zfs.js'
import {
  ZfsSpaceProbe,
  parseZdbMetaslabs,
  parseZfsSize,
  parseZpoolGet,
  summariseMetaslabs
} from '../../lib/snapshot/zfs-space.js'
import { toolPath, zfsDatasetOf } from '../../lib/snapshot/zfs-tools.js'
import { createLogger } from '../../lib/log.js'

const POOL = `pglzs${process.pid}`
const DATASET = `${POOL}/lab`
const POOL_BYTES = 512 * 1024 * 1024
const INTERVAL_S = 2
// the load runs at least this long, and on until a round has seen the pool's
// free space fall (a round of zdb can take longer than this on a loaded
// machine); LIMIT_S bounds it
const LOAD_S = 20
const LIMIT_S = 240
const METRICS = [
  'pgloadgen_zfs_pool_free_bytes',
  'pgloadgen_zfs_metaslabs',
  'pgloadgen_zfs_free_segments',
  'pgloadgen_zfs_largest_free_segment_bytes',
  'pgloadgen_zfs_sample_seconds'
]

const problem = await ensureZfs()
if (problem) t.fail(problem)
else await onPool()

async function onPool() {
  /** @type {string} */
  let dataDir = ''
  const made = await filePool(t, {
    prefix: 'pgloadgen-zfs-space-',
    pool: POOL,
    bytes: POOL_BYTES,
    datasets: [{ name: 'lab', mount: 'lab' }],
    // the server first: it holds files on the dataset
    beforeDestroy: () => stopServerOn(dataDir)
  })
  if (!made) return
  const { root, mounts } = made
  const labMount = mounts.lab
  dataDir = path.join(labMount, 'pgdata')
  const recordDir = path.join(root, 'record')

  t.test("zdb -mm and zpool get as this machine's ZFS prints them", async t => {
    const zdb = toolPath('zdb')
    t.ok(path.isAbsolute(zdb), `zdb found: ${zdb}`)
    const text = await zfs(zdb, ['-mm', POOL], 60000)
    const metaslabs = parseZdbMetaslabs(text)
    const header = /^\s*metaslabs\s+(\d+)\s/m.exec(text)
    t.ok(header, 'zdb prints the number of metaslabs')
    t.equal(metaslabs.length, Number(header?.[1]), `one metaslab read per metaslab zdb counts (${metaslabs.length})`)
    t.equal(
      metaslabs.length,
      text.split('\n').filter(line => /^\s*metaslab\s+\d+\s+offset/.test(line)).length,
      'every metaslab line read'
    )
    t.same(
      metaslabs.map(m => m.id),
      metaslabs.map((_, i) => i),
      'numbered 0, 1, 2 … on the one vdev'
    )
    const summary = summariseMetaslabs(metaslabs)
    const size = /** @type {number} */ (summary.metaslabBytes)
    t.ok(size > 0 && (size & (size - 1)) === 0, `metaslabs of a power of two bytes (${size})`)
    t.ok(
      metaslabs.every(m => m.offset === m.id * size),
      'metaslab k starts at k × its size'
    )
    t.ok(
      metaslabs.every(m => m.freeBytes >= 0 && m.freeBytes <= size),
      'no metaslab has more free than its size'
    )
    t.ok(
      metaslabs.every(m => m.segments !== null && m.maxSegmentBytes !== null && m.freePct !== null),
      'each has its free segments, largest segment and free share (-mm)'
    )
    t.ok(
      metaslabs.every(m => (m.segments === 0) === (m.freeBytes === 0)),
      'free space comes in segments'
    )
    t.ok(
      metaslabs.every(m => /** @type {number} */ (m.maxSegmentBytes) <= size * 1.005),
      "no segment larger than its metaslab (to zdb's rounding)"
    )
    t.ok(
      metaslabs.every(m => Math.abs((m.freeBytes / size) * 100 - /** @type {number} */ (m.freePct)) <= 1.5),
      "free / size agrees with zdb's freepct"
    )
    t.ok(/** @type {number} */ (summary.freeSegments) >= metaslabs.length / 2, `free segments: ${summary.freeSegments}`)
    t.equal(summary.largestFreeSegmentBytes, size, 'on a new pool, some metaslab is free from end to end')

    // zfs-fuse's zpool get: no -H, no -p, no fragmentation property
    const parsable = spawnSync(toolPath('zpool'), ['get', '-Hp', 'size,free,allocated,fragmentation', POOL], {
      encoding: 'utf8',
      timeout: 15000
    })
    const pool =
      parsable.status === 0
        ? parseZpoolGet(parsable.stdout, true)
        : parseZpoolGet(await zfs('zpool', ['get', 'size,free,allocated', POOL]), false)
    t.ok(pool.size !== null && pool.free !== null && pool.allocated !== null, `zpool get: ${JSON.stringify(pool)}`)
    t.ok(
      Math.abs(/** @type {number} */ (pool.size) - metaslabs.length * size) <= 0.01 * metaslabs.length * size,
      "the pool's size is its metaslabs' (to 1 %)"
    )
    t.ok(
      Math.abs(/** @type {number} */ (pool.free) - summary.freeBytes) <= 0.02 * /** @type {number} */ (pool.size),
      `zpool's free (${pool.free}) is the metaslabs' free space added up (${summary.freeBytes}), to 2 % of the pool`
    )
    t.ok(
      Math.abs(
        /** @type {number} */ (pool.size) - /** @type {number} */ (pool.free) - /** @type {number} */ (pool.allocated)
      ) <=
        0.01 * /** @type {number} */ (pool.size),
      "size = free + allocated (to zpool's rounding)"
    )
    if (parsable.status !== 0) {
      t.equal(pool.fragmentationPct, null, `no fragmentation from this zpool (${parsable.stderr.split('\n')[0]})`)
    }
    t.equal(parseZfsSize('3.85M'), Math.round(3.85 * 1048576), 'nicenum sizes are powers of 1024')
  })

  t.test("the data directory's pool is found from the directory", async t => {
    t.same(await zfsDatasetOf(labMount), { dataset: DATASET, pool: POOL }, `${labMount}: ${DATASET}`)
    t.equal(await zfsDatasetOf(root), null, `${root} (tmpfs or a disk, not ZFS): none`)
  })

  t.test('a failed or killed zdb is counted; the last figures are kept, stale', async t => {
    const log = createLogger({ level: 'silent' })
    const registry = new client.Registry()
    const missing = new ZfsSpaceProbe({ pool: `${POOL}x`, intervalS: 60, registry, log })
    t.equal(missing.sample(), null, 'no figures before the first round')
    await missing.sampleOnce()
    const none = /** @type {import('../../lib/snapshot/zfs-space.js').ZfsSample} */ (missing.sample())
    t.ok(
      none.errors >= 1 && none.stale && none.error !== null,
      `a pool that does not exist: ${none.errors} errors, stale, "${none.error}"`
    )
    t.equal(none.metaslabs, null, 'and no figures')
    t.ok(
      (sampleValue(await registryFamilies(registry), 'pgloadgen_zfs_sample_errors_total', {
        pool: `${POOL}x`,
        tool: 'zdb'
      }) ?? 0) >= 1,
      'counted on the registry'
    )
    t.equal(
      sampleValue(await registryFamilies(registry), 'pgloadgen_zfs_metaslabs', { pool: `${POOL}x` }),
      undefined,
      'no figure exported'
    )
    await missing.stop()

    const probe = new ZfsSpaceProbe({ pool: POOL, intervalS: 60, log })
    await probe.sampleOnce()
    const good = /** @type {import('../../lib/snapshot/zfs-space.js').ZfsSample} */ (probe.sample())
    t.equal(good.stale, false, 'a round that succeeds: not stale')
    t.ok(
      /** @type {number} */ (good.zdb_s) > 0 &&
        /** @type {number} */ (good.sample_s) >= /** @type {number} */ (good.zdb_s),
      `its wall time measured: ${good.sample_s} s, of which zdb ${good.zdb_s} s`
    )
    probe.timeoutS = 0.05
    const started = Date.now()
    await probe.sampleOnce()
    const killed = /** @type {import('../../lib/snapshot/zfs-space.js').ZfsSample} */ (probe.sample())
    t.ok(Date.now() - started < 5000, `the round ended at the timeout (${Date.now() - started} ms)`)
    t.match(killed.error ?? '', /killed/, `zdb killed at its timeout: ${killed.error}`)
    t.ok(killed.stale && killed.errors >= 1, 'counted, and the figures marked stale')
    t.equal(killed.metaslabs, good.metaslabs, 'the last metaslab figures kept')
    t.equal(killed.at, good.at, 'with the time they were read')
    await probe.stop()
  })

  t.test('a recorded run on the pool samples it, exports it and reports it', async t => {
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
        '4',
        '-d',
        String(LIMIT_S),
        '--json',
        '--events',
        '/dev/null',
        '--record',
        recordDir,
        '--zfs-interval',
        String(INTERVAL_S)
      ],
      { t }
    )
    const metricsUrl = await run.metricsUrl(60000)
    const families = await waitFor(
      async () => {
        const page = await scrape(metricsUrl)
        return sampleValue(page.families, 'pgloadgen_zfs_metaslabs', { pool: POOL }) !== undefined && page.families
      },
      { what: "the pool's figures on /metrics", timeoutMs: 60000 }
    )
    for (const name of METRICS) {
      const value = sampleValue(families, name, { pool: POOL })
      t.ok(typeof value === 'number' && value > 0, `${name}{pool="${POOL}"} ${value}`)
    }
    t.equal(sampleValue(families, 'pgloadgen_zfs_sample_errors_total', { pool: POOL, tool: 'zdb' }), 0, 'no zdb failed')
    t.equal(
      sampleValue(families, 'pgloadgen_zfs_fragmentation_ratio', { pool: POOL }),
      undefined,
      'no fragmentation series: zfs-fuse has none'
    )
    const firstFree = sampleValue(families, 'pgloadgen_zfs_pool_free_bytes', { pool: POOL }) ?? 0
    const loadStarted = Date.now()
    await waitFor(
      async () => {
        const page = await scrape(metricsUrl)
        const free = sampleValue(page.families, 'pgloadgen_zfs_pool_free_bytes', { pool: POOL }) ?? Infinity
        return Date.now() - loadStarted >= LOAD_S * 1000 && free < firstFree
      },
      { what: `a round that sees the pool's free space below ${firstFree} B`, timeoutMs: (LIMIT_S - 30) * 1000 }
    )
    const loadS = (Date.now() - loadStarted) / 1000
    run.kill('SIGINT')
    const result = await run.exited
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-2000)}`)
    t.match(result.stderr, `the data directory is on ZFS dataset ${DATASET}`, 'the run says it found the dataset')

    const samples = (await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map(line => JSON.parse(line))
    const withZfs = samples.filter(s => s.zfs)
    const rounds = [...new Map(withZfs.map(s => [s.zfs.rounds, s.zfs])).values()]
    const first = rounds[0]
    // a sample carries the last round's figures: those before the first round ended have none (zdb
    // takes seconds on a loaded machine), every one after it has them
    const before = samples.findIndex(s => s.zfs)
    t.ok(
      before !== -1 && withZfs.length === samples.length - before,
      `${withZfs.length} of ${samples.length} samples carry zfs: all from the first round on`
    )
    t.ok(
      before <= Math.ceil(first?.sampling_s_total ?? 0) + 3,
      `${before} samples before the first round ended, which took ${first?.sampling_s_total} s`
    )
    const last = rounds[rounds.length - 1]
    // rounds never overlap: one starts every INTERVAL_S, or when the last one
    // ended when a round takes longer (zdb on a loaded machine)
    const roundS = last.sampling_s_total / last.rounds
    const due = loadS / Math.max(INTERVAL_S, roundS)
    t.ok(
      rounds.length >= Math.max(2, Math.floor(due / 2)),
      `${rounds.length} rounds in the samples, one every ${INTERVAL_S} s or ${roundS.toFixed(1)} s a round`
    )
    t.equal(first.pool, POOL, 'of the pool holding the data directory')
    for (const z of rounds) {
      t.ok(
        z.metaslabs > 0 &&
          z.free_segments > 0 &&
          z.largest_free_segment_bytes > 0 &&
          z.free_bytes > 0 &&
          z.size_bytes > 0,
        `round ${z.rounds}: ${z.metaslabs} metaslabs, ${z.free_segments} free segments, ` +
          `largest ${z.largest_free_segment_bytes} B, ${z.free_bytes} B free`
      )
      if (!(z.metaslabs > 0)) break
    }
    t.ok(
      rounds.every(z => z.stale === false && z.errors === 0),
      'no round failed'
    )
    t.ok(
      last.free_bytes < first.free_bytes,
      `the pool's free space fell as the load wrote: ${first.free_bytes} → ${last.free_bytes}`
    )
    // zdb reads the metaslabs' space maps as last written to disk, which
    // can lag the pool's own figures by several transaction groups (a round
    // of a loaded machine saw the same maps four times): never more free
    t.ok(
      last.metaslab_free_bytes <= first.metaslab_free_bytes,
      `the metaslabs' free space did not grow: ${first.metaslab_free_bytes} → ${last.metaslab_free_bytes}`
    )
    t.ok(
      last.allocated_bytes > first.allocated_bytes,
      `allocated grew: ${first.allocated_bytes} → ${last.allocated_bytes}`
    )
    t.equal(last.fragmentation_pct, null, 'fragmentation: null')
    t.match(last.fragmentation_unknown, /no fragmentation property/, `and why: ${last.fragmentation_unknown}`)
    t.ok(
      last.zdb_s > 0 && last.sampling_s_total >= last.zdb_s,
      `the cost measured: zdb ${last.zdb_s} s, ${last.sampling_s_total} s in ${last.rounds} rounds`
    )
    t.equal(
      typeof last.median_metaslab_free_share,
      'number',
      `median metaslab free share ${last.median_metaslab_free_share}`
    )

    const report = await runCli(['report', recordDir], { t })
    t.equal(report.code, 0, `pgloadgen report: exit 0; stderr: ${report.stderr}`)
    const html = await readFile(path.join(recordDir, 'report.html'), 'utf8')
    t.match(html, '<h2 id="zfs">ZFS pool</h2>', 'the report has the ZFS section')
    t.match(html, `ZFS pool ${POOL}: free space and largest free segment`, 'with its chart')
    t.match(html, /<table class="zfs">[\s\S]*?largest free segment[\s\S]*?<\/table>/, 'and its table')
    t.match(html, /no fragmentation property/, 'saying why fragmentation is unknown')
  })
}

/**
 * The registry's exposition, parsed as a scrape's.
 * @param {import('prom-client').Registry} registry
 */
async function registryFamilies(registry) {
  return parsePrometheusText(await registry.metrics())
}
