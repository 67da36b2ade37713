import { createHash } from 'node:crypto'
import { isLetter, isVariableChar, COLON } from './chars.js'
import { KEEP_NONE, SQL } from './commands.js'

// pgbench's variable references in SQL: every ":name" anywhere in the text
// (pgbench does not look at quotes or comments here), where name starts with
// a letter or "_" and goes on with letters, digits and "_"; a run of colons
// not followed by such a name (as in "::int") is no reference. With the
// extended protocol each reference becomes the next parameter $1, $2, ...
// (a variable used twice takes two parameters); with the simple protocol the
// variable's text replaces the reference, as it is, when the variable exists.

// pgbench's MAX_ARGS - 1
export const MAX_PARAMETERS = 255

/**
 * @param {string} text  the command, as the SQL scanner collected it
 * @param {number} line
 * @returns {import('./commands.js').SqlCommand}
 */
export function sqlCommand(text, line) {
  /** @type {string[]} */
  const variables = []
  /** @type {string[]} */
  const pieces = []
  const n = text.length
  let from = 0
  let p = text.indexOf(':')
  while (p >= 0) {
    let end = p + 1
    if (end < n && isLetter(text.charCodeAt(end))) {
      end++
      while (end < n && isVariableChar(text.charCodeAt(end))) end++
      pieces.push(text.slice(from, p))
      variables.push(text.slice(p + 1, end))
      from = end
      p = text.indexOf(':', end)
    } else {
      while (text.charCodeAt(p) === COLON) p++
      p = text.indexOf(':', p)
    }
  }
  pieces.push(text.slice(from))

  let parameterized = pieces[0]
  for (let i = 0; i < variables.length; i++) parameterized += `$${i + 1}${pieces[i + 1]}`
  const paramsError =
    variables.length > MAX_PARAMETERS
      ? `statement has too many arguments (maximum is ${MAX_PARAMETERS}): ${firstLine(text)}`
      : null

  return {
    kind: SQL,
    line,
    text,
    variables,
    references: variables.map(name => `:${name}`),
    pieces,
    statement: { name: statementName(parameterized), text: parameterized },
    keep: KEEP_NONE,
    prefix: '',
    paramsError
  }
}

/**
 * A prepared statement's name made from its text: the same on every
 * connection and for every script that has the same statement, and never
 * the same for two different statements.
 * @param {string} text
 */
function statementName(text) {
  return `pgbench_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`
}

/**
 * The command's first line, for messages.
 * @param {string} text
 */
export function firstLine(text) {
  const end = text.search(/[\r\n]/)
  return end < 0 ? text : text.slice(0, end)
}
