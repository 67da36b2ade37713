// Error messages become label values, so they are folded into shapes
// (numbers, ids and quoted values replaced) and their number is capped: a
// flood of distinct errors must not create a flood of series.

export const OTHER_ERRORS = '(other errors)'
const MAX_LENGTH = 160

/**
 * @param {string} message
 * @returns {string}
 */
export function normaliseErrorMessage(message) {
  // A script's error starts with where it happened (FILE:LINE:): that place
  // is kept whole, there are only so many lines in a script.
  const located = /^([^\s:"']+:\d+): ([^]*)$/.exec(String(message))
  if (located) return `${located[1]}: ${normaliseErrorMessage(located[2])}`
  const folded = String(message)
    .replace(/"(?:[^"\\]|\\.)*"/g, '"?"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'?'")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '?')
    .replace(/\b0x[0-9a-f]+\b/gi, 'N')
    .replace(/(?<![A-Za-z_])\d+(?:\.\d+)?/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
  return folded.length > MAX_LENGTH ? folded.slice(0, MAX_LENGTH - 1) + '…' : folded || '(empty error message)'
}

export class ErrorMessageCounts {
  /** @param {number} [limit] distinct messages kept before folding into OTHER_ERRORS */
  constructor(limit = 50) {
    this.limit = limit
    /** @type {Map<string, number>} */
    this.counts = new Map()
  }

  /** @param {string} message raw message */
  add(message) {
    let key = normaliseErrorMessage(message)
    if (!this.counts.has(key) && this.counts.size >= this.limit) key = OTHER_ERRORS
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }

  /** @returns {Record<string, number>} */
  toJSON() {
    return Object.fromEntries(this.counts)
  }
}
