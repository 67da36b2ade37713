// Character classes of pgbench's lexers (psqlscan.l, exprscan.l), on UTF-16
// code units: every non-ASCII unit counts as a letter, as every byte with the
// high bit set does there.

// The character codes the scanners look for.
export const SEMICOLON = 59
export const BACKSLASH = 92
export const COLON = 58
export const QUOTE = 39
export const DOUBLE_QUOTE = 34
export const DOLLAR = 36
export const DASH = 45
export const SLASH = 47
export const STAR = 42
export const OPEN = 40
export const CLOSE = 41
export const DOT = 46
export const NEWLINE = 10
export const RETURN = 13

/** @param {number} c */
export function isLetter(c) {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128
}

/** @param {number} c */
export function isDigit(c) {
  return c >= 48 && c <= 57
}

/** A character of a :variable name (psqlscan's variable_char). */
export function isVariableChar(/** @type {number} */ c) {
  return isLetter(c) || isDigit(c)
}

/** A character that may continue an SQL identifier: also "$". */
export function isIdentifierChar(/** @type {number} */ c) {
  return isLetter(c) || isDigit(c) || c === 36
}

/** Space for SQL: [ \t\n\r\f\v]. */
export function isSqlSpace(/** @type {number} */ c) {
  return c === 32 || (c >= 9 && c <= 13)
}

/** Space between the words of a backslash command: [ \t\r\f\v], not the newline. */
export function isWordSpace(/** @type {number} */ c) {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 13
}

/**
 * pgbench's rule for a variable's name: letters (any non-ASCII character
 * counts as one), digits and "_", not starting with a digit.
 * @param {string} name
 */
export function isVariableName(name) {
  if (name.length === 0 || !isLetter(name.charCodeAt(0))) return false
  for (let i = 1; i < name.length; i++) if (!isVariableChar(name.charCodeAt(i))) return false
  return true
}
