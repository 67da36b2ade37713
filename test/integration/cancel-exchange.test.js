// The cancel's exchange against a listener on the loopback (the unit loop
// has no network, so it is here): the bytes that arrive on a connection of
// the cancel's own, and a listener that never closes, or none at all,
// bounding the wait. The bytes themselves are checked in
// test/unit/cancel-request.test.js; PostgreSQL's answer in
// cancel-on-timeout.test.js.
import t from 'tap'
import net from 'node:net'
import { cancelRequestBytes, sendCancel } from '../../lib/wire/cancel.js'
import { parseConnectionString } from '../../lib/wire/connection-config.js'

/** @param {string} text  groups of hex digits */
const hex = text => Buffer.from(text.replaceAll(' ', ''), 'hex')

/**
 * A listener on the loopback that hands each connection to onConnection.
 * @param {import('tap').Test} t
 * @param {(socket: net.Socket) => void} onConnection
 */
async function listener(t, onConnection) {
  const server = net.createServer(onConnection)
  await new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.teardown(() => new Promise(resolve => server.close(() => resolve(undefined))))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  return parseConnectionString(`postgres://u@127.0.0.1:${port}/d`, 'test')
}

t.test('the cancel is sent on a connection of its own, which the server closes', async t => {
  /** @type {Buffer[]} */
  const received = []
  const config = await listener(t, socket => {
    socket.on('data', chunk => {
      received.push(chunk)
      if (Buffer.concat(received).length >= 16) socket.end()
    })
  })
  const key = { pid: 4242, secret: hex('01020304') }
  t.equal(await sendCancel(config, key, 10000), true, 'taken: the server closed after reading it')
  t.same(Buffer.concat(received), cancelRequestBytes(key), 'the exact bytes, nothing else')
})

t.test('a server that never closes, or none at all: the cancel gives up, never throws', async t => {
  /** @type {net.Socket[]} */
  const held = []
  const config = await listener(t, socket => {
    held.push(socket)
    socket.on('error', () => {})
  })
  t.teardown(() => held.forEach(socket => socket.destroy()))
  t.equal(await sendCancel(config, { pid: 1, secret: hex('00000000') }, 200), false, 'bounded: not taken')
  const nobody = { ...config, port: 1 } // nothing listens on port 1 of the loopback
  t.equal(await sendCancel(nobody, { pid: 1, secret: hex('00000000') }, 5000), false, 'refused: not taken')
})
