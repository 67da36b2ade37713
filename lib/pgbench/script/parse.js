import path from 'node:path'
import { ScriptLoadError, ScriptSyntaxError } from '../errors.js'
import { KEEP_NONE, SQL } from './commands.js'
import { linkConditionals } from './conditionals.js'
import { MetaLexer } from './meta-lexer.js'
import { describe, parseMetaCommand } from './meta-command.js'
import { SqlScanner } from './sql-scanner.js'
import { firstLine, sqlCommand } from './sql-command.js'

// pgbench's ParseScript: SQL commands and backslash commands in the order of
// the text; \gset and \aset end the SQL command before them.

/**
 * @typedef {object} ParseOptions
 * @property {string} file              as the user gave it: errors say FILE:LINE:
 * @property {string} [name]            default: the file's name without directory and extension
 * @property {string} [description]     default: the file
 * @property {number} [weight]          default 1
 * @property {boolean} [usesBuiltin]    default false
 */

/**
 * @param {string} text
 * @param {ParseOptions} options
 * @returns {import('./commands.js').Script}
 */
export function parseScript(text, { file, name, description, weight = 1, usesBuiltin = false }) {
  const source = String(text)
  const lines = new LineIndex(source)
  const scanner = new SqlScanner(source)
  /** @type {import('./commands.js').Command[]} */
  const commands = []
  let pos = 0
  // the last backslash command as written, for a misplaced \gset's message
  let previousMeta = ''
  for (;;) {
    const scanned = scanner.scan(pos)
    if (scanned.text !== null) commands.push(sqlCommand(scanned.text, lines.lineOf(scanned.start)))
    if (scanned.stop !== 'backslash') {
      if (scanned.stop === 'end') break
      pos = scanned.next
      continue
    }
    const offset = scanned.next - 1
    const line = lines.lineOf(offset)
    const lexer = new MetaLexer(source, scanned.next)
    let command
    try {
      command = parseMetaCommand(lexer, { line, offset })
    } catch (err) {
      if (err instanceof ScriptSyntaxError) throw new ScriptLoadError(`${file}:${line}: ${err.message}`, { cause: err })
      throw err
    }
    pos = lexer.next
    if (command === null) continue
    if (command.kind === 'gset') {
      // pgbench says \gset for \aset too
      const previous = commands[commands.length - 1]
      if (previous === undefined || (previous.kind === SQL && previous.keep !== KEEP_NONE)) {
        throw new ScriptLoadError(`${file}:${line}: \\gset must follow an SQL command`)
      }
      if (previous.kind !== SQL) {
        throw new ScriptLoadError(
          `${file}:${line}: ${describe('\\gset must follow an SQL command', { more: previousMeta })}`
        )
      }
      previous.keep = command.keep
      previous.prefix = command.prefix
      continue
    }
    commands.push(command)
    previousMeta = firstLine(source.slice(offset, lexer.next))
  }

  const shownAs = description ?? file
  if (commands.length === 0) throw new ScriptLoadError(`empty command list for script "${shownAs}"`)
  const conditionError = linkConditionals(commands)
  if (conditionError !== null) throw new ScriptLoadError(`${file}:${conditionError.line}: ${conditionError.message}`)

  return {
    name: name ?? scriptName(file),
    file,
    description: shownAs,
    weight,
    commands,
    usesBuiltin
  }
}

/**
 * A script's name from its file: no directory, no extension.
 * @param {string} file
 */
export function scriptName(file) {
  if (file === '-') return 'stdin'
  const base = path.basename(file)
  const ext = path.extname(base)
  return ext.length > 0 && ext.length < base.length ? base.slice(0, -ext.length) : base
}

/** Line numbers of offsets, from the offsets of the newlines. */
class LineIndex {
  /** @param {string} source */
  constructor(source) {
    /** @type {number[]} */
    this.newlines = []
    for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) this.newlines.push(i)
  }

  /**
   * 1-based line of an offset.
   * @param {number} offset
   */
  lineOf(offset) {
    let low = 0
    let high = this.newlines.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.newlines[mid] < offset) low = mid + 1
      else high = mid
    }
    return low + 1
  }
}
