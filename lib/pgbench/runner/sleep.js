import { ScriptRuntimeError } from '../errors.js'
import { isDigit } from '../script/chars.js'

// \sleep (pgbench's evaluateSleep): a constant, or a variable's text read as
// C's atoi reads it, times the unit.

// setTimeout's longest delay (about 24.8 days); beyond it Node fires at once
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1

/**
 * How long a \sleep waits, in microseconds.
 * @param {import('../script/commands.js').SleepCommand} command
 * @param {import('../variables.js').Variables} variables
 */
export function sleepMicroseconds(command, variables) {
  if (command.variable === null) return command.amount * command.unitUs
  const text = variables.text(command.variable)
  if (text === undefined) throw new ScriptRuntimeError(`${command.word}: undefined variable "${command.variable}"`)
  const amount = atoi(text)
  if (amount === 0 && !isDigit(text.charCodeAt(0))) {
    throw new ScriptRuntimeError(`${command.word}: invalid sleep time "${text}" for variable "${command.variable}"`)
  }
  return amount * command.unitUs
}

/**
 * @param {number} microseconds
 * @returns {Promise<void>}
 */
export function sleep(microseconds) {
  const ms = Math.min(microseconds / 1000, LONGEST_TIMEOUT_MS)
  return new Promise(resolve => setTimeout(resolve, ms))
}

/**
 * C's atoi: leading spaces, a sign, digits; anything else ends the number.
 * @param {string} text
 */
export function atoi(text) {
  let i = 0
  while (i < text.length && (text.charCodeAt(i) === 32 || (text.charCodeAt(i) >= 9 && text.charCodeAt(i) <= 13))) i++
  let negative = false
  if (text[i] === '+' || text[i] === '-') negative = text[i++] === '-'
  let value = 0
  while (i < text.length && isDigit(text.charCodeAt(i))) value = value * 10 + text.charCodeAt(i++) - 48
  return negative ? -value : value
}
