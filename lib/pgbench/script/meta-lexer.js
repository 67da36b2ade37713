import { isWordSpace, BACKSLASH, NEWLINE, RETURN } from './chars.js'

// The words of a backslash command, as pgbench's exprscan.l splits them: they
// are separated by spaces and end at the end of the line; a backslash right
// before the newline continues the command on the next line.

/**
 * @typedef {object} Word
 * @property {string} text
 * @property {number} start  offset in the script
 */

export class MetaLexer {
  /**
   * @param {string} source
   * @param {number} pos  just after the backslash
   */
  constructor(source, pos) {
    this.source = source
    this.pos = pos
    this.ended = false
  }

  /** Where the SQL lexer goes on: after the command's newline. */
  get next() {
    return this.pos
  }

  /**
   * Length of the continuation marker ("\" newline) at i, or 0.
   * @param {number} i
   */
  continuationAt(i) {
    const src = this.source
    if (src.charCodeAt(i) !== BACKSLASH) return 0
    const c = src.charCodeAt(i + 1)
    if (c === NEWLINE) return 2
    if (c === RETURN && src.charCodeAt(i + 2) === NEWLINE) return 3
    return 0
  }

  /**
   * The next word, or null at the end of the command.
   * @returns {Word | null}
   */
  nextWord() {
    const src = this.source
    const n = src.length
    while (!this.ended) {
      if (this.pos >= n) {
        this.ended = true
        break
      }
      const c = src.charCodeAt(this.pos)
      if (isWordSpace(c)) {
        this.pos++
        continue
      }
      if (c === NEWLINE) {
        this.pos++
        this.ended = true
        break
      }
      const skip = this.continuationAt(this.pos)
      if (skip > 0) {
        this.pos += skip
        continue
      }
      const start = this.pos
      let i = start
      while (i < n) {
        const d = src.charCodeAt(i)
        if (isWordSpace(d) || d === NEWLINE || this.continuationAt(i) > 0) break
        i++
      }
      this.pos = i
      return { text: src.slice(start, i), start }
    }
    return null
  }

  /**
   * The rest of the command, for an expression: continuation markers and
   * other spaces become plain spaces, so that offsets in the text stay
   * offsets in the script.
   * @returns {Word}
   */
  rest() {
    const src = this.source
    const n = src.length
    const start = this.pos
    if (this.ended) return { text: '', start }
    let text = ''
    let from = start
    let i = start
    while (i < n) {
      const c = src.charCodeAt(i)
      if (c === NEWLINE) break
      const skip = this.continuationAt(i)
      if (skip > 0) {
        text += src.slice(from, i) + ' '.repeat(skip)
        i += skip
        from = i
      } else if (c === RETURN || c === 11 || c === 12) {
        text += src.slice(from, i) + ' '
        i++
        from = i
      } else {
        i++
      }
    }
    text += src.slice(from, i)
    this.pos = i < n ? i + 1 : n
    this.ended = true
    return { text, start }
  }
}
