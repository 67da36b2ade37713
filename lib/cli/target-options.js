import { profileHelp } from '../embedded/profile.js'

/**
 * The options every command that talks to a server shares: a URL, or the
 * data directory of the server the lab manages.
 * @template T
 * @param {import('yargs').Argv<T>} y
 */
export function withTarget (y) {
  return y
    .positional('pgUrl', { type: 'string', describe: 'postgres://user[:password]@host[:port]/database; default PGLOADGEN_PG_URL, DATABASE_URL, else the embedded server' })
    .option('data-dir', { type: 'string', default: './.pgloadgen/pgdata', describe: 'data directory of the embedded server' })
    .option('profile', { type: 'string', default: 'lab', describe: profileHelp() })
    .option('pg-port', { type: 'string', default: '0', describe: 'port of the embedded server when it has to be started (0: any free port)' })
}

export const DEFAULT_EVENTS_FILE = './.pgloadgen/events.ndjson'
