// The work of pgloadgen run once its input is checked: the metrics and
// control endpoints, the target, the load session, the schedule's sidecar,
// and the summary at the end.

import path from 'node:path'
import { createRegistry } from '../metrics/generator-metrics.js'
import { startHttpServer, reply } from '../http/http-server.js'
import { ScrapeWatch } from '../http/final-scrape.js'
import { openTarget } from './target.js'
import { EventLog } from '../recorder/event-log.js'
import { isSameTable } from '../sidecar/retention-spec.js'
import { controlRoutes } from '../http/control.js'
import { findTable, statsView } from '../pgstats/stats-view.js'
import { LoadSession } from '../lab/load-session.js'
import { localDataDir } from '../lab/disk-space.js'
import { parseZfsInterval, zfsSpaceProbeFor } from '../snapshot/zfs-space.js'
import { DEFAULT_EVENTS_FILE } from './target-options.js'
import { formatShare } from '../scale/share.js'
import { summaryJson } from '../summary/summary-json.js'
import { checkNotLate } from '../scale/instance-options.js'
import { DiskThrottle } from '../lab/disk-throttle.js'
import { ServerWatch } from '../lab/server-watch.js'
import { startRunProgress } from '../terminal/run-progress.js'
import { summaryTable } from '../terminal/summary-table.js'
import { watchThresholds } from '../lab/threshold-watch.js'
import { abortLine, thresholdExitCode, thresholdFields } from '../summary/threshold-verdicts.js'

/** @typedef {import('./run-args.js').RunArgs} RunArgs */

/** @typedef {Awaited<ReturnType<typeof import('./run-args.js').validateRunArgs>>} RunOptions */
/** @typedef {import('../log.js').Logger} Logger */

/**
 * @param {RunArgs} args
 * @param {RunOptions} options
 * @param {import('../sidecar/schedule.js').Rule[] | null} rules
 * @param {import('../helpers/stop-signal.js').StopSignal} stop
 * @param {{ log: Logger, stdout: { write: (s: string) => unknown },
 *     screen: import('../terminal/screen.js').Screen }} io
 */
export async function runLoad(args, options, rules, stop, { log, stdout, screen }) {
  // checked before anything binds a port or starts a server
  const zfsIntervalS = parseZfsInterval(/** @type {{ zfsInterval?: unknown }} */ (args).zfsInterval)
  const run = new RunCommand(args, options, log)
  await run.listen()
  try {
    await run.openTarget()
    if (stop.requested) return 0
    const session = await run.openSession(zfsIntervalS)
    if (stop.requested) return 0
    // ready: an instance that got here after the start moment cannot join the others
    const { spec } = options
    if (spec.startAtMs !== null) checkNotLate(spec.startAtMs, spec.instance)
    if (!(await session.start({ interrupted: stop.promise }))) return 0
    await run.startSidecar(rules)
    const summary = await run.drive(stop, screen)
    if (args.json) stdout.write(summaryJson(summary))
    // 3 when a threshold failed
    return thresholdExitCode(summary)
  } finally {
    await run.close(screen)
  }
}

/**
 * One `pgloadgen run`: what it opens, in order (the metrics endpoint, the
 * target, the load session and its control routes, the schedule's sidecar),
 * and closes, in reverse, whatever happened.
 */
class RunCommand {
  /**
   * @param {RunArgs} args
   * @param {RunOptions} options
   * @param {Logger} log
   */
  constructor(args, options, log) {
    this.args = args
    this.options = options
    this.spec = options.spec
    this.log = log
    this.registry = createRegistry()
    const { recordDir } = this.spec
    // A recorded run keeps its events with its samples.
    this.events = new EventLog({
      file: recordDir && args.events === DEFAULT_EVENTS_FILE ? path.join(recordDir, 'events.ndjson') : args.events,
      registry: this.registry,
      log
    })
    this.scrapes = new ScrapeWatch()
    /** @type {import('../http/http-server.js').Routes} */
    this.routes = {
      '/metrics': {
        GET: async (_req, res) => {
          reply(res, 200, await this.registry.metrics(), this.registry.contentType)
          this.scrapes.scraped()
        }
      }
    }
    /** @type {Awaited<ReturnType<typeof startHttpServer>> | null} */
    this.http = null
    /** @type {import('./target.js').Target | null} */
    this.target = null
    /** @type {DiskThrottle | null} */
    this.diskThrottle = null
    /** @type {LoadSession | null} */
    this.session = null
    /** @type {(() => void) | null} */
    this.stopControl = null
    /** @type {import('../sidecar/sidecar.js').Sidecar | null} */
    this.sidecar = null
    /** @type {Awaited<ReturnType<LoadSession['finish']>> | null} */
    this.summary = null
  }

