// The socket's read buffer: a closed socket's is handed to the next one, so
// that reconnects do not allocate 64 KiB each, and two open sockets never
// share one. Against a real TCP server on the loopback interface.
import t from 'tap'
import net from 'node:net'
import { once } from 'node:events'
import { openSocket } from '../../lib/wire/transport.js'

// the server greets and keeps the connection open: only the client closes it
/** @type {Set<net.Socket>} */
const accepted = new Set()
const server = net.createServer(socket => {
  accepted.add(socket)
  socket.on('close', () => accepted.delete(socket))
  socket.on('error', () => {})
  socket.write('hello')
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
t.teardown(() => {
  for (const socket of accepted) socket.destroy()
  server.close()
})
const port = /** @type {net.AddressInfo} */ (server.address()).port

/** @type {import('../../lib/wire/connection-config.js').WireConfig} */
const config = /** @type {any} */ ({ host: '127.0.0.1', port, sslmode: 'disable' })

/**
 * Opens a socket and waits for the server's greeting.
 * @returns {Promise<{ socket: import('node:net').Socket, buffer: Buffer, text: string }>}
 */
async function open() {
  /** @type {(value: { buffer: Buffer, text: string }) => void} */
  let greeted = () => {}
  const greeting = new Promise(resolve => (greeted = resolve))
  const socket = await openSocket(
    config,
    () => {},
    (buffer, length) => greeted({ buffer, text: buffer.toString('utf8', 0, length) })
  )
  const { buffer, text } = await greeting
  return { socket, buffer, text }
}

/** @param {import('node:net').Socket} socket */
async function close(socket) {
  const closed = once(socket, 'close')
  socket.destroy()
  await closed
}

t.test('a closed socket’s buffer is the next socket’s', async t => {
  const first = await open()
  t.equal(first.text, 'hello', 'the reply is read into the buffer')
  await close(first.socket)
  const second = await open()
  t.equal(second.text, 'hello', 'the next reply is read')
  t.equal(second.buffer, first.buffer, 'into the same buffer: none allocated for the reconnect')
  await close(second.socket)
})

t.test('sockets open at once never share a buffer, and few buffers wait', async t => {
  const opened = []
  for (let i = 0; i < 24; i++) opened.push(await open())
  t.equal(new Set(opened.map(o => o.buffer)).size, 24, '24 open sockets, 24 buffers')
  for (const o of opened) await close(o.socket)
  const again = []
  for (let i = 0; i < 24; i++) again.push(await open())
  const reused = again.filter(o => opened.some(p => p.buffer === o.buffer)).length
  t.equal(reused, 16, 'of 24 closed, 16 buffers were kept for the next sockets, the rest freed')
  t.equal(new Set(again.map(o => o.buffer)).size, 24, 'and the next 24 do not share one either')
  for (const o of again) await close(o.socket)
})
