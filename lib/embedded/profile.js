import { readFile } from 'node:fs/promises'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'

const PROFILE_DIR = fileURLToPath(new URL('../../notes/postgres/', import.meta.url))

/**
 * The profiles of notes/postgres/, by name (lab, io-bound, vacuum-2018, …).
 * @returns {string[]}
 */
export function profileNames() {
  try {
    return readdirSync(PROFILE_DIR)
      .filter(f => f.endsWith('.conf'))
      .map(f => f.slice(0, -'.conf'.length))
      .sort()
  } catch {
    return []
  }
}

/** What --profile takes, for the help of the commands that have it. */
export function profileHelp() {
  return `PostgreSQL settings of the embedded server: a profile of notes/postgres/ (${profileNames().join(', ')}) or a .conf path`
}

/**
 * A profile is a postgresql.conf fragment: a name of a file in notes/postgres/
 * (without .conf) or a path.
 * @param {string} nameOrPath
 * @returns {string} the file's path
 */
export function resolveProfile(nameOrPath) {
  const file = /[/\\]|\.conf$/.test(nameOrPath)
    ? path.resolve(nameOrPath)
    : path.join(PROFILE_DIR, `${nameOrPath}.conf`)
  if (!existsSync(file)) {
    throw new InputError(
      `unknown PostgreSQL profile ${quote(nameOrPath)} (notes/postgres/ has ${profileNames().join(', ')}; or give the path of a .conf file)`,
      { code: 'PGLG_INVALID_SERVER_CONFIG' }
    )
  }
  return file
}

/**
 * The profile's text with its include directives expanded, since it is
 * copied into the data directory where relative includes would not resolve.
 * @param {string} file
 * @param {number} [depth]
 * @returns {Promise<string>}
 */
export async function readProfile(file, depth = 0) {
  if (depth > 5) {
    throw new InputError(`PostgreSQL profile includes nest too deep at ${file}`, { code: 'PGLG_INVALID_SERVER_CONFIG' })
  }
  const text = await readFile(file, 'utf8')
  const lines = []
  for (const line of text.split('\n')) {
    const match = /^\s*include(?:_if_exists)?\s*=?\s*'([^']+)'/.exec(line)
    if (match) lines.push(await readProfile(path.resolve(path.dirname(file), match[1]), depth + 1))
    else lines.push(line)
  }
  return lines.join('\n')
}
