import { InputError, RuntimeError } from '../../errors.js'
import { errorMessage } from '../../helpers/error-message.js'
import { codedServerError } from '../../pg/server-errors.js'
import { parseDuration } from '../../config/number-flags.js'
import { chooseUrl } from '../target.js'
import { quote } from '../../helpers/quote.js'
import { WHATIF_SETTINGS } from '../../pgstats/autovacuum-whatif.js'

// pgloadgen forecast: what autovacuum will do to each table of a loaded
// server, under its settings and under others (--set), side by side: the
// next autovacuum, vacuums an hour, dead rows when each starts. It watches
// the server's counters for --watch seconds to measure their rates; the
// load is whatever runs on the server (a pgloadgen run, the application).
// docs/autovacuum-forecast.md.

const MIN_WATCH_S = 5

/** @param {import('yargs').Argv} y */
export function forecastBuilder(y) {
  return y
    .positional('pgUrl', {
      type: 'string',
      describe:
        'postgres://user[:password]@host[:port]/database of the loaded server; default PGLOADGEN_PG_URL, DATABASE_URL'
    })
    .option('watch', {
      type: 'string',
      default: '30',
      describe: `seconds to watch the counters for their rates (or 2m), at least ${MIN_WATCH_S}`
    })
    .option('set', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: `NAME=VALUE: a setting to forecast under beside the server's, for every table (repeatable): ${Object.keys(WHATIF_SETTINGS).join(', ')}`
    })
    .option('table', { type: 'string', describe: 'only this table (its name, or schema.name)' })
    .option('json', { type: 'boolean', default: false, describe: 'print the forecasts as JSON on stdout' })
}

/**
 * @typedef {object} ForecastArgs
 * @property {string} [pgUrl]
 * @property {unknown} watch
 * @property {string[]} [set]
 * @property {string} [table]
 * @property {boolean} json
 */

/**
 * The command's input, checked before anything connects.
 * @param {ForecastArgs} args
 */
export function validateForecastArgs(args) {
  const target = chooseUrl(args.pgUrl)
  if (target === null) {
    throw new InputError(
      'forecast: give the URL of the loaded server (or PGLOADGEN_PG_URL): the forecast measures the load on it',
      { code: 'PGLG_MISSING_VALUE' }
    )
  }
  const watchS = parseDuration(args.watch, '--watch')
  if (watchS < MIN_WATCH_S) {
    throw new InputError(`--watch must be at least ${MIN_WATCH_S} seconds, got ${quote(args.watch)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return { target, watchS, changes: parseSets(args.set ?? []), table: args.table ?? null, json: args.json }
}

/**
 * --set NAME=VALUE, each a setting of WHATIF_SETTINGS with a number (the naptime: a duration).
 * @param {string[]} sets
 * @returns {Partial<Record<keyof typeof WHATIF_SETTINGS, number>>}
 */
function parseSets(sets) {
  /** @type {Partial<Record<keyof typeof WHATIF_SETTINGS, number>>} */
  const changes = {}
  for (const text of sets) {
    const [name, value = ''] = text.split('=', 2)
    if (!(name in WHATIF_SETTINGS)) {
      throw new InputError(
        `--set ${quote(text)}: not a setting the forecast knows; give one of ${Object.keys(WHATIF_SETTINGS).join(', ')}`,
        { code: 'PGLG_UNKNOWN_OPTION' }
      )
    }
    const key = /** @type {keyof typeof WHATIF_SETTINGS} */ (name)
    const number = key === 'autovacuum_naptime' ? parseDuration(value, `--set ${name}`) : Number(value)
    if (value.trim() === '' || !Number.isFinite(number) || number < -1) {
      throw new InputError(`--set ${name} must be a number (-1: off, where the server takes it), got ${quote(value)}`, {
        code: 'PGLG_INVALID_NUMBER'
      })
    }
    changes[key] = number
  }
  return changes
}

/**
 * @param {ForecastArgs} args
 * @param {{ log: import('../../log.js').Logger, stdout: { write: (s: string) => unknown } }} io
 * @returns {Promise<number>}
 */
export async function forecastCommand(args, { log, stdout }) {
  const options = validateForecastArgs(args)
  const [{ watchForecast }, { forecastTable }] = await Promise.all([
    import('../../pgstats/autovacuum-watch.js'),
    import('../../terminal/forecast-table.js')
  ])
  log.info(`forecast: watching ${options.target.display} for ${options.watchS} s`)
  const tables = await watchForecast(options.target.connectionString, options).catch(err => {
    throw codedServerError(`forecast: ${options.target.display}: ${errorMessage(err)}`, err, 'PGLG_SERVER_UNAVAILABLE')
  })
  if (options.table !== null && tables.length === 0) {
    throw new RuntimeError(`forecast: no table ${options.table} on ${options.target.display}`)
  }
  stdout.write(options.json ? JSON.stringify(tables, null, 2) + '\n' : forecastTable(tables, options.changes) + '\n')
  return 0
}
