import { parseDuration, parseInteger } from '../config/numbers.js'
import { createRegistry } from '../metrics/generator-metrics.js'
import { startHttpServer, reply } from '../http/http-server.js'
import { StatsCollector } from '../pgstats/collector.js'
import { UsageError } from '../errors.js'
import { chooseUrl, openTarget } from './target.js'
import { resolveProfile } from '../embedded/profile.js'
import { withTarget } from './target-options.js'
import { StopSignal } from './stop-signal.js'

/** Options of the stats collector, shared by run and stats. */
export const statsOptions = {
  'stats-interval': { type: /** @type {const} */ ('string'), default: '10', describe: 'seconds between polls of the PostgreSQL statistics (1 to 3600)' },
  pgstattuple: { type: /** @type {const} */ ('boolean'), default: false, describe: 'also exact bloat from the pgstattuple extension, if installed (scans every table and index, once a minute)' }
}

/** @param {import('yargs').Argv} y */
export function statsBuilder (y) {
  return withTarget(y)
    .option('http-port', { alias: 'p', type: 'string', default: '9801', describe: 'port of /metrics (0: any free port)' })
    .option('http-host', { type: 'string', default: '127.0.0.1', describe: 'address of /metrics' })
    .option('duration', { alias: 'd', type: 'string', describe: 'seconds to run (or 15m, 2h); default until SIGINT/SIGTERM' })
    .options(statsOptions)
}

/**
 * --stats-interval: seconds (or with a unit), from 1 s to 1 h.
 * @param {unknown} value
 */
export function parseStatsInterval (value) {
  const seconds = parseDuration(value, '--stats-interval')
  if (seconds < 1 || seconds > 3600) throw new UsageError(`--stats-interval must be between 1 and 3600 seconds, got "${value}"`)
  return seconds
}

/**
 * @typedef {object} StatsArgs
 * @property {string} [pgUrl]
 * @property {unknown} httpPort
 * @property {string} httpHost
 * @property {unknown} statsInterval
 * @property {boolean} pgstattuple
 * @property {unknown} [duration]
 * @property {string} dataDir
 * @property {string} profile
 * @property {unknown} pgPort
 */

/**
 * Validates every input before anything starts (exit 2).
 * @param {StatsArgs} args
 */
export function validateStatsArgs (args) {
  const url = chooseUrl(args.pgUrl)
  if (!url) resolveProfile(args.profile)
  return {
    httpPort: parseInteger(args.httpPort, '--http-port', { min: 0, max: 65535 }),
    pgPort: parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 }),
    statsIntervalS: parseStatsInterval(args.statsInterval),
    durationS: args.duration === undefined ? null : parseDuration(args.duration, '--duration'),
    url
  }
}

/**
 * pgloadgen stats: the PostgreSQL statistics on GET /metrics, without load,
 * until the duration ends or SIGINT/SIGTERM (exit 0). A server that cannot
 * be reached is retried at every poll, like the old exporter did; the
 * failures are counted in pgloadgen_pgstats_poll_errors_total.
 * @param {StatsArgs} args
 * @param {{ log: import('../log.js').Logger }} io
 * @returns {Promise<number>}
 */
export async function statsCommand (args, { log }) {
  const options = validateStatsArgs(args)
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
      routes: { '/metrics': { GET: async (_req, res) => reply(res, 200, await registry.metrics(), registry.contentType) } }
    })
    log.info(`metrics on http://${args.httpHost}:${http.port}/metrics`)
    target = await openTarget({ url: options.url, dataDir: args.dataDir, profile: args.profile, pgPort: options.pgPort, log })
    if (stop.requested) return 0
    collector = new StatsCollector({ connectionString: target.connectionString, intervalS: options.statsIntervalS, registry, log, pgstattuple: args.pgstattuple })
    await collector.start()
    log.info(`exporting the statistics of ${target.display} every ${options.statsIntervalS} s`)
    await stop.wait(options.durationS)
    return 0
  } finally {
    await collector?.stop().catch(() => {})
    await http?.close()
    if (target?.embedded) await target.embedded.stop().catch(err => log.warn(`stopping the embedded server: ${err.message}`))
    stop.dispose()
  }
}
