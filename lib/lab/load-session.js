import { performance } from 'node:perf_hooks'
import { formatMix } from '../config/mix.js'
import { RequestStats } from '../metrics/request-stats.js'
import { registerGeneratorMetrics } from '../metrics/generator-metrics.js'
import { ThreadedGenerator } from '../generator/threaded-generator.js'
import { makeGenerator } from './session-generator.js'
import { RunState } from '../generator/run-state.js'
import { Pacer } from '../generator/pacer.js'
import { errorMessage } from '../helpers/error-message.js'
import { WorkloadServices } from './workload-services.js'
import { walPosition } from './server-wal.js'
import { DiskSpaceWatch } from './disk-space.js'
import { codedServerError } from '../pg/server-errors.js'
import { untilMoment } from '../scale/start-at.js'
import { formatShare } from '../scale/share.js'
import { LoadOverTime } from './load-over-time.js'
import { prepareTarget } from './session-setup.js'
import { finishSession } from './session-end.js'

// The recorder's modules are loaded by a recorded run (--record) only: a
// plain run does not carry them (session-setup.js and session-end.js load
// what they need of them, and the end's analysis, the same way).
const runInfo = () => import('../recorder/run-info.js')
const recorderModule = () => import('../recorder/recorder.js')
const vacuumsModule = () => import('../recorder/vacuums.js')

/** @typedef {import('./run-spec.js').RunSpec} RunSpec */

/**
 * Where a load runs and what it reports to: what is not a setting of the
 * run, given by the command that drives the session.
 * @typedef {object} SessionPlace
 * @property {{ connectionString: string, display: string, embedded: boolean }} target  display: without secrets
 * @property {{ dataDir: string | null, events: import('../recorder/event-log.js').EventLog | null }} [disk]  watch for
 *   a full disk (lib/lab/disk-space.js)
 * @property {string | null} [serverLogDir]  the server's data directory, when local: autovacuums are read from its log
 *   (else disk.dataDir)
 * @property {Probe[]} [probes]              more figures for the samples, each under its name (started and stopped with
 *   the session)
 * @property {import('./server-watch.js').ServerWatch | null} [serverWatch]  the embedded server the run owns, started
 *   again when it stops on its own (started with the load, stopped before the audit)
 * @property {Record<string, unknown>} describe  more facts for run.json (flags, plan step, label)
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 */

/**
 * The open loop's schedule, from the specification: its rate (of all
 * instances together), arrival, lag limit, the start moment that seeds a
 * shared Poisson schedule, and the --stages profile of the rate.
 * @typedef {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null, seed: number | null,
 *     profile: import('../config/stages.js').Profile | null }} OpenLoop
 */

/**
 * @param {Readonly<RunSpec>} spec
 * @returns {OpenLoop | null}
 */
export function openLoopOf({ rate, arrival, maxLagMs, startAtMs, stages }) {
  if (rate === null) return null
  return { rate, arrival, maxLagMs, seed: startAtMs, profile: stages?.profile ?? null }
}

/**
 * Something the session samples besides the server's statistics (a ZFS
 * pool's free space, say): started with the collector, stopped with it, and
 * read once a second by the recorder into each sample under `name`.
 * @typedef {object} Probe
 * @property {string} name
 * @property {() => Promise<void>} start
 * @property {() => Promise<void> | void} stop
 * @property {() => unknown} sample   the last figures, as plain data; null when none yet
 */

// One load on one server, from schema to summary: the generator, the stats
// collector and the recorder, started and stopped together. `pgloadgen run`
// drives one; an experiment drives one per variant and repetition.
export class LoadSession {
  /**
   * Connects, prepares the schema, reads the max id (session-setup.js),
   * starts the collector. Nothing is sent until start().
   * @param {Readonly<RunSpec>} spec
   * @param {SessionPlace} place
   */
  static async open(spec, place) {
    const prepared = await prepareTarget(spec, place)
    // The statistics collector and its metrics (14 modules) load only for a
    // run that polls: a run without is leaner (docs/performance.md).
    const Collector = spec.pgStats ? (await import('../pgstats/collector.js')).StatsCollector : null
    const session = new LoadSession(spec, place, { ...prepared, Collector })
    try {
      await session.services.open()
    } catch (err) {
      await session.services.stop()
      const message =
        `the ${spec.workload.name} workload's maintenance failed on ${place.target.display}: ` + errorMessage(err)
      throw codedServerError(message, err, 'PGLG_SCHEMA_FAILED')
    }
    await session.collector?.start()
    await session.disk?.start()
    for (const probe of place.probes ?? []) await probe.start()
    return session
  }

