import { readFileSync } from 'node:fs'
import { InputError } from '../errors.js'

// Which server settings each major has, so that a profile or a variant's
// settings are checked against the major before anything is fetched or
// started: a setting the major lacks is refused by name, and a setting that
// PostgreSQL only renamed is written under the major's name.
// settings-by-major.json is read off real servers of every major by
// test/setup/settings-by-major.js; the per-major test checks it still holds.

/** @type {Record<string, [number, number]>} name → [first major, last major] */
const SETTINGS = JSON.parse(readFileSync(new URL('./settings-by-major.json', import.meta.url), 'utf8'))

// Pure renames among the majors the lab runs: old name, new name, the major
// of the change (release notes of 16 and 18).
const RENAMES = [
  { old: 'force_parallel_mode', now: 'debug_parallel_query', at: 16 },
  { old: 'ssl_ecdh_curve', now: 'ssl_groups', at: 18 }
]

/**
 * The name a setting has on a major: itself, or its other name where
 * PostgreSQL renamed it. Names with a dot are extensions' (pg_stat_statements.max)
 * and pass as they are. Throws InputError for a setting the major lacks.
 * @param {string} name
 * @param {number} major
 * @param {string} where   the profile or plan field, for the message
 * @returns {string}
 */
export function settingName(name, major, where) {
  if (name.includes('.')) return name
  const lower = name.toLowerCase()
  const span = SETTINGS[lower]
  if (span && span[0] <= major && major <= span[1]) return name
  for (const rename of RENAMES) {
    if (lower === rename.old && major >= rename.at) return rename.now
    if (lower === rename.now && major < rename.at) return rename.old
  }
  if (!span) {
    throw new InputError(`${where}: unknown PostgreSQL setting ${JSON.stringify(name)}`, {
      code: 'PGLG_INVALID_SERVER_CONFIG'
    })
  }
  const newest = Math.max(...Object.values(SETTINGS).map(s => s[1]))
  const oldest = Math.min(...Object.values(SETTINGS).map(s => s[0]))
  const when =
    span[1] === newest
      ? `it came in PostgreSQL ${span[0]}`
      : span[0] === oldest
        ? `it was removed in PostgreSQL ${span[1] + 1}`
        : `PostgreSQL ${span[0]} to ${span[1]} have it`
  throw new InputError(`${where}: PostgreSQL ${major} has no setting ${name} (${when})`, {
    code: 'PGLG_INVALID_SERVER_CONFIG'
  })
}

const SETTING_LINE = /^(\s*)([A-Za-z_][\w.]*)(\s*=?\s*)(.*)$/

/**
 * A postgresql.conf fragment as a major takes it: every setting checked,
 * renamed ones written under the major's name.
 * @param {string} text   the profile with its includes expanded
 * @param {number} major
 * @param {string} where
 * @returns {string}
 */
export function adaptConf(text, major, where) {
  return text
    .split('\n')
    .map(line => {
      const match = SETTING_LINE.exec(line)
      if (!match || /^\s*#/.test(line)) return line
      const [, indent, name, separator, rest] = match
      if (name === 'include' || name === 'include_if_exists' || name === 'include_dir') return line
      const known = settingName(name, major, where)
      return known === name ? line : `${indent}${known}${separator}${rest}  # ${name} before PostgreSQL renamed it`
    })
    .join('\n')
}

/**
 * A map of settings (a variant's server.settings) checked against a major,
 * as postgresql.conf lines. Values are quoted as the server reads them.
 * @param {Record<string, string | number | boolean>} settings
 * @param {number} major
 * @param {string} where
 * @returns {string[]}
 */
export function settingsLines(settings, major, where) {
  return Object.entries(settings).map(
    ([name, value]) => `${settingName(name, major, `${where}.${name}`)} = ${confValue(value)}`
  )
}

/** @param {string | number | boolean} value */
function confValue(value) {
  if (typeof value === 'number') return String(value)
  if (typeof value === 'boolean') return value ? 'on' : 'off'
  return `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
}
