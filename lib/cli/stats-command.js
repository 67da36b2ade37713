import { createRegistry } from '../metrics/generator-metrics.js'
import { startHttpServer, reply } from '../http/http-server.js'
import { StatsCollector } from '../pgstats/collector.js'
import { openTarget } from './target.js'
import { StopSignal } from '../helpers/stop-signal.js'
import { pgstattupleMode, validateStatsArgs } from './stats-options.js'

/**
 * pgloadgen stats: the PostgreSQL statistics on GET /metrics, without load,
 * until the duration ends or SIGINT/SIGTERM (exit 0). A server that cannot
 * be reached is retried at every poll, like the old exporter did; the
 * failures are counted in pgloadgen_pgstats_poll_errors_total.
 * @param {import('./stats-options.js').StatsArgs} args
 * @param {{ log: import('../log.js').Logger }} io
 * @returns {Promise<number>}
 */
export async function statsCommand(args, { log }) {
  const options = await validateStatsArgs(args)
  const stop = new StopSignal(log)
  const registry = createRegistry()
  /** @type {import('./target.js').Target | null} */
  let target = null
  /** @type {StatsCollector | null} */
  let collector = null
  /** @type {Awaited<ReturnType<typeof startHttpServer>> | null} */
  let http = null
  try {
    http = await startHttpServer({
      host: args.httpHost,
      port: options.httpPort,
      log,
      routes: {
        '/metrics': { GET: async (_req, res) => reply(res, 200, await registry.metrics(), registry.contentType) }
      }
    })
    log.info(`metrics on http://${args.httpHost}:${http.port}/metrics`)
    target = await openTarget({ url: options.url, server: options.server, pgPort: options.pgPort, log })
    if (stop.requested) return 0
    collector = new StatsCollector({
      connectionString: target.connectionString,
      intervalS: options.statsIntervalS,
      registry,
      log,
      pgstattuple: pgstattupleMode(args)
    })
    await collector.start()
    log.info(`exporting the statistics of ${target.display} every ${options.statsIntervalS} s`)
    await stop.wait(options.durationS)
    return 0
  } finally {
    await collector?.stop().catch(() => {})
    await http?.close()
    if (target?.embedded) {
      await target.embedded
        .stop()
        .catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    }
    stop.dispose()
  }
}
