// The text of a summary: JSON indented for people, except that arrays of
// numbers (and of such arrays: a histogram's [index, count] pairs) stay on
// one line, so that the raw histograms do not take thousands of lines.

const INLINE = '\u0000inline:'

/**
 * @param {unknown} value
 * @returns {boolean}
 */
function isNumberList(value) {
  return (
    Array.isArray(value) &&
    value.every(v => typeof v === 'number' || (Array.isArray(v) && v.every(n => typeof n === 'number')))
  )
}

/**
 * @param {unknown} summary
 * @returns {string} with a final newline
 */
export function summaryJson(summary) {
  const text = JSON.stringify(
    summary,
    (_key, value) => (isNumberList(value) && value.length > 0 ? INLINE + JSON.stringify(value) : value),
    2
  )
  // the marker went through JSON.stringify as a string: "\u0000inline:[…]"; numbers hold no quote
  return text.replace(/"\\u0000inline:([^"]*)"/g, '$1') + '\n'
}
