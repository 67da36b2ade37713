import { parsePgUrl, redactUrl } from '../config/pg-url.js'
import { InputError } from '../errors.js'
import { chooseServer } from '../embedded/server-choice.js'

/**
 * @typedef {object} Target
 * @property {string} connectionString
 * @property {string} display            without secrets
 * @property {import('../embedded/server.js').EmbeddedServer | null} embedded
 */

/**
 * @typedef {object} TargetArgs   the flags of target-options.js
 * @property {string} [pgUrl]
 * @property {string} [dataDir]
 * @property {string} profile
 * @property {unknown} [pgVersion]
 * @property {boolean} [offline]
 */

/**
 * Where the URL comes from: the argument, then PGLOADGEN_PG_URL, then
 * DATABASE_URL. Validated, nothing started.
 * @param {string | undefined} argument
 * @returns {import('../config/pg-url.js').PgTarget | null} null: use the embedded server
 */
export function chooseUrl(argument) {
  const text = argument || process.env.PGLOADGEN_PG_URL || process.env.DATABASE_URL
  return text ? parsePgUrl(text) : null
}

/**
 * The URL, or the embedded server to start, checked whole (its major and
 * every setting of its profile) before anything is fetched or started.
 * @param {TargetArgs} args
 * @returns {Promise<{ url: import('../config/pg-url.js').PgTarget | null,
 *     server: import('../embedded/server-choice.js').ServerChoice | null }>}
 */
export async function chooseTarget(args) {
  const url = chooseUrl(args.pgUrl)
  if (url && args.pgVersion !== undefined) {
    throw new InputError(
      '--pg-version: only for the embedded server (the server at the URL runs the version it runs)',
      { code: 'PGLG_EMBEDDED_ONLY' }
    )
  }
  if (url) return { url, server: null }
  return {
    url: null,
    server: await chooseServer({
      pgVersion: args.pgVersion,
      profile: args.profile,
      dataDir: args.dataDir,
      offline: args.offline
    })
  }
}

/**
 * Opens the target: the URL as is, or the embedded server started (when not
 * already running) in its data directory, its major fetched when missing.
 * @param {{ url: import('../config/pg-url.js').PgTarget | null,
 *     server: import('../embedded/server-choice.js').ServerChoice | null, pgPort: number, log:
 * import('../log.js').Logger }} options
 * @returns {Promise<Target>}
 */
export async function openTarget({ url, server, pgPort, log }) {
  if (url) return { connectionString: url.connectionString, display: url.display, embedded: null }
  if (!server) throw new Error('openTarget: neither a URL nor a server')
  // loaded only when a server is to be started: a URL or a refusal never needs it
  const { EmbeddedServer } = await import('../embedded/server.js')
  const { fetchProgress } = await import('./fetch-progress.js')
  const embedded = new EmbeddedServer({
    dataDir: server.dataDir,
    profileFile: server.profileFile,
    port: pgPort,
    log,
    major: server.major,
    offline: server.offline,
    progress: fetchProgress(log),
    adaptProfile: server.adaptProfile
  })
  const connectionString = await embedded.start()
  return { connectionString, display: redactUrl(new URL(connectionString)), embedded }
}
