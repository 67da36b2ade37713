import { parseInteger } from '../config/number-flags.js'
import { RUN_SETTINGS } from '../config/run-settings.js'
import { buildRunSpec } from '../lab/run-spec.js'
import { pgstattupleMode } from './stats-options.js'
import { checkSetting, parseRunSettings } from '../config/run-setting-checks.js'
import { chooseWorkload } from '../workloads/choose.js'
import { InputError } from '../errors.js'
import { chooseTarget, chooseUrl } from './target.js'
import { checkDiskThrottle, parseDiskLimit } from '../lab/disk-throttle.js'
import { scriptOrder } from './script-order.js'
import { RUN_OPTION_NAMES } from './run-options.js'
import { workloadOptionSpecs, workloadFlagValues } from './workload-flags.js'
import { parseInstance, parseStartAt, checkNotLate } from '../scale/instance-options.js'
import { shareOfTotal } from '../scale/share.js'
import { parseProgress } from './progress-option.js'
import { loadOverTime } from './stages-flags.js'

// The flags of pgloadgen run, checked and turned into its run specification
// (lib/lab/run-spec.js) and what the command itself needs (its ports, its
// target), before anything binds a port or touches a database.

/**
 * @typedef {object} RunArgs
 * @property {string} [pgUrl]
 * @property {unknown} [concurrency]
 * @property {unknown} [transactions]
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
 * @property {unknown} [seed]
 * @property {string} [protocol]
 * @property {boolean} [vacuum]
 * @property {unknown} [duration]
 * @property {boolean} json
 * @property {unknown} [progress]  -P: seconds between progress lines, 0 none
 * @property {string} [dataDir]
 * @property {string} profile
 * @property {unknown} pgPort
 * @property {unknown} [pgVersion]
 * @property {boolean} [offline]
 * @property {string} [diskLimit]
 * @property {boolean} [reset]
 * @property {unknown} [connectTimeout]
 * @property {unknown} [shutdownTimeout]
 * @property {unknown} [verifyTimeout]
 * @property {unknown} [rate]
 * @property {string} [arrival]
 * @property {unknown} [maxLag]
 * @property {unknown} [instance]   I/N
 * @property {string} [threads]   --threads N or auto
 * @property {unknown} [startAt]
 * @property {string} events
 * @property {string} [schedule]
 * @property {string} [controlToken]
 * @property {boolean} [pgStats]
 * @property {unknown} [statsInterval]
 * @property {unknown} [requestTimeout]
 * @property {unknown} [statementTimeout]
 * @property {boolean} pgstattuple
 * @property {boolean} [pgstattupleApprox]
 * @property {string} [record]
 * @property {string} [stages]   duration:target,… (load-over-time.js)
 * @property {unknown} [warmup]
 * @property {string | string[]} [threshold]  --threshold, repeatable
 * @property {boolean} [thresholdAbort]
 */

/**
 * Validates every input first (exit 2 with nothing touched), then binds the
 * HTTP port, then opens the database. Loading the workload reads its
 * scripts or imports its module: still nothing touches a database.
 * @param {RunArgs} args
 * @param {readonly string[]} [argv]  the raw arguments: the order of -f and -b
 */
