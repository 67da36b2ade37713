import path from 'node:path'
import { DEFAULT_MAJOR, MAJORS, PACKAGE_VERSIONS, UNSUPPORTED_MAJORS, releaseOf } from './majors.js'
import { binariesIn, isCached, majorDir, strayVersions } from './cache.js'
import { packageName } from './install.js'
import { installedWithNpm } from './binaries.js'

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
export async function inventory() {
  const name = packageName()
  /** @type {MajorState[]} */
  const majors = []
  for (const major of MAJORS) {
    const row = {
      major,
      release: releaseOf(major),
      package: `${name}@${PACKAGE_VERSIONS[major]}`,
      isDefault: major === DEFAULT_MAJOR
    }
    if (UNSUPPORTED_MAJORS[major]) majors.push({ ...row, state: 'does not run here', path: null })
    else if (isCached(major))
      majors.push({ ...row, state: 'cache', path: path.dirname(binariesIn(majorDir(major)).postgres) })
    else if (major === DEFAULT_MAJOR) majors.push({ ...row, ...(await npmInstalled()) })
    else majors.push({ ...row, state: 'not installed', path: null })
  }
  return { majors, stray: strayVersions() }
}

/** @returns {Promise<{ state: 'npm' | 'not installed', path: string | null }>} */
async function npmInstalled() {
  try {
    return { state: 'npm', path: path.dirname((await installedWithNpm()).postgres) }
  } catch {
    return { state: 'not installed', path: null }
  }
}
