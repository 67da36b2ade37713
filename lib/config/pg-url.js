import { UsageError } from '../cli/usage-error.js'

/**
 * @typedef {object} PgTarget
 * @property {string} connectionString  full URL, secrets included: only for pg
 * @property {string} display           the URL without password or secret query parameters
 */

const SECRET_PARAMS = new Set(['password', 'sslpassword', 'sslkey', 'sslcert', 'sslrootcert'])

/**
 * Validates a PostgreSQL URL and derives a printable form that never carries
 * the password.
 * @param {string} text
 * @returns {PgTarget}
 */
export function parsePgUrl (text) {
  /** @type {URL} */
  let url
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`malformed PostgreSQL URL (expected postgres://user@host:port/database): ${redactLoose(text)}`)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`PostgreSQL URL must start with postgres:// or postgresql://, got ${url.protocol}//…`)
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new UsageError('PostgreSQL URL has no host')
  }
  if (url.port !== '' && !(Number(url.port) > 0 && Number(url.port) < 65536)) {
    throw new UsageError(`PostgreSQL URL has an invalid port: ${url.port}`)
  }
  return { connectionString: text, display: redactUrl(url) }
}

/**
 * @param {URL} url
 * @returns {string}
 */
export function redactUrl (url) {
  const copy = new URL(url.href)
  copy.password = ''
  for (const name of [...copy.searchParams.keys()]) {
    if (SECRET_PARAMS.has(name)) copy.searchParams.delete(name)
  }
  return copy.href
}

/**
 * Best effort for strings that do not even parse: drop anything between
 * "://user:" and "@".
 * @param {string} text
 */
function redactLoose (text) {
  return text.replace(/(\/\/[^:/@]*):[^@]*@/, '$1@')
}
