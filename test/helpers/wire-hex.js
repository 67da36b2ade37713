// The wire fixtures' format (test/fixtures/wire/*.hex): one protocol message
// a line, in the order a recording proxy saw them, so that a person can read
// an exchange and a test can replay it.
//
//   > Parse 50 0000002c 73310053 454c4543 ...  # s1.SELECT $1::int ...
//   < ParseComplete 31 00000004
//
// ">" the client sent it, "<" the server; the message's name; its type byte
// ("-" for the StartupMessage, which has none); its length; its body in
// groups of four bytes; after "#", the body's printable characters.

/** @type {Record<string, string>} */
const FRONTEND = {
  P: 'Parse',
  B: 'Bind',
  D: 'Describe',
  E: 'Execute',
  S: 'Sync',
  Q: 'Query',
  d: 'CopyData',
  c: 'CopyDone',
  f: 'CopyFail',
  X: 'Terminate',
  p: 'PasswordMessage',
  H: 'Flush',
  C: 'Close'
}
/** @type {Record<string, string>} */
const BACKEND = {
  R: 'Authentication',
  S: 'ParameterStatus',
  K: 'BackendKeyData',
  Z: 'ReadyForQuery',
  T: 'RowDescription',
  D: 'DataRow',
  C: 'CommandComplete',
  E: 'ErrorResponse',
  N: 'NoticeResponse',
  G: 'CopyInResponse',
  H: 'CopyOutResponse',
  d: 'CopyData',
  c: 'CopyDone',
  1: 'ParseComplete',
  2: 'BindComplete',
  3: 'CloseComplete',
  n: 'NoData',
  I: 'EmptyQueryResponse',
  s: 'PortalSuspended',
  A: 'NotificationResponse',
  t: 'ParameterDescription'
}

/**
 * @typedef {object} WireMessage
 * @property {'>' | '<'} from  '>' the client, '<' the server
 * @property {Buffer} bytes    the whole message: type byte, length, body
 */

/**
 * A message's name, as the protocol's documentation calls it.
 * @param {WireMessage} message
 */
export function messageName({ from, bytes }) {
  if (from === '>' && isStartup(bytes)) return 'StartupMessage'
  const type = String.fromCharCode(bytes[0])
  const name = (from === '>' ? FRONTEND : BACKEND)[type]
  if (name === undefined) return `Unknown(${type})`
  if (name !== 'Authentication') return name
  const code = bytes.readInt32BE(5)
  return code === 0 ? 'AuthenticationOk' : `Authentication(${code})`
}

/**
 * Whether a client's message is the StartupMessage: no type byte, a length,
 * then protocol 3.0.
 * @param {Buffer} bytes
 */
function isStartup(bytes) {
  return bytes.length >= 8 && bytes.readInt32BE(0) === bytes.length && bytes.readInt32BE(4) === 196608
}

/**
 * Cuts a byte stream into whole messages; what is left over (a message not
 * complete yet) is returned apart.
 * @param {Buffer} stream
 * @param {boolean} startup  the stream begins with a StartupMessage
 * @returns {{ messages: Buffer[], rest: Buffer }}
 */
export function cutMessages(stream, startup) {
  const messages = []
  let at = 0
  if (startup) {
    if (stream.length < 4 || stream.length < stream.readInt32BE(0)) return { messages, rest: stream }
    at = stream.readInt32BE(0)
    messages.push(stream.subarray(0, at))
  }
  while (stream.length - at >= 5) {
    const end = at + 1 + stream.readInt32BE(at + 1)
    if (end > stream.length) break
    messages.push(stream.subarray(at, end))
    at = end
  }
  return { messages, rest: stream.subarray(at) }
}

/**
 * One fixture line.
 * @param {WireMessage} message
 */
export function formatMessage(message) {
  const { from, bytes } = message
  const startup = messageName(message) === 'StartupMessage'
  const type = startup ? '-' : bytes.subarray(0, 1).toString('hex')
  const length = bytes.subarray(startup ? 0 : 1, startup ? 4 : 5).toString('hex')
  const body = bytes.subarray(startup ? 4 : 5)
  const groups = body.toString('hex').match(/.{1,8}/g) ?? []
  const text = body
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.')
    .replace(/\.{2,}/g, '.')
  const line = [from, messageName(message), type, length, ...groups].join(' ')
  return /[A-Za-z0-9]{2}/.test(text) ? `${line}  # ${text}` : line
}

/**
 * A fixture's text: a comment, then a line a message.
 * @param {string} about
 * @param {WireMessage[]} messages
 */
export function formatFixture(about, messages) {
  return `# ${about}\n` + messages.map(formatMessage).join('\n') + '\n'
}

/**
 * The messages of a fixture's text. Throws on a line that is not one, or on
 * a message whose length field does not match its bytes.
 * @param {string} text
 * @returns {WireMessage[]}
 */
export function parseFixture(text) {
  /** @type {WireMessage[]} */
  const messages = []
  for (const [i, line] of text.split('\n').entries()) {
    const content = line.replace(/\s+#.*$/, '').trim()
    if (content === '' || content.startsWith('#')) continue
    const [from, name, type, ...hex] = content.split(/\s+/)
    if ((from !== '>' && from !== '<') || name === undefined || type === undefined || hex.length === 0) {
      throw new Error(`line ${i + 1}: not a message: ${line.slice(0, 80)}`)
    }
    const bytes = Buffer.from((type === '-' ? '' : type) + hex.join(''), 'hex')
    const length = type === '-' ? bytes.readInt32BE(0) : bytes.readInt32BE(1) + 1
    if (length !== bytes.length) throw new Error(`line ${i + 1}: ${name} of ${bytes.length} bytes says ${length}`)
    const message = { from: /** @type {'>' | '<'} */ (from), bytes }
    if (messageName(message) !== name) throw new Error(`line ${i + 1}: ${name} holds a ${messageName(message)}`)
    messages.push(message)
  }
  return messages
}
