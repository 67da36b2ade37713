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
import { statsView } from '../pgstats/stats-view.js'
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
import { abortLine, thresholdExitCode, thresholdFields } from '../summary/thresholds.js'

/** @typedef {import('./run-args.js').RunArgs} RunArgs */

/**
 * @param {RunArgs} args
 * @param {Awaited<ReturnType<typeof import('./run-args.js').validateRunArgs>>} options
 * @param {import('../sidecar/schedule.js').Rule[] | null} rules
 * @param {import('../helpers/stop-signal.js').StopSignal} stop
 * @param {{ log: import('../log.js').Logger, stdout: { write: (s: string) => unknown },
 *     screen: import('../terminal/screen.js').Screen }} io
 */
export async function runLoad(args, options, rules, stop, { log, stdout, screen }) {
  const { spec } = options
  // checked before anything binds a port or starts a server
  const zfsIntervalS = parseZfsInterval(/** @type {{ zfsInterval?: unknown }} */ (args).zfsInterval)
  const registry = createRegistry()
  /** @type {LoadSession | null} */
  let session = null
  /** @type {import('../sidecar/sidecar.js').Sidecar | null} */
  let sidecar = null
  /** @type {(() => void) | null} */
  let stopControl = null
  const { recordDir } = spec
  // A recorded run keeps its events with its samples.
  const events = new EventLog({
    file: recordDir && args.events === DEFAULT_EVENTS_FILE ? path.join(recordDir, 'events.ndjson') : args.events,
    registry,
    log
  })
  const scrapes = new ScrapeWatch()
  /** @type {import('../http/http-server.js').Routes} */
  const routes = {
    '/metrics': {
      GET: async (_req, res) => {
        reply(res, 200, await registry.metrics(), registry.contentType)
        scrapes.scraped()
      }
    }
  }
  const http = await startHttpServer({ host: args.httpHost, port: options.httpPort, log, routes })
  log.info(`metrics on http://${args.httpHost}:${http.port}/metrics`)

  /** @type {import('./target.js').Target | null} */
  let target = null
  /** @type {DiskThrottle | null} */
  let diskThrottle = null
  /** @type {Awaited<ReturnType<LoadSession['finish']>> | null} */
  let finished = null
  try {
    target = await openTarget({ url: options.url, server: options.server, pgPort: options.pgPort, log })
    if (options.diskLimit && target.embedded) {
      diskThrottle = await DiskThrottle.create({ dataDir: target.embedded.dataDir, limit: options.diskLimit, log })
      await diskThrottle.attach()
    }
    if (stop.requested) return 0
    // the data directory on ZFS: its pool's free space and metaslabs in the samples and on /metrics
    const zfs = await zfsSpaceProbeFor(localDataDir(target, args.dataDir), { intervalS: zfsIntervalS, registry, log })
    // the embedded server this run owns is started again when it stops on its own (a full pg_wal)
    const throttle = diskThrottle
    const serverWatch = target.embedded?.startedHere
      ? new ServerWatch({ server: target.embedded, events, log, afterStart: async () => throttle?.attach() })
      : null
    session = await LoadSession.open(spec, {
      target: {
        connectionString: target.connectionString,
        display: target.display,
        embedded: target.embedded !== null
      },
      disk: { dataDir: spec.pgStats ? localDataDir(target, args.dataDir) : null, events },
      probes: zfs ? [zfs] : [],
      serverWatch,
      describe: { command: 'run', args: describeArgs(args) },
      registry,
      log
    })
    const running = session
    const control = controlRoutes({
      generator: session.generator,
      stats: session.stats,
      events,
      host: args.httpHost,
      token: options.controlToken,
      describe: () => ({
        workload: spec.workload.name,
        types: spec.workload.types,
        target: running.place.target.display,
        mode: spec.rate === null ? 'closed' : 'open',
        rate: spec.rate,
        ...(spec.instance && { instance: formatShare(spec.instance) })
      }),
      share: spec.instance,
      log
    })
    Object.assign(routes, control.routes)
    stopControl = control.stop
    if (stop.requested) return 0

    // ready: an instance that got here after the start moment cannot join the others
    if (spec.startAtMs !== null) checkNotLate(spec.startAtMs, spec.instance)
    if (!(await session.start({ interrupted: stop.promise }))) return 0
    // A split load's schedule acts on the one server once: instance 0 runs it.
    if (rules && spec.instance && spec.instance.index !== 0)
      log.info(`--schedule: its actions run on instance 0 of ${spec.instance.parts}, not on this one`)
    else if (rules) {
      // the sidecar's actions (and their node-postgres connections) only for a run with a schedule
      const { Sidecar } = await import('../sidecar/sidecar.js')
      sidecar = new Sidecar({
        rules,
        context: {
          connectionString: target.connectionString,
          events,
          log,
          // retention during the load: the row audit must not count its removals as missing
          onRowsRemoved: (rows, table) => {
            if (isSameTable(table, spec.workload.auditTable)) running.noteRowsRemoved(rows)
          }
        },
        stats: () => statsView(running.latestStats()),
        diskPath: target.embedded?.dataDir ?? process.cwd(),
        checkIntervalMs: 1000
      })
      sidecar.start()
    }
    const scheduled = spec.rate !== null || spec.workload.pacing !== null
    const stopProgress = startRunProgress(screen, running, {
      everyS: options.progressS,
      scheduled,
      openLoop: spec.rate !== null
    })
    // --threshold-abort: the thresholds judged once a second on the running figures
    const watch = spec.thresholdAbort
      ? watchThresholds(running, spec.thresholds, { scheduled, warmupS: spec.warmupS })
      : null
    // The run ends at the duration, a signal, when every client did its -t requests, or when a threshold failed for
    // good.
    await stop.wait(
      spec.durationS,
      watch ? Promise.race([running.generator.limitReached, watch.failed]) : running.generator.limitReached
    )
    watch?.stop()
    stopProgress()
    const aborted = watch?.failure ?? null
    if (aborted) log.warn(abortLine(aborted), 'PGLG_W_THRESHOLD_ABORT')
    log.info('stopping: waiting for requests in flight')
    if (sidecar) await sidecar.stop(spec.shutdownTimeoutS * 1000)
    const summary = await session.finish({
      // each --threshold judged on the summary itself, in summary.json too
      ...(spec.thresholds.length > 0 && {
        judge: (/** @type {Record<string, any>} */ s) => thresholdFields(spec.thresholds, s, aborted)
      })
    })
    if (args.json) stdout.write(summaryJson(summary))
    finished = summary
    // 3 when a threshold failed
    return thresholdExitCode(summary)
  } finally {
    if (sidecar) await sidecar.stop(0).catch(() => {})
    await session?.close()
    stopControl?.()
    await events.flush()
    if (target?.embedded) {
      await target.embedded
        .stop()
        .catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    }
    // after the stop: a server pgloadgen did not start goes back to its own group
    await diskThrottle?.release().catch(err => log.warn(`disk limit: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    // the final counts scraped once everything else has stopped: nothing of the run waits on the server meanwhile
    if (finished) await finalScrape(scrapes, log)
    await http.close()
    // last, under the log of the shutdown: the table on stderr whatever --json
    // says, from the summary object --json printed
    const summary = finished
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
