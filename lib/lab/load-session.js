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

/**
 * @typedef {object} LoadOptions
 * @property {string} connectionString
 * @property {string} display                 the target without secrets
 * @property {boolean} embedded
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {import('../config/mix.js').Mix} mix
 * @property {'prepared' | 'extended' | 'simple'} protocol
 * @property {number} concurrency
 * @property {import('../config/run-settings.js').ClientSettings} [clients]  what each client is given: -t and the seed
 *   of its random numbers (default: neither)
 * @property {{ rate: number, arrival: 'poisson' | 'fixed', maxLagMs: number | null, seed?: number | null,
 *     profile?: import('../config/stages.js').Profile | null } | null} openLoop  rate: of all instances together
 * (profile: --stages)
 * @property {import('../scale/share.js').Share | null} [instance]  --instance: this process runs that share of the load
 *   (concurrency is the share already)
 * @property {number | null} [startAtMs]     --start-at: the load starts at that moment (epoch ms)
 * @property {number} [totalConcurrency]     the clients of all instances together
 * @property {number} [threads]              --threads: the load over that many worker threads
 * @property {{ stages: import('../config/stages.js').Stage[],
 *     profile: import('../config/stages.js').Profile } | null} [stages]
 *   --stages: a closed loop's clients follow the profile (an open loop's rate does: openLoop.profile)
 * @property {number | null} [warmupS]      --warmup: the first seconds of load are kept out of the summary
 * @property {import('../workloads/choose.js').WorkloadChoice} [workloadChoice]  how the workload was chosen: each
 *   thread loads it again
 * @property {boolean} reset                  drop and recreate the workload's tables first
 * @property {number} connectTimeoutS
 * @property {{ intervalS: number, pgstattuple: import('../pgstats/pgstattuple.js').PgstattupleMode } | null} pgStats
 *   null: no collector
 * @property {string | null} recordDir        samples, run.json and summary.json go there
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
   * @param {LoadOptions} options
   */
  static async open(options) {
    const { display, workload } = options
    const { maxId, serverVersion, settings, shared, rowsBefore } = await prepareTarget(options)
    // The statistics collector and its metrics (14 modules) load only for a
    // run that polls: a run without is leaner (docs/performance.md).
    const Collector = options.pgStats ? (await import('../pgstats/collector.js')).StatsCollector : null
    const session = new LoadSession(options, { maxId, serverVersion, settings, shared, rowsBefore, Collector })
    try {
      await session.services.open()
    } catch (err) {
      await session.services.stop()
      const message = `the ${workload.name} workload's maintenance failed on ${display}: ` + errorMessage(err)
      throw codedServerError(message, err, 'PGLG_SCHEMA_FAILED')
    }
    await session.collector?.start()
    await session.disk?.start()
    for (const probe of options.probes ?? []) await probe.start()
    return session
  }

  /**
   * @param {LoadOptions} options
   * @param {object} prepared
   * @param {number} prepared.maxId
   * @param {string} prepared.serverVersion
   * @param {Record<string, string>} prepared.settings
   * @param {unknown} prepared.shared   what the workload's setup returned
   * @param {number | null} prepared.rowsBefore  the audited table's rows before the load
   * @param {typeof import('../pgstats/collector.js').StatsCollector | null} prepared.Collector  with options.pgStats
   */
  constructor(options, { maxId, serverVersion, settings, shared, rowsBefore, Collector }) {
    this.options = options
    this.serverVersion = serverVersion
    this.settings = settings
    this.stats = new RequestStats(options.workload.types)
    this.state = new RunState(maxId)
    const { openLoop } = options
    this.pacer = openLoop
      ? new Pacer({
          rate: openLoop.rate,
          arrival: openLoop.arrival,
          maxLagMs: openLoop.maxLagMs,
          share: options.instance ?? undefined,
          seed: openLoop.seed ?? null,
          profile: openLoop.profile ?? null
        })
      : null
    /** @type {import('../generator/generator.js').LoadGenerator} */
    this.generator = makeGenerator(options, { shared, state: this.state, stats: this.stats, pacer: this.pacer })
    const generator = this.generator
    this.rowsBefore = rowsBefore
    // rows that retention took away during the load, as the actions reported them
    this.rowsRemoved = 0
    this.services = new WorkloadServices({
      connectionString: options.connectionString,
      workload: options.workload,
      shared,
      statsIntervalS: options.pgStats?.intervalS ?? 10,
      registry: options.registry,
      log: options.log
    })
    registerGeneratorMetrics(options.registry, {
      stats: this.stats,
      connections: () => generator.connections,
      target: options.display
    })
    this.collector =
      options.pgStats && Collector
        ? new Collector({
            connectionString: options.connectionString,
            intervalS: options.pgStats.intervalS,
            registry: options.registry,
            log: options.log,
            pgstattuple: options.pgStats.pgstattuple
          })
        : null
    /** @type {import('../recorder/recorder.js').Recorder | null} */
    this.recorder = null
    /** @type {{ file: string, offset: number } | null} where the server log ended when the load started */
    this.logMark = null
    /** @type {string | null} the server's WAL insert position when the load started (recorded runs) */
    this.walAtStart = null
    this.disk = options.disk
      ? new DiskSpaceWatch({ ...options.disk, stats: this.stats, registry: options.registry, log: options.log })
      : null
    this.startedAt = new Date()
    this.started = 0
    this.cpuAtStart = process.cpuUsage()
    this.closed = false
    this.overTime = new LoadOverTime({
      stages: options.stages ?? null,
      warmupS: options.warmupS ?? null,
      openLoop: this.pacer !== null,
      stats: this.stats,
      generator,
      log: options.log
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
    const { options } = this
    const at = options.startAtMs ?? null
    // Threads load the workload before they can run a client (a quarter of
    // a second here): that is start-up, not load, and must not count in the
    // load's time nor make it start after --start-at.
    if (this.generator instanceof ThreadedGenerator) await this.generator.ready
    if (options.recordDir) {
      await this.writeRunInfo(null)
      const { Recorder } = await recorderModule()
      this.logMark = await (await vacuumsModule()).serverLogMark(options.serverLogDir ?? options.disk?.dataDir ?? null)
      // the server's WAL over the load, for a recorded run's summary (server-wal.js):
      // read before waiting for --start-at, so that the load starts on time
      this.walAtStart = await walPosition(options.connectionString)
      this.recorder = new Recorder(
        options.recordDir,
        {
          stats: this.stats,
          generator: this.generator,
          pgStats: () => this.latestStats(),
          table: options.workload.table,
          workloadStats: options.workload.statistics.length > 0 ? () => this.services.latest() : null,
          disk: this.disk && (() => this.disk?.sample() ?? null),
          probes: options.probes ?? [],
          warmupS: options.warmupS ?? 0
        },
        options.log
      )
    }
    if (at !== null) {
      options.log.info(
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
    this.services.start(this.generator, options.concurrency, options.instance ?? undefined)
    await options.serverWatch?.start()
    this.overTime.start(this.startedAt.getTime(), this.loadClock)
    await this.recorder?.start()
    const maxId = options.workload.idTable === null ? '' : `; max id ${this.state.maxId}`
    const share = options.instance
      ? ` (instance ${formatShare(options.instance)} of ${options.totalConcurrency} clients${this.pacer ? ` and ${options.openLoop?.rate} requests/s` : ''})`
      : ''
    options.log.info(
      `running ${options.workload.name} ${this.pacer ? `at ${this.pacer.rate} requests/s (${options.openLoop?.arrival}) on` : 'at'} concurrency ${options.concurrency}${share} against ${options.display} (PostgreSQL ${this.serverVersion}, protocol ${options.protocol})${maxId}`
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
   * @param {Parameters<typeof finishSession>[1]} limits
   */
  async finish(limits) {
    return finishSession(this, limits)
  }

  /** @param {Date | null} endedAt */
  async writeRunInfo(endedAt) {
    const { options } = this
    const { writeRunInfo } = await runInfo()
    await writeRunInfo(/** @type {string} */ (options.recordDir), {
      postgres_version: this.serverVersion,
      started_at: this.startedAt.toISOString(),
      ended_at: endedAt?.toISOString() ?? null,
      workload: options.workload.name,
      workload_source: options.workload.source,
      table: options.workload.table,
      types: options.workload.types,
      protocol: options.protocol,
      concurrency: options.concurrency,
      mix: formatMix(options.mix),
      mode: options.openLoop ? 'open' : options.workload.pacing ? 'paced' : 'closed',
      target: options.display,
      ...(options.instance && { instance: formatShare(options.instance), total_concurrency: options.totalConcurrency }),
      ...(typeof options.startAtMs === 'number' && { start_at: new Date(options.startAtMs).toISOString() }),
      settings: this.settings,
      ...options.describe
    })
  }

  /** Stops whatever still runs; safe to call more than once. */
  async close() {
    if (this.closed) return
    this.closed = true
    this.overTime.stop()
    await this.generator.stop(0).catch(() => {})
    await this.options.serverWatch?.stop().catch(() => {})
    await this.recorder?.stop().catch(() => {})
    await this.services.stop().catch(() => {})
    await this.collector?.stop().catch(() => {})
    this.disk?.stop()
    for (const probe of this.options.probes ?? []) await Promise.resolve(probe.stop()).catch(() => {})
  }
}
