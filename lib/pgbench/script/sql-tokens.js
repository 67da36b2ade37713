import {
  isDigit,
  isIdentifierChar,
  isLetter,
  isVariableChar,
  BACKSLASH,
  QUOTE,
  DOUBLE_QUOTE,
  DOLLAR,
  DASH,
  SLASH,
  STAR,
  DOT
} from './chars.js'

// The SQL tokens the scanner steps over whole, as psqlscan.l reads them:
// comments, quoted strings and identifiers, dollar quotes, numbers. Each
// function takes the offset where the token's body starts and returns the
// offset after it (the end of the text when it is not closed).

/**
 * After "/*": to the matching close, comments nest.
 * @param {string} src
 * @param {number} i
 */
export function skipBlockComment(src, i) {
  let depth = 0
  const n = src.length
  while (i < n) {
    const c = src.charCodeAt(i)
    if (c === SLASH && src.charCodeAt(i + 1) === STAR) {
      depth++
      i += 2
    } else if (c === STAR && src.charCodeAt(i + 1) === SLASH) {
      if (depth === 0) return i + 2
      depth--
      i += 2
    } else {
      i++
    }
  }
  return n
}

/**
 * After an opening quote: to the closing one; '' is a quote, and with
 * backslash escapes (E'') so is \'.
 * @param {string} src
 * @param {number} i
 * @param {boolean} escapes
 */
export function skipQuoted(src, i, escapes) {
  const n = src.length
  while (i < n) {
    const c = src.charCodeAt(i)
    if (c === BACKSLASH && escapes) {
      i += 2
    } else if (c === QUOTE) {
      if (src.charCodeAt(i + 1) !== QUOTE) return i + 1
      i += 2
    } else {
      i++
    }
  }
  return n
}

/**
 * After an opening double quote: to the closing one; "" is a double quote.
 * @param {string} src
 * @param {number} i
 */
export function skipDoubleQuoted(src, i) {
  const n = src.length
  while (i < n) {
    if (src.charCodeAt(i) === DOUBLE_QUOTE) {
      if (src.charCodeAt(i + 1) !== DOUBLE_QUOTE) return i + 1
      i += 2
    } else {
      i++
    }
  }
  return n
}

/**
 * At a "$" that starts a token: a dollar quote $tag$...$tag$, a parameter $1,
 * or just the character.
 * @param {string} src
 * @param {number} i
 */
export function skipDollar(src, i) {
  const n = src.length
  let j = i + 1
  if (j < n && isDigit(src.charCodeAt(j))) {
    while (j < n && isIdentifierChar(src.charCodeAt(j))) j++
    return j
  }
  if (j < n && isLetter(src.charCodeAt(j))) {
    j++
    while (j < n && isVariableChar(src.charCodeAt(j))) j++
  }
  if (src.charCodeAt(j) !== DOLLAR) return i + 1
  const tag = src.slice(i, j + 1)
  const close = src.indexOf(tag, j + 1)
  return close < 0 ? n : close + tag.length
}

/**
 * A number, with whatever letters stick to it (psqlscan's *_junk tokens):
 * they are not SQL words.
 * @param {string} src
 * @param {number} i
 */
export function skipNumber(src, i) {
  const n = src.length
  while (i < n && isDigit(src.charCodeAt(i))) i++
  if (src.charCodeAt(i) === DOT && src.charCodeAt(i + 1) !== DOT) {
    i++
    while (i < n && isDigit(src.charCodeAt(i))) i++
  }
  if ((src.charCodeAt(i) | 32) === 101) {
    const sign = src.charCodeAt(i + 1)
    const signed = sign === 43 || sign === DASH
    const k = signed ? i + 2 : i + 1
    if (isDigit(src.charCodeAt(k))) {
      i = k
      while (i < n && isDigit(src.charCodeAt(i))) i++
    } else if (signed) {
      // "1e-" is a token of its own: a "-" after it does not start a comment
      return i + 2
    }
  }
  if (i < n && isLetter(src.charCodeAt(i))) {
    while (i < n && isIdentifierChar(src.charCodeAt(i))) i++
  }
  return i
}
