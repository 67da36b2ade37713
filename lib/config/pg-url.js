import { accessSync, constants } from 'node:fs'
import { InputError } from '../errors.js'
import { printable, quote } from '../helpers/quote.js'

/**
 * @typedef {object} PgTarget
 * @property {string} connectionString  full URL, secrets included: only for pg
 * @property {string} display           the URL without password or secret query parameters
 */

const SECRET_PARAMS = new Set(['password', 'sslpassword', 'sslkey', 'sslcert', 'sslrootcert'])
const SSL_MODES = new Set(['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'])
const SSL_FILES = ['sslrootcert', 'sslcert', 'sslkey']

/**
 * Validates a PostgreSQL URL and derives a printable form that never carries
 * the password.
 * @param {string} text
 * @returns {PgTarget}
 */
export function parsePgUrl(text) {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new InputError('PostgreSQL URL is empty (expected postgres://user@host:port/database)', {
      code: 'PGLG_INVALID_URL'
    })
  }
  /** @type {URL} */
  let url
  try {
    url = new URL(text)
  } catch (err) {
    throw new InputError(
      `malformed PostgreSQL URL (expected postgres://user@host:port/database): ` + printable(redactLoose(text)),
      { code: 'PGLG_INVALID_URL', cause: err }
    )
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new InputError(
      `PostgreSQL URL must start with postgres:// or postgresql://, got ${printable(url.protocol)}//…`,
      { code: 'PGLG_INVALID_URL' }
    )
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new InputError('PostgreSQL URL has no host', { code: 'PGLG_INVALID_URL' })
  }
  if (url.port !== '' && !(Number(url.port) > 0 && Number(url.port) < 65536)) {
    throw new InputError(`PostgreSQL URL has an invalid port: ${url.port}`, { code: 'PGLG_INVALID_URL' })
  }
  checkSsl(url.searchParams)
  return { connectionString: withLibpqSsl(text, url.searchParams), display: redactUrl(url) }
}

/**
 * The SSL parameters, checked before anything connects.
 * @param {URLSearchParams} params
 */
function checkSsl(params) {
  const mode = params.get('sslmode')
  if (mode !== null && !SSL_MODES.has(mode)) {
    throw new InputError(`PostgreSQL URL has an unknown sslmode ${quote(mode)} (${[...SSL_MODES].join(', ')})`, {
      code: 'PGLG_INVALID_URL'
    })
  }
  // As libpq: verify-ca without a root certificate has nothing to verify with.
  if (mode === 'verify-ca' && !params.has('sslrootcert')) {
    throw new InputError(
      "PostgreSQL URL has sslmode=verify-ca but no sslrootcert=FILE (the CA that signed the server's certificate)",
      { code: 'PGLG_INVALID_URL' }
    )
  }
  for (const name of SSL_FILES) {
    const file = params.get(name)
    if (file === null) continue
    try {
      accessSync(file, constants.R_OK)
    } catch (err) {
      throw new InputError(`PostgreSQL URL: cannot read the ${name} file ${quote(file)}`, {
        code: 'PGLG_INVALID_URL',
        cause: err
      })
    }
  }
}

/**
 * node-postgres reads sslmode=prefer or require as verify-full unless told
 * to follow libpq, and has no plain-first allow; the wire client of the hot
 * path follows libpq and reads allow as disable (it never retries a refused
 * connection with SSL). Both must read one URL the same way.
 * @param {string} text
 * @param {URLSearchParams} params
 */
function withLibpqSsl(text, params) {
  if (!params.has('sslmode') || params.has('uselibpqcompat')) return text
  const [beforeFragment, fragment] = text.split('#', 2)
  const withoutAllow = beforeFragment.replace(/([?&])sslmode=allow(?=&|$)/, '$1sslmode=disable')
  const query = `${withoutAllow}${beforeFragment.includes('?') ? '&' : '?'}uselibpqcompat=true`
  return fragment === undefined ? query : `${query}#${fragment}`
}

/**
 * @param {URL} url
 * @returns {string}
 */
export function redactUrl(url) {
  const copy = new URL(url.href)
  copy.password = ''
  for (const name of [...copy.searchParams.keys()]) {
    // uselibpqcompat is ours (see withLibpqSsl), not the user's
    if (SECRET_PARAMS.has(name) || name === 'uselibpqcompat') copy.searchParams.delete(name)
  }
  return copy.href
}

/**
 * Best effort for strings that do not even parse, where the user part
 * cannot be told apart: nothing before the last "@" (a password may hold
 * any character, "@", ":" and "/" too), and no value of a password
 * parameter.
 * @param {string} text
 */
function redactLoose(text) {
  const at = text.lastIndexOf('@')
  return (at === -1 ? text : `…${text.slice(at)}`).replace(/([?&](?:password|sslpassword)=)[^&#]*/gi, '$1…')
}
