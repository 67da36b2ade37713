import { performance } from 'node:perf_hooks'
import path from 'node:path'
import { writeFile } from 'node:fs/promises'
import { formatMix } from '../config/mix.js'
import { RequestStats } from '../metrics/request-stats.js'
import { registerGeneratorMetrics } from '../metrics/generator-metrics.js'
import { ThreadedGenerator } from '../generator/threaded-generator.js'
import { makeGenerator } from './session-generator.js'
import { RunState } from '../generator/run-state.js'
import { Pacer } from '../generator/pacer.js'
import { errorMessage } from '../helpers/error-message.js'
import { WorkloadServices } from './workload-services.js'
import { walPosition, walSince } from './server-wal.js'
import { DiskSpaceWatch } from './disk-space.js'
import { codedServerError } from '../pg/server-errors.js'
import { untilMoment } from '../scale/start-at.js'
import { formatShare } from '../scale/share.js'
import { LoadOverTime } from './load-over-time.js'
import { prepareTarget } from './session-setup.js'
import { openLoopOf } from './run-spec.js'
import { monotonicEpochMs } from '../generator/clock.js'
import { countInDoubtRows, countTableRows, verifyInserts } from './audit.js'
import { buildSummary } from '../summary/summary.js'
import { summaryJson } from '../summary/summary-json.js'
import { withoutWarmup } from '../summary/warmup.js'

// The recorder's modules are loaded by a recorded run (--record) only: a
// plain run does not carry them (session-setup.js loads what it needs of
// them, and the end's analysis, the same way).
const runInfo = () => import('../recorder/run-info.js')
const recorderModule = () => import('../recorder/recorder.js')
const vacuumsModule = () => import('../recorder/vacuums.js')

/** @typedef {import('./run-spec.js').RunSpec} RunSpec */

