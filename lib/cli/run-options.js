import { DEFAULT_EVENTS_FILE, embeddedServerOptions } from './target-options.js'
import { statsOptions } from './stats-options.js'
import { progressOption } from './progress-option.js'

/**
 * The options of `pgloadgen run`. Where pgbench has a flag for the same
 * thing (-c, -R, -T, -t, -f, -b, -D, -s, -M, -S, -N, -n, --random-seed), it
 * is pgbench's letter with pgbench's meaning. The workload's own options
 * (workloadSpecs) come after them, in a group of their own.
 * @param {import('yargs').Argv} y
 * @param {Record<string, import('../workloads/options.js').OptionSpec>} [workloadSpecs]
 */
export function runBuilder (y, workloadSpecs = {}) {
  const parser = y
    .positional('pgUrl', { type: 'string', describe: 'postgres://user[:password]@host[:port]/database; default PGLOADGEN_PG_URL, DATABASE_URL, else an embedded server' })
    .option('concurrency', { alias: 'c', type: 'string', describe: 'requests outstanding at all times, one connection each (default 8)' })
    .option('http-port', { alias: 'p', type: 'string', default: '9800', describe: 'port of /metrics (0: any free port)' })
    .option('http-host', { type: 'string', default: '127.0.0.1', describe: 'address of /metrics' })
    .option('workload', { alias: 'w', type: 'string', describe: 'manta (default), timeseries, pgbench, or the path of a workload module (see pgloadgen workloads)' })
    .option('mix', { type: 'string', describe: 'request types and their weights, e.g. insert_row=60,read_row=40; default: the workload\'s' })
    .option('file', { alias: 'f', type: 'string', array: true, requiresArg: true, describe: 'pgbench script FILE[@WEIGHT]; one request type per script (repeatable)' })
    .option('builtin', { alias: 'b', type: 'string', array: true, requiresArg: true, describe: 'pgbench built-in script NAME[@WEIGHT]: tpcb-like, simple-update, select-only (repeatable)' })
    .option('select-only', { alias: 'S', type: 'boolean', describe: 'pgbench\'s -S: -b select-only' })
    .option('skip-some-updates', { alias: 'N', type: 'boolean', describe: 'pgbench\'s -N: -b simple-update' })
    .option('define', { alias: 'D', type: 'string', array: true, requiresArg: true, describe: 'NAME=VALUE: a variable of the scripts, or a setting of a workload module (repeatable)' })
    .option('scale', { alias: 's', type: 'string', describe: ':scale of custom scripts (built-in scripts read it from pgbench_branches)' })
    .option('random-seed', { type: 'string', describe: 'seed of the scripts\' random functions: time (default), rand, or a number' })
    .option('protocol', { alias: 'M', type: 'string', default: 'prepared', describe: 'prepared (named statements), extended (unnamed: works through PgBouncer in transaction mode) or simple' })
    .option('n', { type: 'boolean', describe: 'pgbench\'s --no-vacuum, accepted: pgloadgen never vacuums before a run' })
    .option('vacuum', { type: 'boolean', hidden: true })
    .option('duration', { alias: ['d', 'T'], type: 'string', describe: 'seconds to run (or 15m, 2h); default until SIGINT/SIGTERM' })
    .option('transactions', { alias: 't', type: 'string', describe: 'pgbench\'s -t: each client stops after this many requests; the run ends when all have' })
    .option('rate', { alias: 'R', type: 'string', describe: 'open loop: requests per second on a schedule instead of a closed loop' })
    .option('arrival', { type: 'string', default: 'poisson', describe: 'open-loop schedule: poisson or fixed' })
    .option('max-lag', { type: 'string', describe: 'open loop: skip requests more than this many ms behind schedule' })
    .option('threads', { alias: 'j', type: 'string', default: '1', describe: 'worker threads the clients are split over, pgbench\'s -j (auto: one per core)' })
    .option('instance', { type: 'string', describe: 'I/N: run instance I\'s exact share (0-based, as JOB_COMPLETION_INDEX) of the concurrency and rate of N instances' })
    .option('start-at', { type: 'string', describe: 'start the load at this moment (ISO 8601 with a zone, or epoch seconds); refused when it has passed' })
    .option('json', { type: 'boolean', default: false, describe: 'print a JSON summary on stdout at exit' })
    .option('progress', progressOption)
    .option('reset', { type: 'boolean', default: false, describe: 'drop and recreate the workload\'s tables first' })
    .options(embeddedServerOptions)
    .option('disk-limit', { type: 'string', describe: 'a slower disk for the embedded server: read_mbps=8,read_iops=400 (also write_mbps, write_iops; MB = 10^6 bytes; root and a cgroup blkio or io controller)' })
    .option('connect-timeout', { type: 'string', default: '15', describe: 'seconds to wait for the server at start' })
    .option('shutdown-timeout', { type: 'string', default: '10', describe: 'seconds to wait for requests in flight at exit' })
    .option('verify-timeout', { type: 'string', default: '60', describe: 'seconds to spend checking acknowledged inserts at exit' })
    .option('events', { type: 'string', default: DEFAULT_EVENTS_FILE, describe: 'file that actions and control changes are appended to (NDJSON)' })
    .option('record', { type: 'string', describe: 'write per-second samples, events, run.json and summary.json to this directory' })
    .option('schedule', { type: 'string', describe: 'run the actions of a schedule file (JSON or YAML) during the load' })
    .option('control-token', { type: 'string', describe: 'bearer token that POST /concurrency, /pause, /resume require when --http-host is not loopback (also PGLOADGEN_CONTROL_TOKEN)' })
    .option('pg-stats', { type: 'boolean', default: true, describe: 'export PostgreSQL statistics on /metrics too (--no-pg-stats: do not)' })
    .options(statsOptions)
  for (const [name, spec] of Object.entries(workloadSpecs)) {
    const shown = spec.default === undefined ? '' : ` (default ${spec.default})`
    parser.option(name, { type: spec.type === 'boolean' ? 'boolean' : 'string', describe: `${spec.describe}${shown}`, group: 'Options of the workload:' })
  }
  return parser
}

/** The names run uses itself: a workload's options may not take them. */
export const RUN_OPTION_NAMES = new Set(['pg-url', 'concurrency', 'c', 'http-port', 'p', 'http-host', 'workload', 'w', 'mix', 'file', 'f', 'builtin', 'b',
  'select-only', 'S', 'skip-some-updates', 'N', 'define', 'D', 'scale', 's', 'random-seed', 'protocol', 'M', 'n', 'vacuum', 'duration', 'd', 'T',
  'transactions', 't', 'rate', 'R', 'arrival', 'max-lag', 'threads', 'j', 'instance', 'start-at', 'json', 'progress', 'P', 'reset', 'data-dir', 'profile', 'pg-port', 'pg-version', 'offline', 'disk-limit', 'connect-timeout', 'shutdown-timeout',
  'verify-timeout', 'events', 'record', 'schedule', 'control-token', 'pg-stats', 'stats-interval', 'pgstattuple', 'log-level', 'help', 'version'])