  /** /metrics, and the control routes once the session is open. */
  async listen() {
    const { httpHost } = this.args
    this.http = await startHttpServer({
      host: httpHost,
      port: this.options.httpPort,
      log: this.log,
      routes: this.routes
    })
    this.log.info(`metrics on http://${httpHost}:${this.http.port}/metrics`)
  }

  /**
   * The server: the URL's, or the embedded one started (with --disk-limit,
   * on its slower disk).
   */
  async openTarget() {
    const { options, log } = this
    this.target = await openTarget({ url: options.url, server: options.server, pgPort: options.pgPort, log })
    if (options.diskLimit && this.target.embedded) {
      this.diskThrottle = await DiskThrottle.create({
        dataDir: this.target.embedded.dataDir,
        limit: options.diskLimit,
        log
      })
      await this.diskThrottle.attach()
    }
  }

  /**
   * The load session on the target, and the control routes that act on it.
   * @param {ReturnType<typeof parseZfsInterval>} zfsIntervalS
   */
  async openSession(zfsIntervalS) {
    const { args, spec, events, registry, log } = this
    const target = /** @type {import('./target.js').Target} */ (this.target)
    const dataDir = localDataDir(target, args.dataDir)
    // the data directory on ZFS: its pool's free space and metaslabs in the samples and on /metrics
    const zfs = await zfsSpaceProbeFor(dataDir, { intervalS: zfsIntervalS, registry, log })
    // the embedded server this run owns is started again when it stops on its own (a full pg_wal)
    const throttle = this.diskThrottle
    const serverWatch = target.embedded?.startedHere
      ? new ServerWatch({ server: target.embedded, events, log, afterStart: async () => throttle?.attach() })
      : null
    const session = await LoadSession.open(spec, {
      target: {
        connectionString: target.connectionString,
        display: target.display,
        embedded: target.embedded !== null
      },
      disk: { dataDir: spec.pgStats ? dataDir : null, events },
      probes: zfs ? [zfs] : [],
      serverWatch,
      describe: { command: 'run', args: describeArgs(args) },
      registry,
      log
    })
    this.session = session
    const control = controlRoutes({
      generator: session.generator,
      stats: session.stats,
      events,
      host: args.httpHost,
      token: this.options.controlToken,
      describe: () => ({
        workload: spec.workload.name,
        types: spec.workload.types,
        target: session.place.target.display,
        mode: spec.rate === null ? 'closed' : 'open',
        rate: spec.rate,
        ...(spec.instance && { instance: formatShare(spec.instance) })
      }),
      share: spec.instance,
      log
    })
    Object.assign(this.routes, control.routes)
    this.stopControl = control.stop
    return session
  }

  /**
   * The schedule's actions during the load. A split load's schedule acts on
   * the one server once: instance 0 runs it.
   * @param {import('../sidecar/schedule.js').Rule[] | null} rules
   */
  async startSidecar(rules) {
    const { spec, events, log } = this
    if (!rules) return
    if (spec.instance && spec.instance.index !== 0) {
      log.info(`--schedule: its actions run on instance 0 of ${spec.instance.parts}, not on this one`)
      return
    }
    const session = /** @type {LoadSession} */ (this.session)
    const target = /** @type {import('./target.js').Target} */ (this.target)
    // the sidecar's actions (and their node-postgres connections) only for a run with a schedule
    const { Sidecar } = await import('../sidecar/sidecar.js')
    this.sidecar = new Sidecar({
      rules,
      context: {
        connectionString: target.connectionString,
        events,
        log,
        // retention during the load: the row audit must not count its removals as missing
        onRowsRemoved: (rows, table) => {
          if (isSameTable(table, spec.workload.auditTable)) session.noteRowsRemoved(rows)
        }
      },
      stats: () => statsView(session.latestStats()),
      diskPath: target.embedded?.dataDir ?? process.cwd(),
      checkIntervalMs: 1000
    })
    this.sidecar.start()
  }

