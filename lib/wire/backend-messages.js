// Decoding of the bodies of the backend messages the client reads. Each
// function takes the message's buffer and the bounds of its body, so that
// nothing is copied out of the socket's chunk but the values asked for.

/**
 * The trailing number of a command tag ("INSERT 0 1", "UPDATE 3"); 0 for a
 * tag without one ("BEGIN").
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end  index of the terminating zero
 */
export function tagRowCount(buf, start, end) {
  let n = 0
  let scale = 1
  for (let i = end - 1; i >= start; i--) {
    const c = buf[i]
    if (c < 0x30 || c > 0x39) break
    n += (c - 0x30) * scale
    scale *= 10
  }
  return n
}

// Command words seen so far, by a key of their length and first and last
// bytes: a workload has a handful of them, and looking one up is cheaper
// than decoding a new string for every statement.
/** @type {Map<number, string>} */
const commandWords = new Map()
const MAX_COMMAND_WORDS = 256

/**
 * The command tag without its numbers: "INSERT 0 1" → "INSERT",
 * "SELECT 5" → "SELECT", "CREATE TABLE" → "CREATE TABLE".
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end  index of the terminating zero
 * @returns {string}
 */
export function tagCommand(buf, start, end) {
  let cut = end
  for (;;) {
    let i = cut
    while (i > start && buf[i - 1] >= 0x30 && buf[i - 1] <= 0x39) i--
    if (i === cut || i <= start || buf[i - 1] !== 0x20) break
    cut = i - 1
  }
  const length = cut - start
  if (length === 0) return ''
  const key = length * 65536 + buf[start] * 256 + buf[cut - 1]
  const known = commandWords.get(key)
  if (known !== undefined && sameAscii(known, buf, start, length)) return known
  const word = buf.toString('utf8', start, cut)
  if (commandWords.size < MAX_COMMAND_WORDS) commandWords.set(key, word)
  return word
}

/**
 * @param {string} word
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} length
 */
function sameAscii(word, buf, start, length) {
  if (word.length !== length) return false
  for (let i = 1; i < length - 1; i++) if (word.charCodeAt(i) !== buf[start + i]) return false
  return true
}

// Values up to this many bytes are decoded here when they are ASCII (ids,
// counts, short codes: most of what the hot path reads): cheaper than the
// native decoder's call, and V8 keeps strings this short flat.
const SHORT_VALUE = 12

/**
 * A value's text, from UTF-8.
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end
 * @returns {string}
 */
export function textValue(buf, start, end) {
  if (end - start > SHORT_VALUE) return buf.toString('utf8', start, end)
  let text = ''
  for (let i = start; i < end; i++) {
    const c = buf[i]
    if (c > 0x7f) return buf.toString('utf8', start, end)
    text += String.fromCharCode(c)
  }
  return text
}

/**
 * The fields of an ErrorResponse or NoticeResponse, by their one-letter code.
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end
 * @returns {Record<string, string>}
 */
export function errorFields(buf, start, end) {
  /** @type {Record<string, string>} */
  const fields = {}
  let i = start
  while (i < end && buf[i] !== 0) {
    const code = String.fromCharCode(buf[i])
    const stop = buf.indexOf(0, i + 1)
    fields[code] = buf.toString('utf8', i + 1, stop)
    i = stop + 1
  }
  return fields
}

/**
 * Every value of a DataRow, as text; null for SQL NULL.
 * @param {Buffer} buf
 * @param {number} start
 * @returns {Array<string | null>}
 */
export function rowValues(buf, start) {
  const count = buf.readInt16BE(start)
  /** @type {Array<string | null>} */
  const values = new Array(count)
  let at = start + 2
  for (let i = 0; i < count; i++) {
    const length = buf.readInt32BE(at)
    at += 4
    if (length < 0) {
      values[i] = null
    } else {
      values[i] = textValue(buf, at, at + length)
      at += length
    }
  }
  return values
}

/**
 * The column names of a RowDescription.
 * @param {Buffer} buf
 * @param {number} start
 * @returns {string[]}
 */
export function fieldNames(buf, start) {
  const count = buf.readInt16BE(start)
  /** @type {string[]} */
  const names = new Array(count)
  let at = start + 2
  for (let i = 0; i < count; i++) {
    const stop = buf.indexOf(0, at)
    names[i] = buf.toString('utf8', at, stop)
    // table oid, column number, type oid, type size, type modifier, format
    at = stop + 1 + 18
  }
  return names
}
