// Builders of the backend messages the wire client parses, one function a
// message, so that a test states an exchange in a line and an edge case needs
// no new recording. Each returns the whole message as a Buffer: type byte,
// length (counting itself) and body. concat() joins them as a server's bytes.

/** A tiny writer of a message's body: bytes appended in order. */
class BodyWriter {
  constructor() {
    /** @type {Buffer[]} */
    this.parts = []
  }

  /** @param {number} n */
  byte(n) {
    this.parts.push(Buffer.from([n]))
    return this
  }

  /** @param {number} n */
  int16(n) {
    const b = Buffer.alloc(2)
    b.writeInt16BE(n)
    this.parts.push(b)
    return this
  }

  /** @param {number} n */
  int32(n) {
    const b = Buffer.alloc(4)
    b.writeInt32BE(n)
    this.parts.push(b)
    return this
  }

  /** @param {string} s  null-terminated, UTF-8 */
  cstring(s) {
    this.parts.push(Buffer.from(s), Buffer.from([0]))
    return this
  }

  /** @param {string | Uint8Array} b */
  bytes(b) {
    this.parts.push(Buffer.from(b))
    return this
  }

  /**
   * The message: code, length, body.
   * @param {string} code  the type byte as a character
   */
  message(code) {
    const body = Buffer.concat(this.parts)
    const header = Buffer.alloc(5)
    header[0] = code.charCodeAt(0)
    header.writeInt32BE(4 + body.length, 1)
    return Buffer.concat([header, body])
  }
}

const body = () => new BodyWriter()

/** @param {number} code  the Authentication request's code */
const authentication = (code, /** @type {Uint8Array} */ data = Buffer.alloc(0)) =>
  body().int32(code).bytes(data).message('R')

export const authenticationOk = () => authentication(0)
export const authenticationCleartextPassword = () => authentication(3)
/** @param {Uint8Array} salt  four bytes */
export const authenticationMD5Password = salt => authentication(5, salt)
/** @param {string[]} mechanisms */
export const authenticationSASL = (mechanisms = ['SCRAM-SHA-256']) =>
  authentication(10, Buffer.from(mechanisms.map(m => `${m}\0`).join('') + '\0'))
/** @param {string} data  the server-first message */
export const authenticationSASLContinue = data => authentication(11, Buffer.from(data))
/** @param {string} data  the server-final message */
export const authenticationSASLFinal = data => authentication(12, Buffer.from(data))

/**
 * @param {string} name
 * @param {string} value
 */
export const parameterStatus = (name, value) => body().cstring(name).cstring(value).message('S')

/**
 * @param {number} processId
 * @param {number} secretKey
 */
export const backendKeyData = (processId, secretKey) => body().int32(processId).int32(secretKey).message('K')

/** @param {'I' | 'T' | 'E'} status */
export const readyForQuery = (status = 'I') => body().bytes(status).message('Z')

/**
 * @param {string[]} names  text columns of type text (oid 25)
 * @param {number} [typeOid]
 */
export function rowDescription(names, typeOid = 25) {
  const w = body().int16(names.length)
  for (const name of names) w.cstring(name).int32(0).int16(0).int32(typeOid).int16(-1).int32(-1).int16(0)
  return w.message('T')
}

/** @param {Array<string | Uint8Array | null>} values  null: SQL NULL */
export function dataRow(values) {
  const w = body().int16(values.length)
  for (const value of values) {
    if (value === null) w.int32(-1)
    else w.int32(Buffer.byteLength(value)).bytes(value)
  }
  return w.message('D')
}

/** @param {string} tag  "SELECT 1", "INSERT 0 1", "BEGIN" */
export const commandComplete = tag => body().cstring(tag).message('C')
export const emptyQueryResponse = () => body().message('I')

/**
 * Fields by their one-letter code: S severity, V (unlocalised), C SQLSTATE, M message, …
 * @param {string} code  'E' or 'N'
 * @param {Record<string, string>} fields
 */
function fieldsMessage(code, fields) {
  const w = body()
  for (const [field, value] of Object.entries(fields)) w.byte(field.charCodeAt(0)).cstring(value)
  return w.byte(0).message(code)
}

/**
 * @param {string} message
 * @param {string} [sqlstate]
 * @param {Record<string, string>} [more]  further fields
 */
export const errorResponse = (message, sqlstate = 'XX000', more = {}) =>
  fieldsMessage('E', { S: 'ERROR', V: 'ERROR', C: sqlstate, M: message, ...more })
/** @param {string} message */
export const noticeResponse = message => fieldsMessage('N', { S: 'NOTICE', V: 'NOTICE', C: '00000', M: message })

export const parseComplete = () => body().message('1')
export const bindComplete = () => body().message('2')
export const closeComplete = () => body().message('3')
export const noData = () => body().message('n')
export const portalSuspended = () => body().message('s')

/** @param {number} columns  text format */
const copyResponse = (/** @type {string} */ code, columns) => {
  const w = body().byte(0).int16(columns)
  for (let i = 0; i < columns; i++) w.int16(0)
  return w.message(code)
}
/** @param {number} columns */
export const copyInResponse = columns => copyResponse('G', columns)
/** @param {number} columns */
export const copyOutResponse = columns => copyResponse('H', columns)
/** @param {string | Uint8Array} data */
export const copyData = data => body().bytes(data).message('d')
export const copyDone = () => body().message('c')

/**
 * A message of any type byte: what the client does not know.
 * @param {string} code
 * @param {string | Uint8Array} [data]
 */
export const unknownMessage = (code, data = '') => body().bytes(data).message(code)

/** @param {Buffer[]} messages  as one stream of a server's bytes */
export const concat = (...messages) => Buffer.concat(messages)

/**
 * The server's answer to a prepared statement's first run: ParseComplete,
 * BindComplete, RowDescription, the rows, CommandComplete, ReadyForQuery.
 * @param {string[]} names
 * @param {Array<Array<string | null>>} rows
 */
export const selectReply = (names, rows) =>
  concat(
    parseComplete(),
    bindComplete(),
    rowDescription(names),
    ...rows.map(dataRow),
    commandComplete(`SELECT ${rows.length}`),
    readyForQuery()
  )