  /**
   * @param {Readonly<RunSpec>} spec
   * @param {SessionPlace} place
   * @param {object} prepared
   * @param {number} prepared.maxId
   * @param {string} prepared.serverVersion
   * @param {Record<string, string>} prepared.settings
   * @param {unknown} prepared.shared   what the workload's setup returned
   * @param {number | null} prepared.rowsBefore  the audited table's rows before the load
   * @param {typeof import('../pgstats/collector.js').StatsCollector | null} prepared.Collector  with spec.pgStats
   */
  constructor(spec, place, { maxId, serverVersion, settings, shared, rowsBefore, Collector }) {
    this.spec = spec
    this.place = place
    this.serverVersion = serverVersion
    this.settings = settings
    this.stats = new RequestStats(spec.workload.types)
    this.state = new RunState(maxId)
    this.openLoop = openLoopOf(spec)
    const { openLoop } = this
    this.pacer = openLoop ? new Pacer({ ...openLoop, share: spec.instance ?? undefined }) : null
    /** @type {import('../generator/generator.js').LoadGenerator} */
    this.generator = makeGenerator(spec, place, {
      shared,
      state: this.state,
      stats: this.stats,
      pacer: this.pacer,
      openLoop
    })
    const generator = this.generator
    this.rowsBefore = rowsBefore
    // rows that retention took away during the load, as the actions reported them
    this.rowsRemoved = 0
    this.services = new WorkloadServices({
      connectionString: place.target.connectionString,
      workload: spec.workload,
      shared,
      statsIntervalS: spec.statsIntervalS,
      registry: place.registry,
      log: place.log
    })
    registerGeneratorMetrics(place.registry, {
      stats: this.stats,
      connections: () => generator.connections,
      target: place.target.display
    })
    this.collector =
      spec.pgStats && Collector
        ? new Collector({
            connectionString: place.target.connectionString,
            intervalS: spec.statsIntervalS,
            registry: place.registry,
            log: place.log,
            pgstattuple: spec.pgstattuple
          })
        : null
    /** @type {import('../recorder/recorder.js').Recorder | null} */
    this.recorder = null
    /** @type {{ file: string, offset: number } | null} where the server log ended when the load started */
    this.logMark = null
    /** @type {string | null} the server's WAL insert position when the load started (recorded runs) */
    this.walAtStart = null
    this.disk = place.disk
      ? new DiskSpaceWatch({ ...place.disk, stats: this.stats, registry: place.registry, log: place.log })
      : null
    this.startedAt = new Date()
    this.started = 0
    this.cpuAtStart = process.cpuUsage()
    this.closed = false
    this.overTime = new LoadOverTime({
      stages: spec.stages,
      warmupS: spec.warmupS,
      openLoop: this.pacer !== null,
      stats: this.stats,
      generator,
      log: place.log
    })
  }

  /** What the stats held when --warmup ended (null: none, or not yet). */
  get warmupMark() {
    return this.overTime.mark
  }

  /** @type {import('./load-over-time.js').LoadClock} */
  loadClock = () => ({ seconds: (performance.now() - this.started) / 1000, cpu: process.cpuUsage(this.cpuAtStart) })

  /** The collector's last snapshot, for conditions and the recorder. */
  latestStats() {
    return this.collector?.latest() ?? null
  }

