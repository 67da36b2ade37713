import { InputError } from '../../errors.js'
import { parseDuration } from '../../config/number-flags.js'
import { runBuilder } from '../run-options.js'
import { CAPACITY_DEFAULTS } from '../../capacity/defaults.js'

// pgloadgen capacity: the highest open-loop rate at which a workload keeps
// an objective, found in steps of one load session (lib/capacity/). It takes
// run's flags for the workload, the target and the clients; those that fix
// the rate or the length of a run are the search's to set, and refused.

/** Flags of run that the search sets itself. */
const REFUSED = [
  ['rate', '--rate: the search sets the rate; give --start-rate and --max-rate'],
  ['duration', '--duration: the search ends by itself; give --step, --settle and --repeats'],
  ['transactions', '--transactions: a capacity step runs for a time, not a number of requests'],
  ['maxLag', '--max-lag: skipping late requests would hide that a rate broke'],
  ['threads', '--threads: the search changes the rate of one generator thread'],
  ['instance', '--instance: the search runs on one process'],
  ['startAt', '--start-at: the search starts at once'],
  ['schedule', "--schedule: actions during the search would be measured as the rate's"],
  ['threshold', '--threshold: capacity judges each step by its --objective'],
  ['thresholdAbort', '--threshold-abort: capacity judges each step by its --objective'],
  ['stages', '--stages: the search sets the rate in steps of its own'],
  ['warmup', '--warmup: each step settles for --settle before it is measured'],
  ['diskLimit', '--disk-limit: not with capacity'],
  ['zfsInterval', '--zfs-interval: not with capacity']
]

/**
 * @param {import('yargs').Argv} y
 * @param {Record<string, import('../../workloads/options.js').OptionSpec>} [workloadSpecs]
 */
export function capacityBuilder(y, workloadSpecs = {}) {
  return runBuilder(y, workloadSpecs)
    .option('objective', {
      type: 'string',
      array: true,
      requiresArg: true,
      group: 'Capacity:',
      describe:
        'what must hold at a rate (repeatable, all must): p99<10ms, insert_row:p95<2ms, lag_p99<50ms; figures p50…p99.9, max'
    })
    .option('start-rate', {
      type: 'string',
      group: 'Capacity:',
      describe: `first rate tried, requests/s (default ${CAPACITY_DEFAULTS.startRate})`
    })
    .option('step-factor', {
      type: 'string',
      group: 'Capacity:',
      describe: `rate × this after a step that held, while climbing (default ${CAPACITY_DEFAULTS.factor})`
    })
    .option('max-rate', {
      type: 'string',
      group: 'Capacity:',
      describe: `highest rate tried (default ${CAPACITY_DEFAULTS.maxRate})`
    })
    .option('resolution', {
      type: 'string',
      group: 'Capacity:',
      describe: `bisect until the bracket's ends are within this fraction (default ${CAPACITY_DEFAULTS.resolution}), widened up to ${CAPACITY_DEFAULTS.maxWiden} times where a --step step holds fewer than ${CAPACITY_DEFAULTS.tailRequests} requests beyond the objective's percentile`
    })
    .option('repeats', {
      type: 'string',
      group: 'Capacity:',
      describe: `steps at each end of the final bracket, all agreeing (default ${CAPACITY_DEFAULTS.repeats}: a 93 % interval)`
    })
    .option('step', {
      type: 'string',
      group: 'Capacity:',
      describe: `measured seconds of a step, at least (default ${CAPACITY_DEFAULTS.stepS}); a step confirming the bracket runs up to ${CAPACITY_DEFAULTS.maxStepFactor} times that, to hold ${CAPACITY_DEFAULTS.tailRequests} requests beyond the objective's percentile`
    })
    .option('max-time', {
      type: 'string',
      group: 'Capacity:',
      describe: `seconds the search may take, from opening its session; then it ends, unsettled (default ${CAPACITY_DEFAULTS.maxTimeS})`
    })
    .option('settle', {
      type: 'string',
      group: 'Capacity:',
      describe: `seconds at a step's rate before it is measured (default ${CAPACITY_DEFAULTS.settleS}; 0: none)`
    })
}

/**
 * The capacity flags checked, before anything touches a database.
 * @param {Record<string, any>} args
 */
export function parseCapacityFlags(args) {
  for (const [name, message] of REFUSED) {
    const value = args[name]
    // --threads defaults to 1, which is what the search runs; a switch off is not given
    if (value === undefined || value === false || (name === 'threads' && String(value).trim() === '1')) continue
    throw new InputError(message, { code: 'PGLG_CONFLICTING_OPTIONS' })
  }
  return {
    objectivesText: args.objective,
    startRate: number(args.startRate, '--start-rate', CAPACITY_DEFAULTS.startRate, { above: 0 }),
    factor: number(args.stepFactor, '--step-factor', CAPACITY_DEFAULTS.factor, { above: 1, max: 100 }),
    maxRate: number(args.maxRate, '--max-rate', CAPACITY_DEFAULTS.maxRate, { above: 0 }),
    resolution: number(args.resolution, '--resolution', CAPACITY_DEFAULTS.resolution, { above: 0, max: 10 }),
    repeats: number(args.repeats, '--repeats', CAPACITY_DEFAULTS.repeats, { above: 0, max: 100, integer: true }),
    stepS: args.step === undefined ? CAPACITY_DEFAULTS.stepS : parseDuration(args.step, '--step', { max: 3600 }),
    maxTimeS:
      args.maxTime === undefined
        ? CAPACITY_DEFAULTS.maxTimeS
        : parseDuration(args.maxTime, '--max-time', { max: 86400 }),
    settleS:
      args.settle === undefined
        ? CAPACITY_DEFAULTS.settleS
        : String(args.settle).trim() === '0'
          ? 0
          : parseDuration(args.settle, '--settle', { max: 3600 })
  }
}

/**
 * @param {unknown} value
 * @param {string} flag
 * @param {number} fallback
 * @param {{ above: number, max?: number, integer?: boolean }} limits
 */
function number(value, flag, fallback, { above, max = Number.MAX_SAFE_INTEGER, integer = false }) {
  if (value === undefined) return fallback
  const text = String(value).trim()
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN
  if (!(n > above) || n > max || (integer && !Number.isInteger(n))) {
    throw new InputError(
      `${flag} must be ${integer ? 'a whole number' : 'a number'} above ${above}${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ''}, got ${JSON.stringify(text).slice(0, 40)}`,
      { code: 'PGLG_INVALID_NUMBER' }
    )
  }
  return n
}