  /**
   * The load until it ends: at the duration, a signal, when every client did
   * its -t requests, or when a threshold failed for good; then its summary,
   * each --threshold judged on it.
   * @param {import('../helpers/stop-signal.js').StopSignal} stop
   * @param {import('../terminal/screen.js').Screen} screen
   */
  async drive(stop, screen) {
    const { spec, log } = this
    const session = /** @type {LoadSession} */ (this.session)
    const scheduled = spec.rate !== null || spec.workload.pacing !== null
    const { table } = spec.workload
    const stopProgress = startRunProgress(screen, session, {
      everyS: this.options.progressS,
      scheduled,
      openLoop: spec.rate !== null,
      autovacuum: () => {
        const snapshot = table === null ? null : session.latestStats()
        return (snapshot && findTable(snapshot.tables, /** @type {string} */ (table))?.autovacuumForecast) ?? null
      }
    })
    // --threshold-abort: the thresholds judged once a second on the running figures
    const watch = spec.thresholdAbort
      ? watchThresholds(session, spec.thresholds, { scheduled, warmupS: spec.warmupS })
      : null
    const limit = session.generator.limitReached
    await stop.wait(spec.durationS, watch ? Promise.race([limit, watch.failed]) : limit)
    watch?.stop()
    stopProgress()
    const aborted = watch?.failure ?? null
    if (aborted) log.warn(abortLine(aborted), 'PGLG_W_THRESHOLD_ABORT')
    log.info('stopping: waiting for requests in flight')
    if (this.sidecar) await this.sidecar.stop(spec.shutdownTimeoutS * 1000)
    this.summary = await session.finish({
      // each --threshold judged on the summary itself, in summary.json too
      ...(spec.thresholds.length > 0 && {
        judge: (/** @type {Record<string, any>} */ s) => thresholdFields(spec.thresholds, s, aborted)
      })
    })
    return this.summary
  }

  /**
   * Everything closed, in reverse; last, under the log of the shutdown, the
   * end table on stderr whatever --json says, from the summary --json printed.
   * @param {import('../terminal/screen.js').Screen} screen
   */
  async close(screen) {
    const { log } = this
    if (this.sidecar) await this.sidecar.stop(0).catch(() => {})
    await this.session?.close()
    this.stopControl?.()
    await this.events.flush()
    await this.target?.embedded
      ?.stop()
      .catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    // after the stop: a server pgloadgen did not start goes back to its own group
    await this.diskThrottle?.release().catch(err => log.warn(`disk limit: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    // the final counts scraped once everything else has stopped: nothing of the run waits on the server meanwhile
    if (this.summary) await finalScrape(this.scrapes, log)
    await this.http?.close()
    const { summary } = this
    const { recordDir } = this.spec
    if (summary) screen.print((colours, width) => summaryTable(summary, { colours, width, recordDir }))
  }
}

/**
 * Keeps /metrics up until a scraper that visited during the run has seen the
 * final counts (lib/http/final-scrape.js).
 * @param {ScrapeWatch} scrapes
 * @param {import('../log.js').Logger} log
 */
async function finalScrape(scrapes, log) {
  const waitMs = scrapes.waitMs()
  if (waitMs === 0) return
  log.info(`waiting for the final scrape of /metrics (at most ${(waitMs / 1000).toFixed(1)} s)`)
  if (!(await scrapes.final())) {
    log.warn('/metrics was not scraped again: the last seconds may be missing there', 'PGLG_W_METRICS_INCOMPLETE')
  }
}

/**
 * The flags of a run as run.json keeps them: no secrets.
 * @param {RunArgs} args
 */
function describeArgs(args) {
  /** @type {Record<string, unknown>} */
  const kept = {}
  for (const [key, value] of Object.entries(args)) {
    if (key.includes('-') || key === '_' || key === '$0' || key === 'controlToken' || key === 'pgUrl') continue
    kept[key] = value
  }
  return kept
}