  /**
   * Starts the load; with startAtMs, everything is made ready first and the
   * load starts at that moment, unless `interrupted` settles before it.
   * @param {{ interrupted?: Promise<unknown> }} [options]
   * @returns {Promise<boolean>} false when interrupted before the start
   */
  async start({ interrupted } = {}) {
    const { spec, place } = this
    const at = spec.startAtMs
    // Threads load the workload before they can run a client (a quarter of
    // a second here): that is start-up, not load, and must not count in the
    // load's time nor make it start after --start-at.
    if (this.generator instanceof ThreadedGenerator) await this.generator.ready
    if (spec.recordDir) {
      await this.writeRunInfo(null)
      const { Recorder } = await recorderModule()
      this.logMark = await (await vacuumsModule()).serverLogMark(place.serverLogDir ?? place.disk?.dataDir ?? null)
      // the server's WAL over the load, for a recorded run's summary (server-wal.js):
      // read before waiting for --start-at, so that the load starts on time
      this.walAtStart = await walPosition(place.target.connectionString)
      this.recorder = new Recorder(
        spec.recordDir,
        {
          stats: this.stats,
          generator: this.generator,
          pgStats: () => this.latestStats(),
          table: spec.workload.table,
          workloadStats: spec.workload.statistics.length > 0 ? () => this.services.latest() : null,
          disk: this.disk && (() => this.disk?.sample() ?? null),
          probes: place.probes ?? [],
          warmupS: spec.warmupS ?? 0
        },
        place.log
      )
    }
    if (at !== null) {
      place.log.info(
        `ready; the load starts at ${new Date(at).toISOString()}, in ${((at - Date.now()) / 1000).toFixed(1)} s`
      )
      if (!(await untilMoment(at, interrupted))) return false
    }
    this.startedAt = new Date()
    this.started = performance.now()
    this.cpuAtStart = process.cpuUsage()
    // Parts of one schedule share its origin: the start moment, on the monotonic clock.
    this.pacer?.begin(at === null ? this.started : this.started - (this.startedAt.getTime() - at))
    if (this.generator instanceof ThreadedGenerator) this.generator.startSchedule(at ?? this.startedAt.getTime())
    this.services.start(this.generator, spec.concurrency, spec.instance ?? undefined)
    await place.serverWatch?.start()
    this.overTime.start(this.startedAt.getTime(), this.loadClock)
    await this.recorder?.start()
    const maxId = spec.workload.idTable === null ? '' : `; max id ${this.state.maxId}`
    const share = spec.instance
      ? ` (instance ${formatShare(spec.instance)} of ${spec.totalConcurrency} clients${this.pacer ? ` and ${spec.rate} requests/s` : ''})`
      : ''
    place.log.info(
      `running ${spec.workload.name} ${this.pacer ? `at ${this.pacer.rate} requests/s (${spec.arrival}) on` : 'at'} concurrency ${spec.concurrency}${share} against ${place.target.display} (PostgreSQL ${this.serverVersion}, protocol ${spec.protocol})${maxId}`
    )
    return true
  }

  /**
   * Rows a retention action removed from the audited table during the load.
   * @param {number} rows
   */
  noteRowsRemoved(rows) {
    this.rowsRemoved += rows
  }

  /**
   * Stops the load, checks the acknowledged inserts, and returns the summary
   * (session-end.js); with a record directory, also writes summary.json.
   * @param {Parameters<typeof finishSession>[1]} [end]
   */
  async finish(end) {
    return finishSession(this, end)
  }

  /** @param {Date | null} endedAt */
  async writeRunInfo(endedAt) {
    const { spec, place } = this
    const { writeRunInfo } = await runInfo()
    await writeRunInfo(/** @type {string} */ (spec.recordDir), {
      postgres_version: this.serverVersion,
      started_at: this.startedAt.toISOString(),
      ended_at: endedAt?.toISOString() ?? null,
      workload: spec.workload.name,
      workload_source: spec.workload.source,
      table: spec.workload.table,
      types: spec.workload.types,
      protocol: spec.protocol,
      concurrency: spec.concurrency,
      mix: formatMix(spec.mix),
      mode: this.openLoop ? 'open' : spec.workload.pacing ? 'paced' : 'closed',
      target: place.target.display,
      ...(spec.instance && { instance: formatShare(spec.instance), total_concurrency: spec.totalConcurrency }),
      ...(spec.startAtMs !== null && { start_at: new Date(spec.startAtMs).toISOString() }),
      settings: this.settings,
      // run.json keeps the seed: what makes the run's rows again
      ...(spec.seed !== null && { seed: spec.seed }),
      ...place.describe
    })
  }

  /** Stops whatever still runs; safe to call more than once. */
  async close() {
    if (this.closed) return
    this.closed = true
    this.overTime.stop()
    await this.generator.stop(0).catch(() => {})
    await this.place.serverWatch?.stop().catch(() => {})
    await this.recorder?.stop().catch(() => {})
    await this.services.stop().catch(() => {})
    await this.collector?.stop().catch(() => {})
    this.disk?.stop()
    for (const probe of this.place.probes ?? []) await Promise.resolve(probe.stop()).catch(() => {})
  }
}
