import { parsePgUrl, redactUrl } from '../config/pg-url.js'
import { resolveProfile } from '../embedded/profile.js'

/**
 * @typedef {object} Target
 * @property {string} connectionString
 * @property {string} display            without secrets
 * @property {import('../embedded/server.js').EmbeddedServer | null} embedded
 */

/**
 * Where the URL comes from: the argument, then PGLOADGEN_PG_URL, then
 * DATABASE_URL. Validated, nothing started.
 * @param {string | undefined} argument
 * @returns {import('../config/pg-url.js').PgTarget | null} null: use the embedded server
 */
export function chooseUrl (argument) {
  const text = argument || process.env.PGLOADGEN_PG_URL || process.env.DATABASE_URL
  return text ? parsePgUrl(text) : null
}

/**
 * Opens the target: the URL as is, or the embedded server started (when not
 * already running) in dataDir.
 * @param {{ url: import('../config/pg-url.js').PgTarget | null, dataDir: string, profile: string, pgPort: number, log: import('../log.js').Logger }} options
 * @returns {Promise<Target>}
 */
export async function openTarget ({ url, dataDir, profile, pgPort, log }) {
  if (url) return { connectionString: url.connectionString, display: url.display, embedded: null }
  // loaded only when a server is to be started: a URL or a refusal never needs it
  const { EmbeddedServer } = await import('../embedded/server.js')
  const embedded = new EmbeddedServer({ dataDir, profileFile: resolveProfile(profile), port: pgPort, log })
  const connectionString = await embedded.start()
  return { connectionString, display: redactUrl(new URL(connectionString)), embedded }
}
