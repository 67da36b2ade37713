import { performance } from 'node:perf_hooks'
import path from 'node:path'
import { parseMix, mixOf } from '../config/mix.js'
import { parseDuration, parseInteger } from '../config/numbers.js'
import { chooseWorkload } from '../workloads/choose.js'
import { parseProtocol } from '../config/protocol.js'
import { scriptOrder } from './script-order.js'
import { createRegistry } from '../metrics/generator-metrics.js'
import { startHttpServer, reply } from '../http/http-server.js'
import { UsageError } from '../errors.js'
import { chooseUrl, openTarget } from './target.js'
import { resolveProfile } from '../embedded/profile.js'
import { StopSignal } from './stop-signal.js'
import { EventLog } from '../sidecar/events.js'
import { loadSchedule } from '../sidecar/schedule.js'
import { Sidecar } from '../sidecar/sidecar.js'
import { controlRoutes } from '../http/control.js'
import { statsView } from '../pgstats/stats-view.js'
import { parseStatsInterval } from './stats-command.js'
import { LoadSession } from '../lab/load-session.js'
import { DEFAULT_EVENTS_FILE } from './target-options.js'

/**
 * @typedef {object} RunArgs
 * @property {string} [pgUrl]
 * @property {unknown} concurrency
 * @property {unknown} httpPort
 * @property {string} httpHost
 * @property {string} [workload]
 * @property {string} [mix]
 * @property {string[]} [file]
 * @property {string[]} [builtin]
 * @property {boolean} [selectOnly]
 * @property {boolean} [skipSomeUpdates]
 * @property {string[]} [define]
 * @property {unknown} [scale]
 * @property {string} [randomSeed]
 * @property {string} protocol
 * @property {boolean} [vacuum]
 * @property {unknown} [duration]
 * @property {boolean} json
 * @property {string} dataDir
 * @property {string} profile
 * @property {unknown} pgPort
 * @property {boolean} reset
 * @property {unknown} connectTimeout
 * @property {unknown} shutdownTimeout
 * @property {unknown} verifyTimeout
 * @property {unknown} [rate]
 * @property {string} arrival
 * @property {unknown} [maxLag]
 * @property {string} events
 * @property {string} [schedule]
 * @property {string} [controlToken]
 * @property {boolean} pgStats
 * @property {unknown} statsInterval
 * @property {boolean} pgstattuple
 * @property {string} [record]
 */

/**
 * Validates every input first (exit 2 with nothing touched), then binds the
 * HTTP port, then opens the database. Loading the workload reads its
 * scripts or imports its module: still nothing touches a database.
 * @param {RunArgs} args
 * @param {readonly string[]} [argv]  the raw arguments: the order of -f and -b
 */
export async function validateRunArgs (args, argv = []) {
  if (args.maxLag !== undefined && args.rate === undefined) throw new UsageError('--max-lag needs --rate (it bounds the lag behind the schedule)')
  if (args.vacuum === true) throw new UsageError('--vacuum: pgloadgen never vacuums before a run; run pgloadgen vacuum, or a schedule')
  const concurrency = parseInteger(args.concurrency, '--concurrency', { min: 1, max: 10000 })
  const protocol = parseProtocol(args.protocol)
  const files = args.file ?? []
  const builtins = [...(args.builtin ?? []), ...(args.selectOnly ? ['select-only'] : []), ...(args.skipSomeUpdates ? ['simple-update'] : [])]
  const workload = await chooseWorkload({
    workload: args.workload,
    files,
    builtins,
    order: scriptOrder(argv, { files, builtins }),
    defines: args.define ?? [],
    scale: args.scale === undefined ? null : parseInteger(args.scale, '--scale', { min: 1, max: 2 ** 31 - 1 }),
    randomSeed: args.randomSeed,
    protocol
  })
  if (args.reset && workload.scripts) throw new UsageError('--reset drops a workload\'s tables; pgbench scripts have none of their own (pgloadgen init recreates pgbench\'s)')
  return {
    concurrency,
    protocol,
    workload,
    mix: args.mix === undefined ? mixOf(workload.types, workload.weights) : parseMix(args.mix, workload.types),
    httpPort: parseInteger(args.httpPort, '--http-port', { min: 0, max: 65535 }),
    pgPort: parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 }),
    durationS: args.duration === undefined ? null : parseDuration(args.duration, '--duration'),
    connectTimeoutS: parseDuration(args.connectTimeout, '--connect-timeout'),
    shutdownTimeoutS: parseDuration(args.shutdownTimeout, '--shutdown-timeout'),
    verifyTimeoutS: parseDuration(args.verifyTimeout, '--verify-timeout'),
    url: chooseUrl(args.pgUrl),
    rate: args.rate === undefined ? null : parsePositive(args.rate, '--rate'),
    arrival: parseArrival(args.arrival),
    maxLagMs: args.maxLag === undefined ? null : parsePositive(args.maxLag, '--max-lag'),
    statsIntervalS: parseStatsInterval(args.statsInterval),
    controlToken: parseControlToken(args.controlToken, process.env.PGLOADGEN_CONTROL_TOKEN),
    // checked now so that a typo fails before anything starts
    profile: checkedProfile(args)
  }
}

