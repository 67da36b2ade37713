import { DEFAULT_MAJOR, MAJORS, PACKAGE_VERSIONS, UNSUPPORTED_MAJORS, releaseOf } from './majors.js'
import { binariesIn, isCached, majorDir, strayVersions } from './cache.js'
import { packageName } from './install.js'

// What `pgloadgen server list` shows: every major the lab knows, whether it
// is here (in the cache, or the default installed by npm ci) and where.

/**
 * @typedef {object} MajorState
 * @property {number} major
 * @property {string} release          e.g. 16.14
 * @property {string} package          name@version on the npm registry
 * @property {'cache' | 'npm' | 'not installed' | 'does not run here'} state
 * @property {string | null} path      the directory of its bin/, when installed
 * @property {boolean} isDefault
 */

/** @returns {Promise<{ majors: MajorState[], stray: string[] }>} */
export async function inventory () {
  const name = packageName()
  /** @type {MajorState[]} */
  const majors = []
  for (const major of MAJORS) {
    const row = { major, release: releaseOf(major), package: `${name}@${PACKAGE_VERSIONS[major]}`, isDefault: major === DEFAULT_MAJOR }
    if (UNSUPPORTED_MAJORS[major]) majors.push({ ...row, state: 'does not run here', path: null })
    else if (isCached(major)) majors.push({ ...row, state: 'cache', path: binariesIn(majorDir(major)).postgres.replace(/\/postgres$/, '') })
    else if (major === DEFAULT_MAJOR) majors.push({ ...row, ...await npmInstalled(name) })
    else majors.push({ ...row, state: 'not installed', path: null })
  }
  return { majors, stray: strayVersions() }
}

/**
 * @param {string} name
 * @returns {Promise<{ state: 'npm' | 'not installed', path: string | null }>}
 */
async function npmInstalled (name) {
  try {
    const { postgres } = await import(name)
    return { state: 'npm', path: String(postgres).replace(/\/postgres$/, '') }
  } catch {
    return { state: 'not installed', path: null }
  }
}
