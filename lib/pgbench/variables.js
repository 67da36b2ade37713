// A client's pgbench variables. A variable holds either a value (set by
// \set) or text (set by -D, \gset, \setshell), which is read as a value
// only when an expression uses it, as pgbench does; the text a variable
// puts into SQL is its original text, or the value written as pgbench
// writes it.
import { ScriptRuntimeError } from './errors.js'
import { parseVariableText } from './expression/text-value.js'
import { valueToText } from './expression/values.js'

/**
 * @typedef {import('./expression/values.js').Value} Value
 * @typedef {{ text: string | undefined, value: Value, parsed: boolean }} Slot
 *   parsed: value holds the variable's value (for text, once read)
 */

/**
 * Whether pgbench accepts name for a new variable: ASCII letters, digits
 * and underscores, and any non-ASCII character, not starting with a digit.
 * @param {string} name
 */
export function isValidVariableName(name) {
  if (typeof name !== 'string' || name.length === 0) return false
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i)
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code >= 0x80
    if (!letter && !(i > 0 && code >= 0x30 && code <= 0x39)) return false
  }
  return true
}

export class Variables {
  /**
   * @param {Iterable<[string, Value | string]>} [entries]  initial variables, as set() takes them
   */
  constructor(entries = []) {
    /** @type {Map<string, Slot>} */
    this.slots = new Map()
    for (const [name, value] of entries) this.set(name, value)
  }

  /**
   * Sets a variable, creating it if need be (a new name must be valid). A
   * string is text to be read when used; anything else is a value.
   * @param {string} name
   * @param {Value | string} value
   * @param {string} [context]  what sets it, prefixed to the error as pgbench does ("set", "startup")
   */
  set(name, value, context) {
    let slot = this.slots.get(name)
    if (slot === undefined) {
      if (!isValidVariableName(name)) {
        throw new ScriptRuntimeError(`${context === undefined ? '' : context + ': '}invalid variable name: "${name}"`)
      }
      slot = { text: undefined, value: null, parsed: false }
      this.slots.set(name, slot)
    }
    if (typeof value === 'string') {
      slot.text = value
      slot.value = null
      slot.parsed = false
    } else {
      slot.text = undefined
      slot.value = value
      slot.parsed = true
    }
  }

  /**
   * A variable's value, text read as pgbench's makeVariableValue reads it.
   * @param {string} name
   * @returns {Value}
   */
  get(name) {
    const slot = this.slots.get(name)
    if (slot === undefined) throw new ScriptRuntimeError(`undefined variable "${name}"`)
    if (!slot.parsed) {
      slot.value = parseVariableText(name, /** @type {string} */ (slot.text))
      slot.parsed = true
    }
    return slot.value
  }

  /**
   * The text that replaces :name in SQL; undefined when there is no such
   * variable (pgbench then leaves :name as it is).
   * @param {string} name
   * @returns {string | undefined}
   */
  text(name) {
    const slot = this.slots.get(name)
    if (slot === undefined) return undefined
    if (slot.text === undefined) slot.text = valueToText(slot.value)
    return slot.text
  }

  /** @param {string} name */
  has(name) {
    return this.slots.has(name)
  }

  /** The names of the variables, in the order they were first set. */
  names() {
    return this.slots.keys()
  }

  /** An independent copy: a client's variables from the initial ones. */
  clone() {
    const copy = new Variables()
    for (const [name, slot] of this.slots) copy.slots.set(name, { ...slot })
    return copy
  }
}
