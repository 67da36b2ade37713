import path from 'node:path'
import { createRegistry } from '../../metrics/generator-metrics.js'
import { startHttpServer, reply } from '../../http/http-server.js'
import { StatsCollector } from '../../pgstats/collector.js'
import { statsView } from '../../pgstats/stats-view.js'
import { EventLog } from '../../recorder/event-log.js'
import { loadSchedule } from '../../sidecar/schedule.js'
import { Sidecar } from '../../sidecar/sidecar.js'
import { openTarget } from '../target.js'
import { StopSignal } from '../../helpers/stop-signal.js'
import { validateStatsArgs } from '../stats-options.js'

/**
 * pgloadgen sidecar: runs a schedule's actions against a server, with the
 * stats collector that its conditions read and that /metrics exports (with
 * the action metrics Grafana draws as annotations). Ends at the duration, at
 * SIGINT/SIGTERM, or when every rule has fired and none repeats.
 * @type {import('./action-commands.js').CommandRun}
 */
export async function sidecarCommand(args, { log }) {
  const options = await validateStatsArgs(args)
  const rules = await loadSchedule(args.schedule)
  const stop = new StopSignal(log)
  const registry = createRegistry()
  const events = new EventLog({ file: args.events, registry, log })
  const http = await startHttpServer({
    host: args.httpHost,
    port: options.httpPort,
    log,
    routes: {
      '/metrics': { GET: async (_req, res) => reply(res, 200, await registry.metrics(), registry.contentType) }
    }
  })
  log.info(`metrics on http://${args.httpHost}:${http.port}/metrics`)
  /** @type {import('../target.js').Target | null} */
  let target = null
  /** @type {StatsCollector | null} */
  let collector = null
  /** @type {Sidecar | null} */
  let sidecar = null
  try {
    target = await openTarget({ url: options.url, server: options.server, pgPort: options.pgPort, log })
    if (stop.requested) return 0
    const started = new StatsCollector({
      connectionString: target.connectionString,
      intervalS: options.statsIntervalS,
      registry,
      log,
      pgstattuple: args.pgstattuple
    })
    collector = started
    await started.start()
    sidecar = new Sidecar({
      rules,
      context: { connectionString: target.connectionString, events, log },
      stats: () => statsView(started.latest()),
      diskPath: target.embedded?.dataDir ?? path.resolve(args.dataDir ?? '.'),
      checkIntervalMs: Math.min(1000, options.statsIntervalS * 1000)
    })
    sidecar.start()
    const running = sidecar
    /** @type {NodeJS.Timeout | undefined} */
    let watcher
    const allDone = new Promise(resolve => {
      if (rules.some(r => !r.once)) return
      watcher = setInterval(() => {
        if (running.spent.size === rules.length && running.running.size === 0) resolve(undefined)
      }, 500)
    })
    await stop.wait(options.durationS, allDone)
    clearInterval(watcher)
    await sidecar.stop(10000)
    return 0
  } finally {
    await sidecar?.stop(0).catch(() => {})
    await collector?.stop().catch(() => {})
    await events.flush()
    await http.close()
    stop.dispose()
    await target?.embedded
      ?.stop()
      .catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
  }
}
