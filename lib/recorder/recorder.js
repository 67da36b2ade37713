import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { findTable } from '../pgstats/stats-view.js'
import { HostCpu } from './host-cpu.js'
import { P99Windows } from './p99-windows.js'
import { roundOrNull } from '../helpers/numbers.js'

/**
 * @typedef {object} RecorderSources
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../generator/generator.js').LoadGenerator} generator
 * @property {(() => import('../pgstats/snapshot.js').StatsSnapshot | null) | null} pgStats
 * @property {string | null} table   the workload's table (null: none)
 * @property {(() => Record<string, number | null>) | null} [workloadStats]  the workload's own statistics
 * @property {(() => Record<string, number | boolean | null> | null) | null} [disk]  the data directory's free space and
 *   the disk-full state
 * @property {Array<{ name: string, sample: () => unknown }>} [probes]  more figures, each under its name
 *   (lib/lab/load-session.js Probe)
 * @property {number} [warmupS]   --warmup: the samples of its seconds are marked (warmup: true)
 */

// Writes one sample a second to samples.ndjson in the run directory: what
// the generator did in that second (requests, failures and latency
// percentiles per type, from its own histograms), its concurrency and CPU,
// and the collector's last PostgreSQL figures for the workload's table.
// Lines are buffered and appended once a second; nothing grows in memory.
export class Recorder {
  /**
   * @param {string} dir
   * @param {RecorderSources} sources
   * @param {import('../log.js').Logger} log
   */
  constructor(dir, sources, log) {
    this.dir = dir
    this.file = path.join(dir, 'samples.ndjson')
    this.sources = sources
    this.log = log
    this.started = Date.now()
    this.previousDone = Float64Array.from(sources.stats.done)
    this.previousFailed = Float64Array.from(sources.stats.failed)
    this.previousLag = Float64Array.from(sources.stats.lag.counts)
    this.previousLagCount = sources.stats.lag.count
    this.previousRows = 0
    this.previousPoints = 0
    this.previousLatency = sources.stats.latency.map(h => Float64Array.from(h.counts))
    this.windows = new P99Windows(sources.stats.latency)
    this.lagWindow = new P99Windows([sources.stats.lag])
    this.previousCpu = process.cpuUsage()
    this.host = new HostCpu()
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    /** @type {Promise<void>} */
    this.writing = Promise.resolve()
  }

  async start() {
    // the samples count from the start of the load, which may come long after the recorder was made (--start-at)
    this.started = Date.now()
    this.previousCpu = process.cpuUsage()
    await mkdir(this.dir, { recursive: true })
    await writeFile(this.file, '')
    // The events file exists even when nothing happens, so the directory is complete.
    await appendFile(path.join(this.dir, 'events.ndjson'), '')
    this.timer = setInterval(() => this.sample(), 1000)
  }

  sample() {
    const { stats, generator, pgStats, table } = this.sources
    /** @type {Record<string, import('./records.js').RequestFigures>} */
    const requests = {}
    let throughput = 0
    for (let i = 0; i < stats.types.length; i++) {
      const done = stats.done[i] - this.previousDone[i]
      throughput += done
      const histogram = stats.latency[i]
      const window = this.windows.close(i)
      requests[stats.types[i]] = {
        done,
        failed: stats.failed[i] - this.previousFailed[i],
        p50_us: roundOrNull(histogram.quantileSince(this.previousLatency[i], 0.5)),
        p99_us: roundOrNull(histogram.quantileSince(this.previousLatency[i], 0.99)),
        ...(window && { window })
      }
      this.previousLatency[i].set(histogram.counts)
    }
    this.previousDone.set(stats.done)
    this.previousFailed.set(stats.failed)
    const rows = sum(stats.rows)
    const points = sum(stats.points)
    // open loop and paced clients: how late the requests of that second started
    const lagWindow = this.lagWindow.close(0)
    const lag =
      stats.lag.count > this.previousLagCount
        ? {
            p50_us: roundOrNull(stats.lag.quantileSince(this.previousLag, 0.5)),
            p99_us: roundOrNull(stats.lag.quantileSince(this.previousLag, 0.99)),
            ...(lagWindow && { window: lagWindow })
          }
        : null
    this.previousLag.set(stats.lag.counts)
    this.previousLagCount = stats.lag.count
    const cpu = process.cpuUsage(this.previousCpu)
    this.previousCpu = process.cpuUsage()
    const snapshot = pgStats?.() ?? null
    const elapsedS = Math.round((Date.now() - this.started) / 100) / 10
    const line = {
      t: new Date().toISOString(),
      elapsed_s: elapsedS,
      // a sample describes the second that ends at elapsed_s: in the warm-up when that second is
      ...(elapsedS - 0.5 < (this.sources.warmupS ?? 0) && { warmup: true }),
      concurrency: generator.concurrency,
      connections: generator.connections,
      // cumulative: a rise between two samples is a reconnect in that second
      reconnects: generator.reconnects,
      paused: generator.paused,
      throughput,
      rows: rows - this.previousRows,
      points: points - this.previousPoints,
      requests,
      ...(lag && { lag }),
      cpu_us: cpu,
      memory: memoryFigures(),
      // the whole machine's: what else ran besides the load and the server
      host: this.host.sample(),
      pg: pgFigures(snapshot, table),
      server: serverFigures(snapshot),
      ...(this.sources.workloadStats && { workload: this.sources.workloadStats() }),
      ...(this.sources.disk && { disk: this.sources.disk() }),
      ...Object.fromEntries((this.sources.probes ?? []).map(probe => [probe.name, probe.sample()]))
    }
    this.previousRows = rows
    this.previousPoints = points
    this.writing = this.writing
      .then(() => appendFile(this.file, JSON.stringify(line) + '\n'))
      .catch(err =>
        this.log.warn(`cannot write a sample to ${this.file}: ${err.message}`, 'PGLG_W_RECORD_WRITE_FAILED')
      )
  }

