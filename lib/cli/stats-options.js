// The options of the statistics collector and of `pgloadgen stats`, and
// their checks: light, so the CLI can parse and refuse before it loads the
// collector.

import { MAX_RUN_S, parseDuration, parseInteger } from '../config/number-flags.js'
import { settingDefault, settingFlagOption } from '../config/run-settings.js'
import { checkSetting } from '../config/run-setting-checks.js'
import { chooseTarget } from './target.js'
import { withTarget } from './target-options.js'

/** Options of the stats collector, shared by run and stats. */
export const statsOptions = {
  'stats-interval': settingFlagOption('statsIntervalS'),
  pgstattuple: {
    type: /** @type {const} */ ('boolean'),
    default: false,
    describe:
      'also exact bloat from the pgstattuple extension, if installed (scans every table and index, once a minute)'
  },
  'pgstattuple-approx': {
    type: /** @type {const} */ ('boolean'),
    default: false,
    describe:
      '--pgstattuple, with the tables\' figures from pgstattuple_approx (reads only the pages not all-visible; metric label method="pgstattuple_approx")'
  }
}

/**
 * The collector's pgstattuple mode from --pgstattuple and --pgstattuple-approx.
 * @param {{ pgstattuple: boolean, pgstattupleApprox?: boolean }} args
 * @returns {import('../pgstats/pgstattuple.js').PgstattupleMode}
 */
export const pgstattupleMode = args => (args.pgstattupleApprox ? 'approx' : args.pgstattuple)

/** @param {import('yargs').Argv} y */
export function statsBuilder(y) {
  return withTarget(y)
    .option('http-port', {
      alias: 'p',
      type: 'string',
      default: '9801',
      describe: 'port of /metrics (0: any free port)'
    })
    .option('http-host', { type: 'string', default: '127.0.0.1', describe: 'address of /metrics' })
    .option('duration', {
      alias: 'd',
      type: 'string',
      describe: 'seconds to run (or 15m, 2h); default until SIGINT/SIGTERM'
    })
    .options(statsOptions)
}

/**
 * --stats-interval: seconds (or with a unit), from 1 s to 1 h (config/run-settings.js).
 * @param {unknown} value
 * @returns {number}
 */
export function parseStatsInterval(value) {
  return value === undefined
    ? /** @type {number} */ (settingDefault('statsIntervalS', { recordDir: null }))
    : checkSetting('statsIntervalS', value, 'flag')
}

/**
 * @typedef {object} StatsArgs
 * @property {string} [pgUrl]
 * @property {unknown} httpPort
 * @property {string} httpHost
 * @property {unknown} statsInterval
 * @property {boolean} pgstattuple
 * @property {boolean} [pgstattupleApprox]
 * @property {unknown} [duration]
 * @property {string} [dataDir]
 * @property {string} profile
 * @property {unknown} pgPort
 * @property {unknown} [pgVersion]
 * @property {boolean} [offline]
 */

/**
 * Validates every input before anything starts (exit 2).
 * @param {StatsArgs} args
 */
export async function validateStatsArgs(args) {
  const target = await chooseTarget(args)
  return {
    httpPort: parseInteger(args.httpPort, '--http-port', { min: 0, max: 65535 }),
    pgPort: parseInteger(args.pgPort, '--pg-port', { min: 0, max: 65535 }),
    statsIntervalS: parseStatsInterval(args.statsInterval),
    durationS: args.duration === undefined ? null : parseDuration(args.duration, '--duration', { max: MAX_RUN_S }),
    ...target
  }
}