/** @typedef {import('./session-place.js').SessionPlace} SessionPlace */

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
   * Stops the load (waiting for requests in flight up to the shutdown
   * timeout), checks the acknowledged inserts, and returns the summary; with
   * a record directory, also writes summary.json and the end time into
   * run.json. judge: fields the summary gains from a look at itself (the
   * thresholds' verdicts), before summary.json is written.
   * @param {{ judge?: (summary: Record<string, any>) => Record<string, unknown> }} [end]
   */
  async finish({ judge } = {}) {
    const ended = await this.stopLoad()
    // a start of the server under way ends first: what follows reads the server it brought back
    const serverDown = (await this.place.serverWatch?.stop()) ?? false
    const serverWalBytes =
      this.spec.recordDir && !serverDown ? await walSince(this.place.target.connectionString, this.walAtStart) : null
    await this.recorder?.stop()
    this.disk?.check()
    this.disk?.stop()
    // a server that stopped on its own and stays down has nothing to read (server-watch.js said why)
    const audit = serverDown ? null : await this.audit()
    const summary = this.summaryOf(ended, audit)
    if (judge) Object.assign(summary, judge(summary))
    if (this.spec.recordDir) await this.writeRecord(this.spec.recordDir, summary, serverWalBytes)
    return summary
  }

  /**
   * The load stopped, and its time: requests completed during the grace
   * period count, so the time does too; closing the connections and the
   * threads afterwards does not.
   */
  async stopLoad() {
    const { generator } = this
    const { shutdownTimeoutS } = this.spec
    const finalConcurrency = generator.concurrency
    this.overTime.stop()
    // The ramp and the maintenance end first: no client may start while the others stop.
    await this.services.stop()
    const finished = await generator.stop(shutdownTimeoutS * 1000)
    const now = monotonicEpochMs()
    const endedMs = Math.min(generator.requestsEndedMs ?? now, now)
    const elapsedS = Math.max(0, endedMs - (performance.timeOrigin + this.started)) / 1000
    const endedAt = new Date(Date.now() - (now - endedMs))
    const cpuUsage = process.cpuUsage(this.cpuAtStart)
    if (!finished) {
      this.place.log.warn(`requests still in flight after ${shutdownTimeoutS} s were abandoned`, 'PGLG_W_ABANDONED')
    }
    return { finished, finalConcurrency, elapsedS, endedAt, cpuUsage }
  }

  /**
   * The acknowledged inserts checked, and the audited table's rows and its
   * writes in doubt counted (audit.js): null where the workload has none.
   */
  async audit() {
    const { spec, state } = this
    const { connectionString } = this.place.target
    const { idTable, auditTable, idFingerprint } = spec.workload
    const limitMs = spec.verifyTimeoutS * 1000
    const { log } = this.place
    return {
      inserts:
        idTable === null ? null : await verifyInserts(connectionString, idTable, idFingerprint, state, limitMs, log),
      rowsAfter: auditTable === null ? null : await countTableRows(connectionString, auditTable, limitMs, log),
      inDoubtStored: auditTable === null ? null : await countInDoubtRows(connectionString, state.inDoubt, limitMs, log)
    }
  }

  /**
   * The summary of the ended load.
   * @param {Awaited<ReturnType<LoadSession['stopLoad']>>} ended
   * @param {Awaited<ReturnType<LoadSession['audit']>> | null} audit   null: the server stayed down
   */
  summaryOf({ finished, finalConcurrency, elapsedS, endedAt, cpuUsage }, audit) {
    const { spec, place, state, generator } = this
    const { idTable, auditTable } = spec.workload
    const insertAudit = audit?.inserts ?? null
    const load = {
      stats: this.stats,
      elapsedS,
      workload: spec.workload.name,
      protocol: spec.protocol,
      concurrency: spec.concurrency,
      finalConcurrency,
      target: place.target.display,
      mix: formatMix(spec.mix),
      reconnects: generator.reconnects,
      // every acknowledgement, including those whose rows went since
      acknowledgedInserts: state.acknowledged.acknowledged,
      acknowledgedMissing: insertAudit?.missing ?? null,
      // without the check, what the run itself proved: ids acknowledged twice
      acknowledgedVanished: insertAudit?.vanished ?? state.acknowledged.replaced,
      insertsInDoubt:
        idTable === null ? null : { writes: state.insertsInDoubt().length, stored: insertAudit?.inDoubtStored ?? null },
      serverVersion: this.serverVersion,
      embedded: place.target.embedded,
      abandonedInFlight: !finished,
      cpuUsage,
      // an instance's rate is its share of the schedule's
      openLoop:
        this.pacer && this.openLoop ? { ...this.openLoop, rate: this.pacer.rate, skipped: generator.skipped } : null,
      startedAt: this.startedAt,
      endedAt,
      instance: spec.instance
        ? { share: spec.instance, totalConcurrency: spec.totalConcurrency, totalRate: spec.rate }
        : null,
      startAtMs: spec.startAtMs,
      pacing: spec.workload.pacing,
      diskFull: this.disk?.summary() ?? null,
      serverRestarts: place.serverWatch?.restarts ?? null,
      rowAudit: auditTable === null ? null : this.rowAudit(auditTable, audit),
      stages: spec.stages?.stages ?? null
    }
    return buildSummary(
      withoutWarmup(
        load,
        this.overTime.markAtEnd(() => ({ seconds: elapsedS, cpu: cpuUsage }))
      )
    )
  }

  /**
   * The audited table's rows before and after, those retention removed, and
   * the writes in doubt.
   * @param {string} table
   * @param {Awaited<ReturnType<LoadSession['audit']>> | null} audit
   */
  rowAudit(table, audit) {
    const { inDoubt } = this.state
    return {
      table,
      before: this.rowsBefore,
      after: audit?.rowsAfter ?? null,
      removed: this.rowsRemoved,
      inDoubt: {
        writes: inDoubt.length,
        rows: inDoubt.reduce((sum, write) => sum + write.rows, 0),
        stored: audit?.inDoubtStored ?? null
      }
    }
  }

  /**
   * What a recorded run adds to summary.json: its vacuums, what changed and
   * why, its anti-wraparound autovacuums, and the server's WAL; and the end
   * time in run.json. Their modules are loaded by a recorded run only.
   * @param {string} recordDir
   * @param {Record<string, any>} summary
   * @param {number | null} serverWalBytes
   */
  async writeRecord(recordDir, summary, serverWalBytes) {
    const { spec } = this
    const logMark = this.logMark ?? null
    const { recordVacuums } = await vacuumsModule()
    const { recordedChanges } = await import('../analysis/run-changes.js')
    const { recordWraparound } = await import('../recorder/wraparound.js')
    // what each vacuum cost (lib/recorder/vacuums.js)
    const vacuums = await recordVacuums(recordDir, logMark).catch(err => ({
      vacuums: [],
      autovacuum_source: `none: ${errorMessage(err)}`
    }))
    // when the load changed and what the lab saw then (lib/analysis/explain.js)
    const changes = await recordedChanges(recordDir, logMark, spec.statsIntervalS).catch(err => ({
      changes: null,
      changes_method: { error: errorMessage(err) }
    }))
    Object.assign(summary, changes)
    // the anti-wraparound autovacuums of the table, the failsafes and their latency cost (lib/recorder/wraparound.js)
    const wraparound = await recordWraparound(recordDir, logMark, spec.workload.table).catch(err => ({
      error: errorMessage(err)
    }))
    // how far the table's autovacuums started from their forecasts (lib/analysis/forecast-check.js)
    const forecast = spec.pgStats ? await this.forecastCheck(recordDir) : null
    Object.assign(summary, forecast && { autovacuum_forecast: forecast })
    await writeFile(
      path.join(recordDir, 'summary.json'),
      summaryJson({ ...summary, server_wal_bytes: serverWalBytes, ...vacuums, ...(wraparound && { wraparound }) })
    )
    await this.writeRunInfo(new Date())
  }

  /**
   * The autovacuum forecasts of the run's table against its autovacuums' starts.
   * @param {string} recordDir
   */
  async forecastCheck(recordDir) {
    const { recordedForecastCheck } = await import('../analysis/forecast-check.js')
    const log = { logMark: this.logMark ?? null, table: this.spec.workload.table }
    return recordedForecastCheck(recordDir, this.settings.autovacuum_naptime ?? null, log).catch(err => ({
      error: errorMessage(err)
    }))
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
