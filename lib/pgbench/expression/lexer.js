// Tokens of pgbench's expression language, read one at a time as the
// parser asks for them, with the rules of pgbench's exprscan.l: longest
// match, keywords before names, ASCII case-insensitive keywords, any
// non-ASCII character allowed in names, backslash-newline ignored, a bare
// newline ending the expression.
import { ScriptSyntaxError } from '../errors.js'
import { asciiLower, strtodouble, strtoint64 } from './text-value.js'

/**
 * @typedef {'op' | 'int' | 'maxint' | 'double' | 'variable' | 'name' | 'keyword' | 'bool' | 'null' | 'end'} TokenKind
 * @typedef {{ kind: TokenKind, text: string, start: number, end: number, value?: bigint | number | boolean }} Token
 */

const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'isnull', 'notnull', 'case', 'when', 'then', 'else', 'end'])
const TWO_CHAR_OPERATORS = new Set(['<>', '!=', '<=', '>=', '<<', '>>'])
const ONE_CHAR_OPERATORS = new Set(['+', '-', '*', '/', '%', '=', '<', '>', '|', '&', '#', '~', '(', ')', ','])
const NUMBER = /[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/y
const FRACTION = /\.[0-9]+([eE][-+]?[0-9]+)?/y
const DIGITS = /[0-9]+/y
const INT64_MIN_MAGNITUDE = '9223372036854775808'

/** @param {number} code */
function isNameStart(code) {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code >= 0x80
}

/** @param {number} code */
function isNameChar(code) {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39)
}

/** @param {number} code  space, tab, carriage return, form feed, vertical tab */
function isSpace(code) {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0c || code === 0x0b
}

export class Lexer {
  /** @param {string} text */
  constructor(text) {
    this.text = text
    this.position = 0
    /** where the expression ended: the text's end, or a bare newline */
    this.stop = -1
  }

  /**
   * The next token; a lexical error throws ScriptSyntaxError.
   * @returns {Token}
   */
  next() {
    const text = this.text
    let i = this.position
    for (;;) {
      const code = text.charCodeAt(i)
      if (isSpace(code)) {
        i++
        continue
      }
      if (code === 0x5c) {
        const after = text.charCodeAt(i + 1) === 0x0d ? i + 2 : i + 1
        if (text.charCodeAt(after) === 0x0a) {
          i = after + 1
          continue
        }
      }
      break
    }
    if (i >= text.length || text.charCodeAt(i) === 0x0a) {
      if (this.stop < 0) this.stop = i
      this.position = i
      return { kind: 'end', text: '', start: i, end: i }
    }
    const code = text.charCodeAt(i)
    const pair = text.slice(i, i + 2)
    if (TWO_CHAR_OPERATORS.has(pair)) return this.token('op', i, i + 2, pair === '!=' ? '<>' : pair)
    const char = text[i]
    if (ONE_CHAR_OPERATORS.has(char)) return this.token('op', i, i + 1)
    if (code === 0x3a) {
      let end = i + 1
      while (end < text.length && isNameChar(text.charCodeAt(end))) end++
      if (end > i + 1) return this.token('variable', i, end, text.slice(i + 1, end))
      return this.fail('unexpected character', char, i, i + 1)
    }
    if (code >= 0x30 && code <= 0x39) return this.number(i)
    if (code === 0x2e) {
      FRACTION.lastIndex = i
      if (FRACTION.test(text)) return this.double(i, FRACTION.lastIndex)
      return this.fail('unexpected character', char, i, i + 1)
    }
    if (isNameStart(code)) {
      let end = i + 1
      while (end < text.length && isNameChar(text.charCodeAt(end))) end++
      const word = text.slice(i, end)
      const lower = asciiLower(word)
      if (lower === 'null') return this.token('null', i, end)
      if (lower === 'true' || lower === 'false') return { ...this.token('bool', i, end), value: lower === 'true' }
      if (KEYWORDS.has(lower)) return this.token('keyword', i, end, lower)
      return this.token('name', i, end, word)
    }
    // One character, or a whole surrogate pair, as pgbench shows one byte.
    const width = code >= 0xd800 && code < 0xdc00 && i + 1 < text.length ? 2 : 1
    return this.fail('unexpected character', text.slice(i, i + width), i, i + width)
  }

  /**
   * An integer or double constant at i: the longest match wins, an integer
   * on a tie; INT64_MIN's magnitude is a token of its own, valid only after
   * a unary minus.
   * @param {number} i
   */
  number(i) {
    const text = this.text
    NUMBER.lastIndex = i
    NUMBER.test(text)
    const numberEnd = NUMBER.lastIndex
    DIGITS.lastIndex = i
    DIGITS.test(text)
    const digitsEnd = DIGITS.lastIndex
    if (numberEnd > digitsEnd) return this.double(i, numberEnd)
    const digits = text.slice(i, digitsEnd)
    if (digits === INT64_MIN_MAGNITUDE) return this.token('maxint', i, digitsEnd)
    const parsed = strtoint64(digits)
    if (!parsed.ok) return this.fail('bigint constant overflow', digits, i, digitsEnd)
    return { ...this.token('int', i, digitsEnd), value: parsed.value }
  }

  /**
   * @param {number} start
   * @param {number} end
   */
  double(start, end) {
    const literal = this.text.slice(start, end)
    const value = strtodouble(literal)
    if (value === undefined) return this.fail('double constant overflow', literal, start, end)
    return { ...this.token('double', start, end), value }
  }

  /**
   * @param {TokenKind} kind
   * @param {number} start
   * @param {number} end
   * @param {string} [text]  the token's canonical text
   * @returns {Token}
   */
  token(kind, start, end, text) {
    this.position = end
    return { kind, text: text ?? this.text.slice(start, end), start, end }
  }

  /**
   * A lexical error, reported (as pgbench does) at the token's last character.
   * @param {string} message
   * @param {string} more
   * @param {number} start
   * @param {number} end
   * @returns {never}
   */
  fail(message, more, start, end) {
    this.position = end
    throw new ScriptSyntaxError(`${message} (${more})`, { column: Math.max(start, end - 1) })
  }
}
