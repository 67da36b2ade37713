import { DEFAULT_EVENTS_FILE, embeddedServerOptions } from './target-options.js'
import { statsOptions } from './stats-options.js'
import { progressOption } from './progress-option.js'
import { settingFlagNames, settingFlagOptions } from '../config/run-settings.js'

/**
 * The options of `pgloadgen run` that are the command's own, not settings
 * of the load (those are config/run-settings.js's): its endpoint, how the
 * workload is chosen, the embedded server, what it writes.
 * @type {Record<string, import('yargs').Options>}
 */
const COMMAND_OPTIONS = {
  'http-port': {
    alias: 'p',
    type: 'string',
    default: '9800',
    describe: 'port of /metrics (0: any free port)'
  },
  'http-host': { type: 'string', default: '127.0.0.1', describe: 'address of /metrics' },
  workload: {
    alias: 'w',
    type: 'string',
    describe: 'manta (default), timeseries, pgbench, or the path of a workload module (see pgloadgen workloads)'
  },
  file: {
    alias: 'f',
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'pgbench script FILE[@WEIGHT]; one request type per script (repeatable)'
  },
  builtin: {
    alias: 'b',
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'pgbench built-in script NAME[@WEIGHT]: tpcb-like, simple-update, select-only (repeatable)'
  },
  'select-only': { alias: 'S', type: 'boolean', describe: "pgbench's -S: -b select-only" },
  'skip-some-updates': { alias: 'N', type: 'boolean', describe: "pgbench's -N: -b simple-update" },
  define: {
    alias: 'D',
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'NAME=VALUE: a variable of the scripts, or a setting of a workload module (repeatable)'
  },
  scale: {
    alias: 's',
    type: 'string',
    describe: ':scale of custom scripts (built-in scripts read it from pgbench_branches)'
  },
  'random-seed': {
    type: 'string',
    describe: "seed of the scripts' random functions: time (default), rand, or a number"
  },
  n: { type: 'boolean', describe: "pgbench's --no-vacuum, accepted: pgloadgen never vacuums before a run" },
  vacuum: { type: 'boolean', hidden: true },
  instance: {
    type: 'string',
    describe:
      "I/N: run instance I's exact share (0-based, as JOB_COMPLETION_INDEX) of the concurrency and rate of N instances"
  },
  'start-at': {
    type: 'string',
    describe: 'start the load at this moment (ISO 8601 with a zone, or epoch seconds); refused when it has passed'
  },
  json: { type: 'boolean', default: false, describe: 'print a JSON summary on stdout at exit' },
  progress: progressOption,
  ...embeddedServerOptions,
  'zfs-interval': {
    type: 'string',
    describe:
      'seconds between two samples of the ZFS pool that holds the data directory (embedded server, or --data-dir), when it is on ZFS: zdb -mm and zpool get (default 10; 0: none)'
  },
  'disk-limit': {
    type: 'string',
    describe:
      'a slower disk for the embedded server: read_mbps=8,read_iops=400 (also write_mbps, write_iops; MB = 10^6 bytes; root and a cgroup blkio or io controller)'
  },
  events: {
    type: 'string',
    default: DEFAULT_EVENTS_FILE,
    describe: 'file that actions and control changes are appended to (NDJSON)'
  },
  schedule: {
    type: 'string',
    describe: 'run the actions of a schedule file (JSON or YAML) during the load'
  },
  'control-token': {
    type: 'string',
    describe:
      'bearer token that POST /concurrency, /pause, /resume require when --http-host is not loopback (also PGLOADGEN_CONTROL_TOKEN)'
  }
}

/**
 * The options of `pgloadgen run`. Where pgbench has a flag for the same
 * thing (-c, -R, -T, -t, -f, -b, -D, -s, -M, -S, -N, -n, -j, --random-seed), it
 * is pgbench's letter with pgbench's meaning. The run's settings, which plans
 * and the control API share, are defined in config/run-settings.js. The
 * workload's own options (workloadSpecs) come after them, in a group of
 * their own; one that shares a setting's flag (tsbs-cpu's --seed) is that
 * flag.
 * @param {import('yargs').Argv} y
 * @param {Record<string, import('../workloads/options.js').OptionSpec>} [workloadSpecs]
 */
export function runBuilder(y, workloadSpecs = {}) {
  const parser = y
    .positional('pgUrl', {
      type: 'string',
      describe:
        'postgres://user[:password]@host[:port]/database; default PGLOADGEN_PG_URL, DATABASE_URL, else an embedded server'
    })
    // the run's settings (-c, -t, --seed, -M, --mix, -R, --arrival, --max-lag, -j, --stats-interval):
    // config/run-settings.js
    .options(settingFlagOptions())
    .options(COMMAND_OPTIONS)
    .options(statsOptions)
  const settingFlags = new Set(Object.keys(settingFlagOptions()))
  for (const [name, spec] of Object.entries(workloadSpecs)) {
    if (settingFlags.has(name)) continue
    const shown = spec.default === undefined ? '' : ` (default ${spec.default})`
    parser.option(name, {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      describe: `${spec.describe}${shown}`,
      group: 'Options of the workload:'
    })
  }
  return parser
}

/** The names run uses itself: a workload's options may not take them. */
export const RUN_OPTION_NAMES = new Set([
  'pg-url',
  'log-level',
  'help',
  'version',
  ...settingFlagNames(),
  ...optionNames({ ...COMMAND_OPTIONS, ...statsOptions })
])

/**
 * Every name and alias of some options.
 * @param {Record<string, import('yargs').Options>} options
 */
function optionNames(options) {
  return Object.entries(options).flatMap(([name, spec]) => [name, ...[spec.alias ?? []].flat()])
}
