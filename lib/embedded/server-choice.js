import { readFileSync } from 'node:fs'
import path from 'node:path'
import { InputError } from '../errors.js'
import { DEFAULT_MAJOR, parseMajor } from './majors.js'
import { isCached } from './cache.js'
import { readProfile, resolveProfile } from './profile.js'
import { adaptConf, settingsLines } from './settings.js'

// The embedded server a command asked for, checked whole before anything
// is fetched or started: the major, the profile read and each of its
// settings known to that major, a variant's own settings likewise, and the
// data directory (one per major by default, since a data directory does
// not cross majors).

export const DEFAULT_DATA_DIR = './.pgloadgen/pgdata'

/**
 * @typedef {object} ServerRequest
 * @property {unknown} [pgVersion]   --pg-version or a plan's server.version
 * @property {string} profile        a profile name or .conf path
 * @property {Record<string, string | number | boolean>} [settings]   settings over the profile's
 * @property {string | null} [dataDir]   undefined: the default of the major; null: chosen by the caller, not checked
 * @property {boolean} [offline]
 * @property {string} [where]        the flag or plan field, for messages
 */

/**
 * @typedef {object} ServerChoice
 * @property {number} major
 * @property {string} profile
 * @property {string} profileFile
 * @property {Record<string, string | number | boolean>} settings
 * @property {string} dataDir
 * @property {boolean} offline
 * @property {(text: string) => string} adaptProfile   the profile's text as the major takes it, with the settings after
 *   it
 */

/**
 * @param {ServerRequest} request
 * @returns {Promise<ServerChoice>}
 */
export async function chooseServer({ pgVersion, profile, settings = {}, dataDir, offline = false, where }) {
  const major = parseMajor(pgVersion, where ? `${where}.version` : '--pg-version')
  const profileFile = resolveProfile(profile)
  const profileWhere = `profile ${profile}`
  const extra = settingsLines(settings, major, where ? `${where}.settings` : 'settings')
  /** @param {string} text */
  const adaptProfile = text => {
    const adapted = adaptConf(text, major, profileWhere)
    return extra.length === 0
      ? adapted
      : `${adapted}\n# The run's own settings, over the profile's\n${extra.join('\n')}\n`
  }
  adaptProfile(await profileText(profileFile)) // every setting checked now
  const dir = dataDir === undefined ? defaultDataDir(major) : dataDir
  if (dir !== null) assertDataDirMajor(dir, major)
  if (offline && major !== DEFAULT_MAJOR && !isCached(major)) {
    throw new InputError(
      `PostgreSQL ${major} is not installed and --offline forbids fetching it (pgloadgen server install ${major} fetches it ahead of time)`,
      { code: 'PGLG_INVALID_SERVER_CONFIG' }
    )
  }
  return { major, profile, profileFile, settings, dataDir: dir ?? defaultDataDir(major), offline, adaptProfile }
}

/**
 * A data directory does not cross majors: the one initdb wrote in it
 * (PG_VERSION), when there is one, must be the major asked for.
 * @param {string} dataDir
 * @param {number} major
 */
export function assertDataDirMajor(dataDir, major) {
  const found = dataDirMajor(dataDir)
  if (found !== null && found !== major) {
    throw new InputError(
      `the data directory ${path.resolve(dataDir)} holds a PostgreSQL ${found} cluster and cannot be started with PostgreSQL ${major}; give --pg-version ${found}, or another --data-dir`,
      { code: 'PGLG_INVALID_SERVER_CONFIG' }
    )
  }
}

/**
 * The major initdb wrote in a data directory, or null when there is none.
 * @param {string} dataDir
 * @returns {number | null}
 */
export function dataDirMajor(dataDir) {
  try {
    return Number(readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8').trim())
  } catch {
    return null
  }
}

/** @type {Map<string, Promise<string>>} profiles read for checking, once a process: a plan checks one per variant */
const checkedProfiles = new Map()

/** @param {string} file */
function profileText(file) {
  let text = checkedProfiles.get(file)
  if (!text) {
    text = readProfile(file)
    text.catch(() => checkedProfiles.delete(file))
    checkedProfiles.set(file, text)
  }
  return text
}

/**
 * ./.pgloadgen/pgdata for the default major, as always; pgdata-N for another.
 * @param {number} major
 */
export function defaultDataDir(major) {
  return major === DEFAULT_MAJOR ? DEFAULT_DATA_DIR : `${DEFAULT_DATA_DIR}-${major}`
}
