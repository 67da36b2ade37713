import { InputError, rephrased } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'
import { parsePgUrl } from '../config/pg-url.js'
import { parseDiskLimit } from '../lab/disk-throttle.js'
import { chooseServer } from '../embedded/server-choice.js'
import { DEFAULT_MAJOR, parseMajor } from '../embedded/majors.js'
import { object, string, wrap } from './plan-fields.js'
import { fieldNames } from './plan-table.js'

// The server of a plan, and what a variant changes of it: its major, its
// profile and settings over the profile's. A plan's `matrix:` is the
// product of lists of these, crossed with each variant.

/**
 * @typedef {Record<string, string | number | boolean>} Settings
 * @typedef {{ kind: 'embedded', profile: string, dataDir: string | null,
 *     diskLimit: import('../lab/disk-throttle.js').DiskLimit | null, version: number, settings: Settings }}
 * EmbeddedPlanServer
 * @typedef {{ kind: 'url', url: string, dataDir: string, driver: 'zfs' | 'copy',
 *     dataset: string | null }} UrlPlanServer
 * @typedef {{ version?: number, profile?: string, settings?: Settings }} VariantServer   what a variant changes
 * @typedef {{ major: number, profile: string, settings: Settings }} EffectiveServer
 */

export const MAX_VARIANTS = 64
// the fields each server takes are plan-table.js's
const EMBEDDED_FIELDS = fieldNames('server (embedded)')
const URL_FIELDS = fieldNames('server (url)')
const VARIANT_FIELDS = fieldNames('variants[i].server')

/**
 * @param {unknown} value
 * @returns {EmbeddedPlanServer | UrlPlanServer}
 */