export async function validateRunArgs(args, argv = []) {
  if (args.maxLag !== undefined && args.rate === undefined) {
    throw new InputError('--max-lag needs --rate (it bounds the lag behind the schedule)', {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  if (args.thresholdAbort && args.threshold === undefined) {
    throw new InputError('--threshold-abort needs a --threshold (it stops the run when one fails)', {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  if (args.vacuum === true) {
    throw new InputError('--vacuum: pgloadgen never vacuums before a run; run pgloadgen vacuum, or a schedule', {
      code: 'PGLG_UNKNOWN_OPTION'
    })
  }
  const flags = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (args))
  // the run's settings (config/run-settings.js), checked; their defaults are the run specification's
  const given = parseRunSettings('flag', flags, { only: SETTINGS_FROM_FLAGS })
  const workloadChoice = await workloadChoiceOf(args, argv, given)
  const workload = await chooseWorkload(workloadChoice)
  refuseForWorkload(args, workload)
  // --stages and --warmup, and the run's duration they make
  const overTime = loadOverTime(args, { workload, rate: given.rate ?? null })
  const split = instanceAndStart(
    args,
    workload.clients ?? overTime.startClients ?? given.concurrency ?? RUN_SETTINGS.concurrency.default
  )
  const spec = buildRunSpec({
    ...given,
    workload,
    // each thread chooses the workload again from the same, checked, choice
    workloadChoice: { ...workloadChoice, taken: undefined },
    // this instance's share; totalConcurrency is what all instances run together
    concurrency:
      split.instance === null ? split.totalConcurrency : shareOfTotal(split.totalConcurrency, split.instance),
    ...split,
    ...(args.mix !== undefined && { mix: checkSetting('mix', args.mix, 'flag', { types: workload.types }) }),
    durationS: overTime.durationS,
    stages: overTime.stages,
    warmupS: overTime.warmupS,
    pgstattuple: pgstattupleMode(args),
    // checked against the workload's types and loop (config/thresholds.js);
    // judged at the end (summary/threshold-verdicts.js)
    ...(args.threshold !== undefined && {
      thresholds: checkSetting('thresholds', args.threshold, 'flag', {
        types: workload.types,
        mode: given.rate !== undefined ? 'open' : workload.pacing !== null ? 'paced' : 'closed',
        audits: workload.idTable !== null || workload.auditTable !== null
      })
    })
  })
  requestTimeoutWithin(spec, args.requestTimeout !== undefined)
  return {
    spec,
    httpPort: parseInteger(args.httpPort, '--http-port', { min: 0, max: 65535 }),
    pgPort: parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 }),
    progressS: parseProgress(args.progress),
    ...(await chooseTarget(args)),
    controlToken: parseControlToken(args.controlToken, process.env.PGLOADGEN_CONTROL_TOKEN),
    diskLimit: await checkedDiskLimit(args)
  }
}

/** The settings read from run's flags here; --mix, --threshold, --stages and --warmup once the workload is known. */
const SETTINGS_FROM_FLAGS = /** @type {const} */ ([
  'protocol',
  'seed',
  'concurrency',
  'requestsPerClient',
  'threads',
  'rate',
  'arrival',
  'maxLagMs',
  'statsIntervalS',
  'requestTimeoutS',
  'statementTimeoutS',
  'connectTimeoutS',
  'shutdownTimeoutS',
  'verifyTimeoutS',
  'reset',
  'recordDir',
  'pgStats',
  'thresholdAbort'
])

/**
 * How the workload is chosen: its name or module, pgbench's scripts in
 * their order, their variables and scale, and the seed and protocol.
 * @param {RunArgs} args
 * @param {readonly string[]} argv
 * @param {Partial<Record<import('../config/run-settings.js').SettingName, any>>} given
 * @returns {Promise<import('../workloads/choose.js').WorkloadChoice>}
 */
async function workloadChoiceOf(args, argv, given) {
  const files = args.file ?? []
  const builtins = [
    ...(args.builtin ?? []),
    ...(args.selectOnly ? ['select-only'] : []),
    ...(args.skipSomeUpdates ? ['simple-update'] : [])
  ]
  return {
    workload: args.workload,
    files,
    builtins,
    order: scriptOrder(argv, { files, builtins }),
    defines: args.define ?? [],
    scale: args.scale === undefined ? null : parseInteger(args.scale, '--scale', { min: 1, max: 2 ** 31 - 1 }),
    randomSeed: args.randomSeed,
    seed: given.seed ?? RUN_SETTINGS.seed.default,
    protocol: given.protocol ?? RUN_SETTINGS.protocol.default,
    options: workloadFlagValues(await workloadOptionSpecs(argv), /** @type {Record<string, unknown>} */ (args)),
    taken: RUN_OPTION_NAMES
  }
}

/**
 * Flags the chosen workload does not take.
 * @param {RunArgs} args
 * @param {import('../workloads/contract.js').Workload} workload
 */
function refuseForWorkload(args, workload) {
  if (args.reset && workload.scripts) {
    throw new InputError(
      "--reset drops a workload's tables; pgbench scripts have none of their own (pgloadgen init recreates pgbench's)",
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  if (workload.clients !== null && args.concurrency !== undefined) {
    throw new InputError(
      `--concurrency: the ${workload.name} workload sets its number of clients itself (${workload.clients}); see its options`,
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  if (workload.pacing !== null && args.rate !== undefined) {
    throw new InputError(`--rate: the ${workload.name} workload paces its clients itself`, {
      code: 'PGLG_NOT_FOR_WORKLOAD'
    })
  }
}

/**
 * A --request-timeout the run could never reach is a mistake: refused. The
 * default is left as it is, even past a short run's end: it then never fires,
 * as before there was one.
 * @param {Readonly<import('../lab/run-spec.js').RunSpec>} spec
 * @param {boolean} given     --request-timeout was given (not the default)
 */
function requestTimeoutWithin({ requestTimeoutS, durationS }, given) {
  if (given && requestTimeoutS !== null && durationS !== null && requestTimeoutS > durationS) {
    throw new InputError(
      `--request-timeout ${requestTimeoutS} s is longer than the run (${durationS} s): no request could time out`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
}

/**
 * --disk-limit: the values, and root with a cgroup controller to apply them.
 * @param {RunArgs} args
 */
async function checkedDiskLimit(args) {
  if (args.diskLimit === undefined) return null
  if (chooseUrl(args.pgUrl)) {
    throw new InputError(
      '--disk-limit: only for the embedded server (pgloadgen cannot move a server it did not start into a cgroup)',
      { code: 'PGLG_EMBEDDED_ONLY' }
    )
  }
  const limit = parseDiskLimit(args.diskLimit, '--disk-limit')
  await checkDiskThrottle(args.dataDir ?? '.')
  return limit
}

/**
 * --instance and --start-at: which share of the load this process runs,
 * and when. Every instance needs a client of its own; a shared open-loop
 * schedule needs a common origin (and seed), the start moment.
 * @param {RunArgs} args
 * @param {number} totalConcurrency
 */
function instanceAndStart(args, totalConcurrency) {
  const instance = args.instance === undefined ? null : parseInstance(args.instance)
  const startAtMs = args.startAt === undefined ? null : parseStartAt(args.startAt)
  if (instance !== null && totalConcurrency < instance.parts) {
    throw new InputError(
      `--instance ${args.instance}: ${totalConcurrency} clients cannot be shared by ${instance.parts} instances (each needs at least one)`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (instance !== null && instance.parts > 1 && args.rate !== undefined && startAtMs === null) {
    throw new InputError(
      '--instance with --rate needs --start-at: the instances share one schedule, which starts at that moment',
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (startAtMs !== null) checkNotLate(startAtMs, instance)
  return { instance, startAtMs, totalConcurrency }
}

/**
 * An empty --control-token would leave control disabled on a non-loopback
 * address without saying so, so it is refused at start. An empty
 * PGLOADGEN_CONTROL_TOKEN counts as unset, as in a compose file that passes
 * the variable through whether or not it has a value.
 * @param {string | undefined} flag
 * @param {string | undefined} env
 */
function parseControlToken(flag, env) {
  const [value, source] = flag !== undefined ? [flag, '--control-token'] : [env || undefined, 'PGLOADGEN_CONTROL_TOKEN']
  if (value === undefined) return null
  if (value === '') throw new InputError(`${source} must not be empty`, { code: 'PGLG_MISSING_VALUE' })
  if (/\s/.test(value)) {
    throw new InputError(`${source} must not contain whitespace (it is sent as a Bearer token)`, {
      code: 'PGLG_INVALID_VALUE'
    })
  }
  return value
}
