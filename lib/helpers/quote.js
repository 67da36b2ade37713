// How an error message shows what the user gave: on one line, whatever it
// held. Line breaks and other control characters are written as escapes
// (\n, \u001b), a lone surrogate as \udxxx, and a long input is cut, so
// that the message stays one readable line.

const MAX_SHOWN = 120

// What is written as an escape: control characters (the rule against them
// guards against typing them by mistake; here they are the point), line
// and paragraph separators, bidirectional marks and lone surrogates.
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * The text as it may appear inside a one-line message, without quotes.
 * @param {unknown} value
 * @param {number} [max]  characters kept of a longer text
 */
export function printable(value, max = MAX_SHOWN) {
  const text = String(value)
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text
  return cut.replace(UNPRINTABLE, escape)
}

/**
 * The text in double quotes, for a message: "text".
 * @param {unknown} value
 * @param {number} [max]
 */
export function quote(value, max = MAX_SHOWN) {
  return `"${printable(value, max)}"`
}

/** @param {string} c */
function escape(c) {
  switch (c) {
    case '\n':
      return '\\n'
    case '\r':
      return '\\r'
    case '\t':
      return '\\t'
    default:
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  }
}

/**
 * Any value a JSON or YAML document can give, for a message: a string
 * quoted, anything else as JSON (cut when long); never throws.
 * @param {unknown} value
 * @param {number} [max]
 */
export function shown(value, max = MAX_SHOWN) {
  if (typeof value === 'string') return quote(value, max)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value)
  }
  let text
  try {
    text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v))
  } catch {
    text = undefined
  }
  return printable(text ?? typeof value, max)
}