export function parsePlanServer(value) {
  if (value === undefined) {
    return { kind: 'embedded', profile: 'lab', dataDir: null, diskLimit: null, version: DEFAULT_MAJOR, settings: {} }
  }
  const server = object(value, 'server')
  if (server.url !== undefined) {
    if (server.disk_limit !== undefined) {
      throw new InputError(
        'server.disk_limit: only for the embedded server (pgloadgen cannot move a server it did not start into a cgroup)',
        { code: 'PGLG_EMBEDDED_ONLY' }
      )
    }
    for (const key of ['version', 'settings', 'profile'])
      if (server[key] !== undefined) {
        throw new InputError(
          `server.${key}: only for the embedded server (the server at the URL runs as it was set up)`,
          { code: 'PGLG_EMBEDDED_ONLY' }
        )
      }
    for (const key of Object.keys(server)) {
      if (!URL_FIELDS.includes(key)) {
        throw new InputError(`server.${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
      }
    }
    if (server.data_dir === undefined) {
      throw new InputError(
        'server.data_dir: missing: a server given by URL needs the data directory its snapshots are taken of',
        { code: 'PGLG_MISSING_VALUE' }
      )
    }
    const driver =
      server.snapshot_driver === undefined ? 'copy' : string(server.snapshot_driver, 'server.snapshot_driver')
    if (driver !== 'zfs' && driver !== 'copy') {
      throw new InputError('server.snapshot_driver: zfs or copy', { code: 'PGLG_INVALID_CHOICE' })
    }
    // checked now: the runner creates --out before it connects
    const url = string(server.url, 'server.url')
    wrap('server.url', () => parsePgUrl(url))
    return {
      kind: 'url',
      url,
      dataDir: string(server.data_dir, 'server.data_dir'),
      driver,
      dataset: server.dataset === undefined ? null : string(server.dataset, 'server.dataset')
    }
  }
  for (const key of Object.keys(server))
    if (!EMBEDDED_FIELDS.includes(key)) {
      throw new InputError(`server.${printable(key, 40)}: unknown field (known: ${EMBEDDED_FIELDS.join(', ')})`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
  const profile = server.profile === undefined ? 'lab' : string(server.profile, 'server.profile')
  // a slower disk for the server (lib/lab/disk-throttle.js); root and a cgroup controller are checked when the plan
  // runs
  const diskLimit = server.disk_limit === undefined ? null : parseDiskLimit(server.disk_limit, 'server.disk_limit')
  return {
    kind: 'embedded',
    profile,
    dataDir: server.data_dir === undefined ? null : string(server.data_dir, 'server.data_dir'),
    diskLimit,
    version: parseMajor(server.version, 'server.version'),
    settings: parseSettings(server.settings, 'server.settings')
  }
}

/**
 * A variant's own `server:`.
 * @param {unknown} value
 * @param {string} field
 * @returns {VariantServer | null}
 */
export function parseVariantServer(value, field) {
  if (value === undefined) return null
  const server = object(value, field)
  for (const key of Object.keys(server))
    if (!VARIANT_FIELDS.includes(key)) {
      throw new InputError(
        `${field}.${printable(key, 40)}: unknown field (a variant's server takes ${VARIANT_FIELDS.join(', ')})`,
        { code: 'PGLG_UNKNOWN_OPTION' }
      )
    }
  return {
    ...(server.version !== undefined && { version: parseMajor(server.version, `${field}.version`) }),
    ...(server.profile !== undefined && { profile: string(server.profile, `${field}.profile`) }),
    ...(server.settings !== undefined && { settings: parseSettings(server.settings, `${field}.settings`) })
  }
}

/**
 * @param {unknown} value
 * @param {string} field
 * @returns {Settings}
 */
function parseSettings(value, field) {
  if (value === undefined) return {}
  const settings = object(value, field)
  for (const [name, setting] of Object.entries(settings)) {
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name)) {
      throw new InputError(`${field}: ${quote(printable(name, 40))} is not a setting name`, {
        code: 'PGLG_INVALID_NAME'
      })
    }
    if (
      !['string', 'number', 'boolean'].includes(typeof setting) ||
      (typeof setting === 'number' && !Number.isFinite(setting))
    ) {
      throw new InputError(`${field}.${name}: a string, number or boolean, got ${shown(setting)}`, {
        code: 'PGLG_INVALID_VALUE'
      })
    }
  }
  return /** @type {Settings} */ (settings)
}

/**
 * `matrix:` as a list of combinations, each a VariantServer and the words
 * its variants' names get: { version: [14, 16], 'settings.X': [200, 2000] }.
 * @param {unknown} value
 * @returns {Array<{ server: VariantServer, suffix: string }>}
 */
export function expandMatrix(value) {
  if (value === undefined) return [{ server: {}, suffix: '' }]
  const matrix = object(value, 'matrix')
  const axes = Object.entries(matrix)
  if (axes.length === 0) {
    throw new InputError('matrix: expected at least one list, e.g. version: [14, 16, 18]', {
      code: 'PGLG_INVALID_VALUE'
    })
  }
  /** @type {Array<{ server: VariantServer, suffix: string }>} */
  let combos = [{ server: {}, suffix: '' }]
  for (const [key, list] of axes) {
    const field = `matrix.${printable(key, 60)}`
    if (!Array.isArray(list) || list.length === 0) {
      throw new InputError(`${field}: expected a non-empty list`, { code: 'PGLG_MISSING_VALUE' })
    }
    if (key !== 'version' && key !== 'profile' && !/^settings\.[A-Za-z_][A-Za-z0-9_.]*$/.test(key)) {
      throw new InputError(`${field}: unknown key (a matrix takes version, profile and settings.NAME)`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
    if (combos.length * list.length > MAX_VARIANTS) {
      throw new InputError(`matrix: more than ${MAX_VARIANTS} combinations`, { code: 'PGLG_INVALID_NUMBER' })
    }
    combos = combos.flatMap(combo =>
      list.map((item, i) => {
        const where = `${field}[${i}]`
        if (key === 'version') {
          return { server: { ...combo.server, version: parseMajor(item, where) }, suffix: `${combo.suffix}-pg${item}` }
        }
        if (key === 'profile') {
          return {
            server: { ...combo.server, profile: string(item, where) },
            suffix: `${combo.suffix}-${nameWord(item)}`
          }
        }
        const name = key.slice('settings.'.length)
        const setting = parseSettings({ [name]: item }, field)[name]
        return {
          server: { ...combo.server, settings: { ...combo.server.settings, [name]: setting } },
          suffix: `${combo.suffix}-${name}-${nameWord(setting)}`
        }
      })
    )
  }
  return combos
}

/**
 * A variant's server: the plan's, with what the variant (and its matrix
 * combination) changes, each setting checked against its major now.
 * @param {EmbeddedPlanServer} plan
 * @param {VariantServer | null} own
 * @param {string} field
 * @returns {Promise<EffectiveServer>}
 */
export async function effectiveServer(plan, own, field) {
  const effective = {
    major: own?.version ?? plan.version,
    profile: own?.profile ?? plan.profile,
    settings: { ...plan.settings, ...own?.settings }
  }
  await chooseServer({
    pgVersion: effective.major,
    profile: effective.profile,
    settings: effective.settings,
    dataDir: null,
    where: field
  }).catch(err => {
    throw err instanceof InputError && !err.message.startsWith(field) ? rephrased(err, `${field}: ` + err.message) : err
  })
  return effective
}

/** @param {unknown} value */
function nameWord(value) {
  return String(value)
    .replace(/[^A-Za-z0-9._]+/g, '_')
    .slice(0, 40)
}
