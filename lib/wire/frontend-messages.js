// Encoders of the frontend messages the client sends, into the connection's
// MessageWriter. Messages without variable parts are precomputed bytes.

const PROTOCOL_3 = 196608
// Execute of the unnamed portal, all rows; the same followed by a Sync.
const EXECUTE = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0])
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4])
// Describe of the unnamed portal: its RowDescription names the columns.
const DESCRIBE_PORTAL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0])
export const SYNC_MESSAGE = Buffer.from([0x53, 0, 0, 0, 4])
export const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4])
export const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4])

/**
 * The StartupMessage: protocol 3.0, the user, database and application name,
 * and UTF-8, the encoding the client reads and writes text in.
 * @param {import('./writer.js').MessageWriter} w
 * @param {import('./connection-config.js').WireConfig} config
 */
export function writeStartup(w, config) {
  const at = w.length
  w.int32(0)
  w.int32(PROTOCOL_3)
  for (const [key, value] of [
    ['user', config.user],
    ['database', config.database],
    ['application_name', config.applicationName],
    ['client_encoding', 'UTF8']
  ]) {
    w.cstring(key)
    w.cstring(value)
  }
  w.byte(0)
  w.buffer.writeInt32BE(w.length - at, at)
}

/**
 * One statement in the extended protocol: Parse (when it must be parsed),
 * Bind of text parameters, Describe (to name the columns), Execute, Sync.
 * @param {import('./writer.js').MessageWriter} w
 * @param {string} name    the prepared statement's, '' for the unnamed one
 * @param {string | null} text  null: already parsed under name
 * @param {ReadonlyArray<string | number | bigint | boolean | null>} params
 * @param {boolean} describe
 * @param {boolean} sync
 */
export function writeExtended(w, name, text, params, describe, sync) {
  if (text !== null) {
    const parse = w.begin(0x50) // P
    w.cstring(name)
    w.cstring(text)
    w.int16(0) // no parameter types: the server infers them
    w.end(parse)
  }
  const bind = w.begin(0x42) // B
  w.byte(0) // the unnamed portal
  w.cstring(name)
  w.int16(0) // every parameter as text
  // PostgreSQL reads the count unsigned: up to 65535 parameters
  w.uint16(params.length)
  for (let i = 0; i < params.length; i++) w.param(params[i])
  w.int16(0) // every result column as text
  w.end(bind)
  if (describe) w.bytes(DESCRIBE_PORTAL)
  w.bytes(sync ? EXECUTE_SYNC : EXECUTE)
}

/**
 * A simple-protocol Query.
 * @param {import('./writer.js').MessageWriter} w
 * @param {string} text
 */
export function writeQuery(w, text) {
  const at = w.begin(0x51) // Q
  w.cstring(text)
  w.end(at)
}

/**
 * CopyFail: the server ends the COPY with an error quoting message.
 * @param {import('./writer.js').MessageWriter} w
 * @param {string} message
 */
export function writeCopyFail(w, message) {
  const at = w.begin(0x66) // f
  w.cstring(message.replaceAll('\0', ' ') || 'the COPY source failed')
  w.end(at)
}

/**
 * The header of a CopyData message of n bytes, which the caller writes next.
 * @param {Buffer} buffer
 * @param {number} offset
 * @param {number} n
 */
export function copyDataHeader(buffer, offset, n) {
  buffer[offset] = 0x64 // d
  buffer.writeInt32BE(4 + n, offset + 1)
}
