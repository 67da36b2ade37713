import { ScriptSyntaxError } from '../errors.js'
import { parseExpression } from '../expression/parse.js'
import { compileExpression } from '../expression/compile.js'
import { isDigit, isVariableName } from './chars.js'
import {
  ELIF,
  ELSE,
  END_PIPELINE,
  ENDIF,
  IF,
  KEEP_ALL,
  KEEP_ONE,
  SET,
  SLEEP,
  START_PIPELINE,
  SYNC_PIPELINE
} from './commands.js'

// pgbench's backslash commands (process_backslash_command): their arguments
// are checked, and their expressions parsed and compiled, when the script is
// read. Errors have pgbench's wording, on one line.

/**
 * Where a backslash command is, for its messages.
 * @typedef {object} MetaContext
 * @property {number} line
 * @property {number} offset   of the backslash in the script
 */

/**
 * \gset or \aset: not a command of its own, it ends the SQL command before it.
 * @typedef {object} ResultTarget
 * @property {'gset'} kind
 * @property {number} keep      KEEP_ONE or KEEP_ALL
 * @property {string} prefix
 * @property {string} word
 */

const UNITS = new Map([
  ['us', 1],
  ['ms', 1000],
  ['s', 1000000]
])
/**
 * @type {Map<string, typeof ELSE | typeof ENDIF | typeof START_PIPELINE | typeof SYNC_PIPELINE
 *     | typeof END_PIPELINE>}
 */
const WITHOUT_ARGUMENTS = new Map([
  ['else', ELSE],
  ['endif', ENDIF],
  ['startpipeline', START_PIPELINE],
  ['syncpipeline', SYNC_PIPELINE],
  ['endpipeline', END_PIPELINE]
])

export class MetaSyntaxError extends ScriptSyntaxError {}

/**
 * pgbench's syntax_error() first line, without the location.
 * @param {string} message
 * @param {{ more?: string, command?: string, column?: number }} [details]
 */
export function describe(message, { more, command, column } = {}) {
  let text = message
  if (more !== undefined) text += ` (${more})`
  if (column !== undefined) text += ` at column ${column}`
  if (command !== undefined) text += ` in command "${command}"`
  return text
}

/**
 * Reads one backslash command from its lexer (just after the backslash).
 * @param {import('./meta-lexer.js').MetaLexer} lexer
 * @param {MetaContext} where
 * @returns {import('./commands.js').Command | ResultTarget | null}  null for a lone backslash
 */
export function parseMetaCommand(lexer, where) {
  const first = lexer.nextWord()
  if (first === null) return null
  const word = first.text
  const name = word.toLowerCase()
  const { line } = where

  if (name === 'set' || name === 'if' || name === 'elif') {
    let variable = ''
    if (name === 'set') {
      const target = lexer.nextWord()
      if (target === null) throw new MetaSyntaxError(describe('missing argument', { command: word }))
      variable = target.text
    }
    const rest = lexer.rest()
    const evaluate = compile(rest.text, rest.start - where.offset, word)
    // pgbench finds a bad name only when the command runs, and then fails
    // every time: refused here instead
    if (name === 'set' && !isVariableName(variable)) {
      throw new MetaSyntaxError(describe(`invalid variable name: "${variable}"`, { command: word }))
    }
    if (name === 'set') return { kind: SET, line, variable, expression: rest.text.trim(), evaluate }
    return { kind: name === 'if' ? IF : ELIF, line, expression: rest.text.trim(), evaluate, next: -1, endif: -1 }
  }

  if (name === 'shell' || name === 'setshell') {
    throw new MetaSyntaxError(`\\${name} is not supported by pgloadgen`)
  }

  const args = []
  for (let next = lexer.nextWord(); next !== null; next = lexer.nextWord()) args.push(next.text)

  if (name === 'sleep') return sleepCommand(word, args, line)
  const simple = WITHOUT_ARGUMENTS.get(name)
  if (simple !== undefined) {
    if (args.length > 0) throw new MetaSyntaxError(describe('unexpected argument', { command: word }))
    if (simple === ELSE || simple === ENDIF) return { kind: simple, line, endif: -1 }
    return { kind: simple, line }
  }
  if (name === 'gset' || name === 'aset') {
    if (args.length > 1) throw new MetaSyntaxError(describe('too many arguments', { command: word }))
    return { kind: 'gset', keep: name === 'gset' ? KEEP_ONE : KEEP_ALL, prefix: args[0] ?? '', word }
  }
  throw new MetaSyntaxError(describe('invalid command', { command: word }))
}

/**
 * @param {string} text     the expression
 * @param {number} column   0-based offset of text from the backslash
 * @param {string} word     the command, for messages
 */
function compile(text, column, word) {
  try {
    return compileExpression(parseExpression(text))
  } catch (err) {
    if (!(err instanceof ScriptSyntaxError)) throw err
    const at = err.column === undefined ? undefined : column + err.column + 1
    throw new MetaSyntaxError(describe(err.message, { column: at, command: word }), { cause: err })
  }
}

/**
 * \sleep N [us|ms|s], \sleep Nms, \sleep :variable [us|ms|s]
 * @param {string} word
 * @param {string[]} args
 * @param {number} line
 * @returns {import('./commands.js').SleepCommand}
 */
function sleepCommand(word, args, line) {
  if (args.length < 1) throw new MetaSyntaxError(describe('missing argument', { command: word }))
  if (args.length > 2) throw new MetaSyntaxError(describe('too many arguments', { command: word }))
  const time = args[0]
  let unit = args[1]
  let amount = 0
  if (!time.startsWith(':')) {
    let i = time[0] === '+' || time[0] === '-' ? 1 : 0
    const digitsStart = i
    while (i < time.length && isDigit(time.charCodeAt(i))) i++
    if (i < time.length) {
      if (args.length === 1 && i > digitsStart) unit = time.slice(i)
      else throw new MetaSyntaxError(describe('invalid sleep time, must be an integer', { more: time, command: word }))
    }
    amount = i > digitsStart ? Number(time.slice(0, i)) : 0
  }
  let unitUs = 1000000
  if (unit !== undefined) {
    const us = UNITS.get(unit.toLowerCase())
    if (us === undefined) {
      throw new MetaSyntaxError(describe('unrecognized time unit, must be us, ms or s', { more: unit, command: word }))
    }
    unitUs = us
  }
  return { kind: SLEEP, line, word, variable: time.startsWith(':') ? time.slice(1) : null, amount, unitUs }
}