  async stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.writing
  }
}

/** @param {Float64Array} values */
function sum(values) {
  let total = 0
  for (let i = 0; i < values.length; i++) total += values[i]
  return total
}

// At most this many of the server's running vacuums and xmin holders in a
// sample: the oldest holders and every vacuum a small lab runs at once.
const MAX_VACUUMS = 8
const MAX_HOLDERS = 5

/**
 * What the server did that can explain a change in the run
 * (lib/analysis/observations.js), as of the last poll: every running
 * vacuum and the checkpoint counters (the whole server's: they take its
 * I/O), and the oldest xmin holders and the lock waits that bear on the
 * run's database.
 * @param {import('../pgstats/snapshot.js').StatsSnapshot | null} snapshot
 */
export function serverFigures(snapshot) {
  if (!snapshot) return null
  // A session holds back the vacuum of this database's tables only when it
  // is connected to it (or is a replication slot, which holds every
  // database's); locks on its tables are waited for by its own sessions.
  const here = (/** @type {string | null} */ datname) => datname === null || datname === snapshot.datname
  const locksHere = snapshot.locks?.byDatabase[snapshot.datname] ?? null
  return {
    polled_at: new Date(snapshot.time * 1000).toISOString(),
    vacuums: snapshot.vacuums.slice(0, MAX_VACUUMS).map(v => ({
      pid: v.pid,
      table: v.schemaname ? `${v.schemaname}.${v.relname}` : v.relname,
      mode: v.mode,
      phase_name: v.phaseName,
      started_at: v.startedAt,
      // in the run's database (another's table is named by its oid)
      here: here(v.datname),
      // what the major has (17+, 18+); null elsewhere
      dead_tuple_bytes: v.deadTupleBytes,
      max_dead_tuple_bytes: v.maxDeadTupleBytes,
      indexes_total: v.indexesTotal,
      indexes_processed: v.indexesProcessed,
      delay_time_s: v.delayTimeS
    })),
    // how close the run's database is to an anti-wraparound vacuum
    database: databaseAges(snapshot),
    checkpoints: snapshot.checkpoints ?? null,
    connections: snapshot.connections ?? null,
    wal: snapshot.wal ?? null,
    horizon: snapshot.horizon
      .filter(h => h.kind === 'slot' || here(h.datname))
      .slice(0, MAX_HOLDERS)
      .map(h => ({
        kind: h.kind,
        pid: h.pid,
        application_name: h.applicationName,
        name: h.name,
        state: h.state,
        xact_age_s: h.xactAgeS,
        xmin_age: h.xminAge
      })),
    locks: snapshot.locks
      ? {
          waiting: locksHere?.waiting ?? 0,
          longest_wait_s: locksHere?.longestWaitS ?? null,
          blockers: snapshot.locks.blockers
            .filter(b => here(b.datname))
            .map(b => ({ pid: b.pid, application_name: b.applicationName })),
          waiting_on_server: snapshot.locks.waiting
        }
      : null
  }
}

/**
 * age(datfrozenxid) and mxid_age(datminmxid) of the run's database.
 * @param {import('../pgstats/snapshot.js').StatsSnapshot} snapshot
 */
function databaseAges(snapshot) {
  const database = snapshot.databases.find(d => d.datname === snapshot.datname)
  return database ? { xid_age: database.xidAge, mxid_age: database.mxidAge } : null
}

/**
 * @param {import('../pgstats/snapshot.js').StatsSnapshot | null} snapshot
 * @param {string | null} table
 */
function pgFigures(snapshot, table) {
  if (!snapshot || table === null) return null
  const row = findTable(snapshot.tables, table)
  // a vacuum of the table, or of one of its partitions
  const vacuum =
    snapshot.vacuums.find(
      v => (v.relname === row?.relname && v.schemaname === row?.schemaname) || (row && v.rootRelname === row.relname)
    ) ?? null
  return {
    table,
    live_tuples: row?.liveTuples ?? null,
    dead_tuples: row?.deadTuples ?? null,
    table_bytes: row?.totalBytes ?? null,
    index_bytes: row?.indexBytes ?? null,
    xid_age: row?.xidAge ?? null,
    mxid_age: row?.mxidAge ?? null,
    ...(row?.partitions !== undefined && { partitions: row.partitions }),
    vacuum: vacuum && {
      phase: vacuum.phase,
      phase_name: vacuum.phaseName,
      mode: vacuum.mode,
      heap_blks_total: vacuum.heapBlksTotal,
      heap_blks_scanned: vacuum.heapBlksScanned,
      heap_blks_vacuumed: vacuum.heapBlksVacuumed,
      started_at: vacuum.startedAt
    },
    autovacuum_forecast: row?.autovacuumForecast
      ? {
          reason: row.autovacuumForecast.reason,
          next_s: row.autovacuumForecast.nextS,
          crossing_s: row.autovacuumForecast.crossingS,
          duration_s: row.autovacuumForecast.durationS,
          at: row.autovacuumForecast.atS
        }
      : null
  }
}

/**
 * The generator's memory: resident, and the main thread's JavaScript heap
 * and the buffers outside it, so that a rise over a long run can be put
 * down to one of them or to what lies outside both (the allocator, other
 * threads). Bytes.
 * @returns {import('./records.js').MemoryFigures}
 */
function memoryFigures() {
  const m = process.memoryUsage()
  return { rss: m.rss, heap_total: m.heapTotal, heap_used: m.heapUsed, external: m.external }
}