/**
 * An empty --control-token would leave control disabled on a non-loopback
 * address without saying so, so it is refused at start. An empty
 * PGLOADGEN_CONTROL_TOKEN counts as unset, as in a compose file that passes
 * the variable through whether or not it has a value.
 * @param {string | undefined} flag
 * @param {string | undefined} env
 */
function parseControlToken (flag, env) {
  const [value, source] = flag !== undefined ? [flag, '--control-token'] : [env || undefined, 'PGLOADGEN_CONTROL_TOKEN']
  if (value === undefined) return null
  if (value === '') throw new UsageError(`${source} must not be empty`)
  if (/\s/.test(value)) throw new UsageError(`${source} must not contain whitespace (it is sent as a Bearer token)`)
  return value
}

/**
 * The profile matters only for the embedded server; checked now so that a
 * typo fails before anything starts.
 * @param {RunArgs} args
 */
function checkedProfile (args) {
  if (!chooseUrl(args.pgUrl)) resolveProfile(args.profile)
  return args.profile
}

/**
 * @param {unknown} value
 * @param {string} flag
 */
function parsePositive (value, flag) {
  const n = Number(value)
  if (String(value).trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number, got "${value}"`)
  return n
}

/**
 * @param {string} value
 * @returns {'poisson' | 'fixed'}
 */
function parseArrival (value) {
  if (value !== 'poisson' && value !== 'fixed') throw new UsageError(`--arrival must be poisson or fixed, got "${value}"`)
  return value
}

/**
 * pgloadgen run: hammer PostgreSQL at fixed concurrency until the duration
 * ends or a signal arrives.
 * @param {RunArgs} args
 * @param {{ log: import('../log.js').Logger, stdout: { write: (s: string) => unknown }, argv?: readonly string[] }} io
 * @returns {Promise<number>} exit code
 */
export async function runCommand (args, { log, stdout, argv }) {
  const options = await validateRunArgs(args, argv)
  const rules = args.schedule ? await loadSchedule(args.schedule) : null
  const stop = new StopSignal(log)
  try {
    return await load(args, options, rules, stop, { log, stdout })
  } finally {
    stop.dispose()
  }
}

/**
 * @param {RunArgs} args
 * @param {Awaited<ReturnType<typeof validateRunArgs>>} options
 * @param {import('../sidecar/schedule.js').Rule[] | null} rules
 * @param {StopSignal} stop
 * @param {{ log: import('../log.js').Logger, stdout: { write: (s: string) => unknown } }} io
 */
async function load (args, options, rules, stop, { log, stdout }) {
  const registry = createRegistry()
  /** @type {LoadSession | null} */
  let session = null
  /** @type {Sidecar | null} */
  let sidecar = null
  /** @type {(() => void) | null} */
  let stopControl = null
  const recordDir = args.record ? path.resolve(args.record) : null
  // A recorded run keeps its events with its samples.
  const events = new EventLog({ file: recordDir && args.events === DEFAULT_EVENTS_FILE ? path.join(recordDir, 'events.ndjson') : args.events, registry, log })
  /** @type {import('../http/http-server.js').Routes} */
  const routes = {
    '/metrics': {
      GET: async (_req, res) => reply(res, 200, await registry.metrics(), registry.contentType)
    }
  }
  const http = await startHttpServer({ host: args.httpHost, port: options.httpPort, log, routes })
  log.info(`metrics on http://${args.httpHost}:${http.port}/metrics`)

  /** @type {import('./target.js').Target | null} */
  let target = null
  try {
    target = await openTarget({ url: options.url, dataDir: args.dataDir, profile: options.profile, pgPort: options.pgPort, log })
    if (stop.requested) return 0
    session = await LoadSession.open({
      connectionString: target.connectionString,
      display: target.display,
      embedded: target.embedded !== null,
      workload: options.workload,
      mix: options.mix,
      protocol: options.protocol,
      concurrency: options.concurrency,
      openLoop: options.rate === null ? null : { rate: options.rate, arrival: options.arrival, maxLagMs: options.maxLagMs },
      reset: args.reset,
      connectTimeoutS: options.connectTimeoutS,
      pgStats: args.pgStats ? { intervalS: options.statsIntervalS, pgstattuple: args.pgstattuple } : null,
      recordDir,
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
      describe: () => ({ workload: options.workload.name, types: options.workload.types, target: running.options.display, mode: options.rate === null ? 'closed' : 'open', rate: options.rate }),
      log
    })
    Object.assign(routes, control.routes)
    stopControl = control.stop
    if (stop.requested) return 0

    await session.start()
    if (rules) {
      sidecar = new Sidecar({
        rules,
        context: { connectionString: target.connectionString, events, log },
        stats: () => statsView(running.latestStats()),
        diskPath: target.embedded?.dataDir ?? process.cwd(),
        checkIntervalMs: 1000
      })
      sidecar.start()
    }
    const ticker = setInterval(() => log.info(progressLine(running.stats, running.generator, running.started)), 10000)
    await stop.wait(options.durationS)
    clearInterval(ticker)
    log.info('stopping: waiting for requests in flight')
    if (sidecar) await sidecar.stop(options.shutdownTimeoutS * 1000)
    const summary = await session.finish({ shutdownTimeoutS: options.shutdownTimeoutS, verifyTimeoutS: options.verifyTimeoutS })
    if (args.json) stdout.write(JSON.stringify(summary, null, 2) + '\n')
    else log.info(`done: ${summary.throughput} requests/s over ${summary.elapsed_s} s, ${summary.unexpected_failures} unexpected failures${options.workload.idTable === null ? '' : `, ${summary.acknowledged_inserts} inserts acknowledged`}`)
    return 0
  } finally {
    if (sidecar) await sidecar.stop(0).catch(() => {})
    await session?.close()
    stopControl?.()
    await events.flush()
    await http.close()
    if (target?.embedded) await target.embedded.stop().catch(err => log.warn(`stopping the embedded server: ${err.message}`))
  }
}

/**
 * The flags of a run as run.json keeps them: no secrets.
 * @param {RunArgs} args
 */
function describeArgs (args) {
  /** @type {Record<string, unknown>} */
  const kept = {}
  for (const [key, value] of Object.entries(args)) {
    if (key.includes('-') || key === '_' || key === '$0' || key === 'controlToken' || key === 'pgUrl') continue
    kept[key] = value
  }
  return kept
}

/**
 * @param {import('../metrics/request-stats.js').RequestStats} stats
 * @param {import('../generator/generator.js').Generator} generator
 * @param {number} started
 */
function progressLine (stats, generator, started) {
  const seconds = (performance.now() - started) / 1000
  const done = stats.done.reduce((a, b) => a + b, 0)
  const failed = stats.failed.reduce((a, b) => a + b, 0)
  return `${Math.round(seconds)} s: ${Math.round(done / seconds)} requests/s, ${failed} failed (${stats.unexpectedFailures} unexpected), ${generator.connections}/${generator.concurrency} connections`
}
