// The CancelRequest the wire client sends when a request times out, built
// from the protocol's layout and checked byte for byte: from a key written
// here, from the BackendKeyData messages PostgreSQL 15 sent in the recorded
// start-ups (test/fixtures/wire/*.hex), and from a protocol 3.2 key of 32
// bytes. No network: the exchange itself, against a listener on the
// loopback, is in test/integration/cancel-exchange.test.js, and against
// PostgreSQL in cancel-on-timeout.test.js.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { parseFixture, messageName } from '../helpers/wire-hex.js'
import { cancelRequestBytes, readBackendKey, MAX_CANCEL_KEY_BYTES } from '../../lib/wire/cancel.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'

/** @param {string} text  groups of hex digits */
const hex = text => Buffer.from(text.replaceAll(' ', ''), 'hex')

t.test('a CancelRequest: length, the code 1234/5678, the process id, the key', async t => {
  const bytes = cancelRequestBytes({ pid: 0x74fe, secret: hex('9904440e') })
  // 16 bytes; 80877102 = 0x04d2162e, the cancel code (1234 in the high half, 5678 in the low)
  t.same(bytes, hex('00000010 04d2162e 000074fe 9904440e'))
  t.equal(bytes.readInt32BE(4) >>> 16, 1234)
  t.equal(bytes.readInt32BE(4) & 0xffff, 5678)
})

t.test('the recorded BackendKeyData messages give the CancelRequest for their backend', async t => {
  const keys = []
  for (const name of ['startup', 'simple', 'extended']) {
    const file = new URL(`../fixtures/wire/${name}.hex`, import.meta.url)
    const messages = parseFixture(await readFile(file, 'utf8'))
    keys.push(...messages.filter(m => m.from === '<' && messageName(m) === 'BackendKeyData'))
  }
  t.ok(keys.length >= 3, `BackendKeyData in the recordings (${keys.length})`)
  for (const message of keys) {
    const key = readBackendKey(message.bytes, 5, message.bytes.length)
    t.equal(key.secret.length, 4, 'protocol 3.0: a 4-byte key')
    // the CancelRequest carries the message's body as it came: process id, then key
    t.same(cancelRequestBytes(key), Buffer.concat([hex('00000010 04d2162e'), message.bytes.subarray(5)]))
    // the connection keeps what its start-up said
    const connection = new WireConnection()
    connection.reader.push(message.bytes)
    t.same(connection.backendKey, key)
  }
})

t.test('protocol 3.2: a longer key goes whole, and a key out of bounds is refused', async t => {
  const secret = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
  const bytes = cancelRequestBytes({ pid: 42, secret })
  t.equal(bytes.length, 44)
  t.equal(bytes.readInt32BE(0), 44)
  t.equal(bytes.readInt32BE(8), 42)
  t.same(bytes.subarray(12), secret)
  t.throws(() => cancelRequestBytes({ pid: 1, secret: Buffer.alloc(3) }), RangeError)
  t.throws(() => cancelRequestBytes({ pid: 1, secret: Buffer.alloc(MAX_CANCEL_KEY_BYTES + 1) }), RangeError)
})
