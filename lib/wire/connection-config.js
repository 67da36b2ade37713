import os from 'node:os'

/**
 * @typedef {object} WireConfig
 * @property {string} host          host name, or a socket directory (starts with /)
 * @property {number} port
 * @property {string} user
 * @property {string | null} password
 * @property {string} database
 * @property {string} sslmode       disable, allow, prefer, require, verify-ca, verify-full
 * @property {string | null} sslrootcert  file of the CA certificates to verify the server with
 * @property {string | null} sslcert      client certificate file
 * @property {string | null} sslkey       client key file
 * @property {string} applicationName
 */

/**
 * The parts of a postgres:// URL the wire client needs, with libpq's
 * defaults (PGUSER, PGPASSWORD, PGHOST, PGPORT, the OS user).
 * @param {string} connectionString
 * @param {string} applicationName
 * @returns {WireConfig}
 */
export function parseConnectionString(connectionString, applicationName) {
  const url = new URL(connectionString)
  const params = url.searchParams
  const user = decodeURIComponent(url.username) || process.env.PGUSER || os.userInfo().username
  const password = url.password
    ? decodeURIComponent(url.password)
    : (params.get('password') ?? process.env.PGPASSWORD ?? null)
  return {
    host: params.get('host') ?? (url.hostname.replace(/^\[|\]$/g, '') || process.env.PGHOST || 'localhost'),
    port: Number(params.get('port') ?? (url.port || process.env.PGPORT || 5432)),
    user,
    password,
    database: decodeURIComponent(url.pathname.slice(1)) || user,
    sslmode: params.get('sslmode') ?? (params.get('ssl') === 'true' ? 'require' : 'disable'),
    sslrootcert: params.get('sslrootcert'),
    sslcert: params.get('sslcert'),
    sslkey: params.get('sslkey'),
    applicationName: params.get('application_name') ?? applicationName
  }
}
