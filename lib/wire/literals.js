// Parameters written into the statement text as SQL literals, for the simple
// query protocol (pgbench -M simple), which has no parameters of its own.
// The text is split once at its placeholders ($1, $2, …), skipping those
// inside quoted strings, quoted identifiers, dollar-quoted strings and
// comments, so that each run only joins the pieces with the quoted values.
// Plain '…' strings are read as standard_conforming_strings (on since
// PostgreSQL 9.1) reads them: a backslash is an ordinary character.

/**
 * @typedef {string | number | bigint | boolean | null} Param
 */

/**
 * The text split at its placeholders: text, parameter number (1-based),
 * text, …, always starting and ending with a text (maybe empty).
 * @typedef {Array<string | number>} SplitText
 */

/** @type {WeakMap<object, SplitText>} */
const splits = new WeakMap()

/**
 * The statement's text with params written in as literals.
 * @param {{ text: string }} statement  the split is kept per statement object
 * @param {ReadonlyArray<Param>} params
 * @returns {string}
 */
export function inlineParams(statement, params) {
  let parts = splits.get(statement)
  if (parts === undefined) {
    parts = splitPlaceholders(statement.text)
    splits.set(statement, parts)
  }
  if (parts.length === 1) return /** @type {string} */ (parts[0])
  let sql = /** @type {string} */ (parts[0])
  for (let i = 1; i < parts.length; i += 2) {
    const number = /** @type {number} */ (parts[i])
    // a placeholder without a value stays, for the server to report
    sql += (number <= params.length ? quoteLiteral(params[number - 1]) : '$' + number) + parts[i + 1]
  }
  return sql
}

/**
 * @param {Param} value
 * @returns {string}
 */
export function quoteLiteral(value) {
  switch (typeof value) {
    case 'string':
      return quoteString(value)
    case 'number':
      // NaN and the infinities are no numeric literals; negative numbers
      // are parenthesized so that a cast binds to the whole value
      // ("(-5)::text", not "-(5::text)")
      if (!Number.isFinite(value)) return `'${value}'`
      return value < 0 ? `(${value})` : String(value)
    case 'bigint':
      return value < 0n ? `(${value})` : String(value)
    case 'boolean':
      return value ? 'true' : 'false'
    default:
      if (value === null) return 'NULL'
      throw new TypeError(`cannot send a parameter of type ${typeof value}`)
  }
}

/** @param {string} value */
function quoteString(value) {
  if (value.includes('\0')) throw new TypeError('a parameter holds a NUL character, which PostgreSQL text cannot hold')
  const quoted = value.includes("'") ? value.replaceAll("'", "''") : value
  // An escape string whenever there is a backslash: its meaning then does
  // not depend on standard_conforming_strings.
  return value.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`
}

/**
 * Splits the text at the placeholders the server would see as parameters.
 * @param {string} text
 * @returns {SplitText}
 */
export function splitPlaceholders(text) {
  /** @type {SplitText} */
  const parts = []
  let from = 0 // start of the text not yet taken into parts
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x27) {
      // '
      i = skipQuoted(text, i, 0x27, false)
    } else if (c === 0x22) {
      // "
      i = skipQuoted(text, i, 0x22, false)
    } else if (c === 0x2d && text.charCodeAt(i + 1) === 0x2d) {
      // -- up to a newline or carriage return
      i += 2
      while (i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      // /*
      i = skipBlockComment(text, i)
    } else if (isIdentifierStart(c)) {
      const start = i
      while (i < n && isIdentifierPart(text.charCodeAt(i))) i++
      // E'…': an escape string, where \' does not end it
      if (i === start + 1 && (c === 0x45 || c === 0x65) && text.charCodeAt(i) === 0x27) {
        i = skipQuoted(text, i, 0x27, true)
      }
    } else if (isDigit(c)) {
      // a number, whose letters ("1e5") must not start an identifier
      while (i < n && (isIdentifierStart(text.charCodeAt(i)) || isDigit(text.charCodeAt(i)))) i++
    } else if (c === 0x24) {
      // $
      if (isDigit(text.charCodeAt(i + 1))) {
        let end = i + 1
        while (end < n && isDigit(text.charCodeAt(end))) end++
        parts.push(text.slice(from, i), Number(text.slice(i + 1, end)))
        from = i = end
      } else {
        i = skipDollarQuoted(text, i)
      }
    } else {
      i++
    }
  }
  parts.push(text.slice(from))
  return parts
}

/**
 * @param {string} text
 * @param {number} i  the opening quote
 * @param {number} quote
 * @param {boolean} backslashEscapes
 * @returns {number} the index after the closing quote
 */
function skipQuoted(text, i, quote, backslashEscapes) {
  const n = text.length
  let j = i + 1
  while (j < n) {
    const c = text.charCodeAt(j)
    if (backslashEscapes && c === 0x5c) {
      j += 2
    } else if (c === quote) {
      if (text.charCodeAt(j + 1) !== quote) return j + 1
      j += 2 // a doubled quote stands for itself
    } else {
      j++
    }
  }
  return n
}

/**
 * Block comments nest in PostgreSQL.
 * @param {string} text
 * @param {number} i  the opening slash
 */
function skipBlockComment(text, i) {
  let depth = 0
  const n = text.length
  while (i < n) {
    if (text.charCodeAt(i) === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      depth++
      i += 2
    } else if (text.charCodeAt(i) === 0x2a && text.charCodeAt(i + 1) === 0x2f) {
      i += 2
      if (--depth === 0) return i
    } else {
      i++
    }
  }
  return n
}

/**
 * $$…$$ or $tag$…$tag$; a lone $ is skipped.
 * @param {string} text
 * @param {number} i  the opening dollar
 */
function skipDollarQuoted(text, i) {
  let j = i + 1
  if (isIdentifierStart(text.charCodeAt(j))) {
    while (j < text.length && isIdentifierPart(text.charCodeAt(j)) && text.charCodeAt(j) !== 0x24) j++
  }
  if (text.charCodeAt(j) !== 0x24) return i + 1
  const tag = text.slice(i, j + 1)
  const close = text.indexOf(tag, j + 1)
  return close === -1 ? text.length : close + tag.length
}

/** @param {number} c */
function isDigit(c) {
  return c >= 0x30 && c <= 0x39
}

/** @param {number} c  letters, underscore, and every non-ASCII character, as the server's lexer */
function isIdentifierStart(c) {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80
}

/** @param {number} c */
function isIdentifierPart(c) {
  return isIdentifierStart(c) || isDigit(c) || c === 0x24
}
