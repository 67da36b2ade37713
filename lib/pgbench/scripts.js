import { printable } from '../helpers/quote.js'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { findBuiltin } from './builtins.js'
import { ScriptLoadError } from './errors.js'
import { SQL } from './script/commands.js'
import { parseScript } from './script/parse.js'

export { parseScript }

// pgbench's -f FILE[@WEIGHT] and -b NAME[@WEIGHT]: each read and parsed before
// anything runs, every problem a one-line ScriptLoadError.

// pgbench's MAX_SCRIPTS
export const MAX_SCRIPTS = 128
const INT_MAX = 2147483647n
const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n

/** @typedef {import('./script/commands.js').Script} Script */

/**
 * @typedef {object} LoadOptions
 * @property {string[]} [files]      -f values, FILE[@WEIGHT]
 * @property {string[]} [builtins]   -b values, NAME[@WEIGHT]
 * @property {Array<{ file: string } | { builtin: string }>} [specs]
 *   the same in command-line order, when -f and -b are mixed (pgbench keeps
 *   that order); given, it replaces files and builtins, which otherwise come
 *   files first
 * @property {string} [baseDir]      relative files are read from here (default: the working directory)
 * @property {'simple' | 'extended' | 'prepared'} [protocol]  when known, checks what only its protocol refuses
 */

/**
 * @param {LoadOptions} options
 * @returns {Promise<Script[]>}
 */
export async function loadScripts({ files = [], builtins = [], specs, baseDir, protocol } = {}) {
  const order = specs ?? [...files.map(file => ({ file })), ...builtins.map(builtin => ({ builtin }))]
  /** @type {Script[]} */
  const scripts = []
  for (const spec of order) {
    if (scripts.length >= MAX_SCRIPTS) throw new ScriptLoadError(`at most ${MAX_SCRIPTS} SQL scripts are allowed`)
    if ('file' in spec) {
      const { name: file, weight } = parseScriptWeight(spec.file)
      const text = await readScript(file, baseDir)
      scripts.push(parseScript(text, { file, weight }))
    } else {
      const { name, weight } = parseScriptWeight(spec.builtin)
      scripts.push(builtinScript(name, weight))
    }
  }
  // pgbench runs its TPC-B-like script when given none
  if (scripts.length === 0) scripts.push(builtinScript('tpcb-like', 1))
  if (scripts.every(script => script.weight === 0)) throw new ScriptLoadError('total script weight must not be zero')
  if (protocol !== undefined && protocol !== 'simple') {
    for (const script of scripts) checkParameters(script)
  }
  return scripts
}

/**
 * A built-in script, found by pgbench's unique-prefix rule.
 * @param {string} name
 * @param {number} [weight]
 * @returns {Script}
 */
export function builtinScript(name, weight = 1) {
  const builtin = findBuiltin(name)
  return parseScript(builtin.text, {
    file: builtin.name,
    name: builtin.name,
    description: builtin.description,
    weight,
    usesBuiltin: true
  })
}

/**
 * pgbench's parseScriptWeight: NAME@WEIGHT, split at the last "@"; the
 * weight is a non-negative integer (strtol's syntax), 1 when absent.
 * @param {string} option
 * @returns {{ name: string, weight: number }}
 */
export function parseScriptWeight(option) {
  const at = option.lastIndexOf('@')
  if (at < 0) return { name: option, weight: 1 }
  const spec = option.slice(at)
  const match = /^[ \t\n\v\f\r]*([+-]?[0-9]+)$/.exec(spec.slice(1))
  if (match === null) throw new ScriptLoadError(`invalid weight specification: ${printable(spec)}`)
  const value = BigInt(match[1])
  if (value < LONG_MIN || value > LONG_MAX) {
    throw new ScriptLoadError(`invalid weight specification: ${printable(spec)}`)
  }
  if (value < 0n || value > INT_MAX) {
    throw new ScriptLoadError(`weight specification out of range (0 .. ${INT_MAX}): ${value}`)
  }
  return { name: option.slice(0, at), weight: Number(value) }
}

/**
 * @param {string} file   as given; "-" is the standard input
 * @param {string} [baseDir]
 */
async function readScript(file, baseDir) {
  try {
    if (file === '-') return await readStdin()
    return await readFile(path.resolve(baseDir ?? '.', file), 'utf8')
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code ?? ''
    const verb = code === 'EISDIR' ? 'read' : 'open'
    throw new ScriptLoadError(
      `could not ${verb} file "${printable(file)}": ` +
        (SYSTEM_ERRORS[code] ?? (code || /** @type {Error} */ (err).message)),
      { cause: err }
    )
  }
}

async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * With the extended protocol, pgbench refuses a statement that uses more
 * than 255 variables.
 * @param {Script} script
 */
function checkParameters(script) {
  for (const command of script.commands) {
    if (command.kind === SQL && command.paramsError !== null) {
      throw new ScriptLoadError(`${script.file}:${command.line}: ${command.paramsError}`)
    }
  }
}

/** @type {Record<string, string>} strerror() of the usual errors */
const SYSTEM_ERRORS = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EMFILE: 'Too many open files',
  EIO: 'Input/output error'
}
