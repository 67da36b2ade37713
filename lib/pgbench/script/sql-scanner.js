import {
  isDigit,
  isIdentifierChar,
  isLetter,
  isSqlSpace,
  isVariableChar,
  SEMICOLON,
  BACKSLASH,
  COLON,
  QUOTE,
  DOUBLE_QUOTE,
  DOLLAR,
  DASH,
  SLASH,
  STAR,
  OPEN,
  CLOSE,
  DOT
} from './chars.js'
import { skipBlockComment, skipDollar, skipDoubleQuoted, skipNumber, skipQuoted } from './sql-tokens.js'

// Splits a script's SQL the way pgbench does with psql's lexer (psqlscan.l):
// a command ends at a semicolon outside quotes, comments, parentheses and the
// body of CREATE FUNCTION ... BEGIN ATOMIC ... END, or at a backslash that
// starts a meta-command, or at the end of the text. "\;" and "\:" put a
// literal ";" or ":" in the command, and ":{?name}" becomes FALSE (pgbench
// gives the lexer no variables). Leading spaces and "--" comments are not
// part of a command.

/**
 * @typedef {object} ScannedSql
 * @property {string | null} text   the command, or null when there was nothing but space and comments
 * @property {number} start         offset of the command's first character (-1 without a command)
 * @property {'semicolon' | 'backslash' | 'end'} stop
 * @property {number} next          where to go on: after the semicolon, or after the backslash
 */

export class SqlScanner {
  /** @param {string} source */
  constructor(source) {
    this.source = source
    // The lexer's state that lives across commands, as in psqlscan.
    this.parenDepth = 0
    this.beginDepth = 0
    this.identifierCount = 0
    /** first letters of the first four identifiers when they are create/or/replace/function/procedure */
    this.leadingKeywords = ['', '', '', '']
  }

  /**
   * Scans one SQL command from offset pos.
   * @param {number} pos
   * @returns {ScannedSql}
   */
  scan(pos) {
    const src = this.source
    const n = src.length
    let i = pos
    let start = -1
    let built = ''
    let segment = -1

    /** @param {number} at */
    const begin = at => {
      if (start < 0) {
        start = at
        segment = at
      }
    }
    /**
     * @param {number} at
     * @param {number} length
     * @param {string} replacement
     */
    const replace = (at, length, replacement) => {
      begin(at)
      built += src.slice(segment, at) + replacement
      segment = at + length
    }
    /** @param {number} end */
    const textUpTo = end => (start < 0 ? null : built + src.slice(segment, end))

    while (i < n) {
      const c = src.charCodeAt(i)
      if (isSqlSpace(c)) {
        i++
        continue
      }
      const next = i + 1 < n ? src.charCodeAt(i + 1) : -1
      if (c === DASH && next === DASH) {
        const eol = src.indexOf('\n', i)
        i = eol < 0 ? n : eol
        continue
      }
      if (c === BACKSLASH) {
        if (next === SEMICOLON) {
          replace(i, 2, ';')
          this.identifierCount = 0
          i += 2
          continue
        }
        if (next === COLON) {
          replace(i, 2, ':')
          i += 2
          continue
        }
        return { text: textUpTo(i), start, stop: 'backslash', next: i + 1 }
      }
      begin(i)
      if (c === SLASH && next === STAR) {
        i = skipBlockComment(src, i + 2)
      } else if (c === QUOTE) {
        i = skipQuoted(src, i + 1, false)
      } else if (c === DOUBLE_QUOTE) {
        i = skipDoubleQuoted(src, i + 1)
      } else if (c === DOLLAR) {
        i = skipDollar(src, i)
      } else if (c === OPEN) {
        this.parenDepth++
        i++
      } else if (c === CLOSE) {
        if (this.parenDepth > 0) this.parenDepth--
        i++
      } else if (c === SEMICOLON) {
        i++
        if (this.parenDepth === 0 && this.beginDepth === 0) {
          this.identifierCount = 0
          return { text: textUpTo(i), start, stop: 'semicolon', next: i }
        }
      } else if (c === COLON) {
        i = this.colon(i, replace)
      } else if (isDigit(c) || (c === DOT && isDigit(next))) {
        i = skipNumber(src, i)
      } else if (isLetter(c)) {
        i = this.word(i)
      } else {
        i++
      }
    }
    return { text: textUpTo(n), start, stop: 'end', next: n }
  }

  /**
   * A colon: "::" and ":=" are operators, ":name" is left for pgbench's own
   * substitution (its letters are not SQL words), ":{?name}" tests a psql
   * variable, and pgbench has none.
   * @param {number} i
   * @param {(at: number, length: number, replacement: string) => void} replace
   */
  colon(i, replace) {
    const src = this.source
    const next = src.charCodeAt(i + 1)
    if (next === COLON || next === 61) return i + 2
    if (next === 123 && src.charCodeAt(i + 2) === 63) {
      let j = i + 3
      while (j < src.length && isVariableChar(src.charCodeAt(j))) j++
      if (j > i + 3 && src.charCodeAt(j) === 125) {
        replace(i, j + 1 - i, 'FALSE')
        return j + 1
      }
      return i + 1
    }
    let j = i + 1
    while (j < src.length && isVariableChar(src.charCodeAt(j))) j++
    return j
  }

  /**
   * A word starting with a letter: a prefixed string (E'', B'', X'', N'',
   * U&'', U&"") or an identifier, which may be a keyword of the
   * CREATE FUNCTION ... BEGIN ATOMIC heuristic.
   * @param {number} i
   */
  word(i) {
    const src = this.source
    const c = src.charCodeAt(i) | 32
    const next = src.charCodeAt(i + 1)
    if (next === QUOTE) {
      if (c === 101) return skipQuoted(src, i + 2, true)
      if (c === 98 || c === 120 || c === 110) return skipQuoted(src, i + 2, false)
    }
    if (c === 117 && next === 38) {
      const quote = src.charCodeAt(i + 2)
      if (quote === QUOTE) return skipQuoted(src, i + 3, false)
      if (quote === DOUBLE_QUOTE) return skipDoubleQuoted(src, i + 3)
    }
    let j = i + 1
    while (j < src.length && isIdentifierChar(src.charCodeAt(j))) j++
    this.identifier(src.slice(i, j).toLowerCase())
    return j
  }

  /**
   * psqlscan's heuristic: inside CREATE [OR REPLACE] FUNCTION|PROCEDURE,
   * BEGIN ... END (and CASE ... END within it) hide semicolons.
   * @param {string} word  lower case
   */
  identifier(word) {
    const keywords = this.leadingKeywords
    if (this.identifierCount === 0) keywords.fill('')
    if (word === 'create' || word === 'function' || word === 'procedure' || word === 'or' || word === 'replace') {
      if (this.identifierCount < keywords.length) keywords[this.identifierCount] = word[0]
    }
    this.identifierCount++
    const inRoutine =
      keywords[0] === 'c' &&
      (keywords[1] === 'f' ||
        keywords[1] === 'p' ||
        (keywords[1] === 'o' && keywords[2] === 'r' && (keywords[3] === 'f' || keywords[3] === 'p')))
    if (!inRoutine || this.parenDepth !== 0) return
    if (word === 'begin') this.beginDepth++
    else if (word === 'case') {
      if (this.beginDepth >= 1) this.beginDepth++
    } else if (word === 'end') {
      if (this.beginDepth > 0) this.beginDepth--
    }
  }
}
