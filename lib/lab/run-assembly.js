import { DEFAULT_REQUEST_TIMEOUT_S } from '../config/run-settings.js'

// One load's LoadSession options, from the run's settings and where it
// runs: `pgloadgen run` (cli/run-load.js) and every phase of an experiment
// (experiment/runner.js) assemble their sessions here, so that a setting
// reaches the session, its clients and run.json the same way from both.

/**
 * The run's settings as the session needs them, checked (config/run-setting-checks.js).
 * @typedef {object} LoadSettings
 * @property {import('../config/protocol.js').Protocol} protocol
 * @property {number} concurrency            this process's clients
 * @property {number | null} [requestsPerClient]  -t (null: none)
 * @property {number | null} [seed]          --seed (null: none)
 * @property {number} statsIntervalS
 * @property {number | null} [requestTimeoutS]  --request-timeout (null: off; default DEFAULT_REQUEST_TIMEOUT_S)
 * @property {number | null} [statementTimeoutS]  --statement-timeout (null: the server's)
 * @property {number | null} [rate]          open loop: requests per second of the whole load (null: closed loop)
 * @property {'poisson' | 'fixed'} [arrival]
 * @property {number | null} [maxLagMs]
 * @property {number} [threads]
 * @property {import('./load-session.js').LoadOptions['stages']} [stages]  --stages: the clients', or with rate the
 *   rate's, profile
 * @property {number | null} [warmupS]   --warmup
 */

/**
 * @typedef {object} LoadAssembly
 * @property {{ connectionString: string, display: string, embedded: boolean }} target
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {import('../config/mix.js').Mix} mix
 * @property {LoadSettings} settings
 * @property {{ instance: import('../scale/share.js').Share | null, startAtMs: number | null,
 *     totalConcurrency: number }} [split]  --instance and --start-at
 * @property {import('../workloads/choose.js').WorkloadChoice} [workloadChoice]  how the workload was chosen: what
 *   threads load again
 * @property {boolean} reset
 * @property {number} connectTimeoutS
 * @property {{ pgstattuple: import('../pgstats/pgstattuple.js').PgstattupleMode } | null} pgStats   null: no
 *   statistics collector
 * @property {string | null} recordDir
 * @property {import('./load-session.js').LoadOptions['disk']} [disk]
 * @property {string | null} [serverLogDir]
 * @property {import('./load-session.js').Probe[]} [probes]   more figures for the samples (a ZFS pool's:
 *   lib/snapshot/zfs-space.js)
 * @property {import('./server-watch.js').ServerWatch | null} [serverWatch]  the embedded server the run owns, started
 *   again when it stops on its own
 * @property {Record<string, unknown>} describe   more facts for run.json
 * @property {import('prom-client').Registry} registry
 * @property {import('../log.js').Logger} log
 */

/**
 * @param {number | null | undefined} timeoutS  undefined: the default
 */
function requestTimeoutMs(timeoutS) {
  if (timeoutS === undefined) return DEFAULT_REQUEST_TIMEOUT_S * 1000
  return timeoutS === null ? null : Math.round(timeoutS * 1000)
}

/**
 * @param {LoadAssembly} load
 * @returns {import('./load-session.js').LoadOptions}
 */
export function loadOptions({
  target,
  workload,
  mix,
  settings,
  split,
  workloadChoice,
  reset,
  connectTimeoutS,
  pgStats,
  recordDir,
  disk,
  serverLogDir,
  probes,
  serverWatch,
  describe,
  registry,
  log
}) {
  const seed = settings.seed ?? null
  const startAtMs = split?.startAtMs ?? null
  return {
    connectionString: target.connectionString,
    display: target.display,
    embedded: target.embedded,
    workload,
    mix,
    protocol: settings.protocol,
    concurrency: settings.concurrency,
    clients: {
      requestsPerClient: settings.requestsPerClient ?? null,
      seed,
      requestTimeoutMs: requestTimeoutMs(settings.requestTimeoutS),
      statementTimeoutMs:
        settings.statementTimeoutS === undefined || settings.statementTimeoutS === null
          ? null
          : Math.max(1, Math.round(settings.statementTimeoutS * 1000))
    },
    // the start moment seeds the Poisson schedule, so that every instance draws the same one
    openLoop:
      settings.rate === undefined || settings.rate === null
        ? null
        : {
            rate: settings.rate,
            arrival: settings.arrival ?? 'poisson',
            maxLagMs: settings.maxLagMs ?? null,
            seed: startAtMs,
            profile: settings.stages?.profile ?? null
          },
    stages: settings.stages ?? null,
    warmupS: settings.warmupS ?? null,
    ...(split && { instance: split.instance, startAtMs, totalConcurrency: split.totalConcurrency }),
    ...(settings.threads !== undefined && { threads: settings.threads }),
    ...(workloadChoice && { workloadChoice: { ...workloadChoice, seed } }),
    reset,
    connectTimeoutS,
    pgStats: pgStats && { intervalS: settings.statsIntervalS, pgstattuple: pgStats.pgstattuple },
    recordDir,
    ...(disk && { disk }),
    ...(serverLogDir !== undefined && { serverLogDir }),
    ...(probes && probes.length > 0 && { probes }),
    ...(serverWatch && { serverWatch }),
    // run.json keeps the seed: what makes the run's rows again
    describe: { ...describe, ...(seed !== null && { seed }) },
    registry,
    log
  }
}
