// The wire client writes each batch from its writer's own buffer and
// writes the next batch over it when the kernel took the bytes at once. A
// batch larger than the socket can take stays referenced by the socket
// until it has left: the writer must then move on to a new buffer, or the
// next batch would overwrite bytes not yet sent. Batches of tens of megabytes,
// sent back to back, must reach the server intact.
import t from 'tap'
import { createHash } from 'node:crypto'
import { createTestDatabase } from '../helpers/pg.js'
import { WireConnection } from '../../lib/wire/wire-connection.js'
import { MessageWriter } from '../../lib/wire/writer.js'

const pg15 = await createTestDatabase(t, 'wire_write_buffer')

/** @param {number} seed @param {number} length */
function text(seed, length) {
  return createHash('sha256')
    .update(String(seed))
    .digest('hex')
    .repeat(Math.ceil(length / 64))
    .slice(0, length)
}

t.test('batches larger than the socket takes at once arrive intact', async t => {
  const connection = await WireConnection.connect(pg15.url, { protocol: 'prepared' })
  t.teardown(() => connection.close())
  const statement = { name: 'wb_md5', text: 'SELECT md5($1)' }
  /** @type {Array<Promise<import('../../lib/wire/operation.js').WireResult>>} */
  const pending = []
  /** @type {string[]} */
  const expected = []
  const socket = /** @type {import('node:net').Socket} */ (connection.socket)
  let heldBatches = 0
  for (let batch = 0; batch < 6; batch++) {
    connection.cork()
    for (let i = 0; i < 40; i++) {
      const value = text(batch * 1000 + i, 512 * 1024)
      expected.push(createHash('md5').update(value).digest('hex'))
      pending.push(connection.run(statement, [value]))
    }
    const filled = connection.writer.buffer
    connection.uncork()
    if (socket.writableLength > 0) {
      heldBatches++
      t.not(
        connection.writer.buffer,
        filled,
        `batch ${batch}: the socket holds its bytes, and the writer has a new buffer`
      )
    }
  }
  const results = await Promise.all(pending)
  t.same(
    results.map(result => result.first),
    expected,
    'every statement saw its own parameter, byte for byte'
  )
  t.ok(heldBatches > 0, `the socket could not take ${heldBatches} of 6 batches of 21 MB at once`)
})

t.test('small batches reuse the writer buffer once the kernel took them', async t => {
  const connection = await WireConnection.connect(pg15.url, { protocol: 'prepared' })
  t.teardown(() => connection.close())
  const statement = { name: 'wb_echo', text: 'SELECT $1::text' }
  await connection.run(statement, ['warm'])
  const buffer = connection.writer.buffer
  for (let i = 0; i < 50; i++) t.equal((await connection.run(statement, [`value ${i}`])).first, `value ${i}`)
  t.equal(connection.writer.buffer, buffer, 'one buffer served every round trip')
})

t.test('written, reuse and release', async t => {
  const writer = new MessageWriter(64)
  writer.int32(7)
  const view = writer.written()
  t.same([...view], [0, 0, 0, 7], 'written() shows the bytes so far')
  writer.reuse()
  t.equal(writer.length, 0, 'reuse starts over')
  writer.int32(8)
  t.same([...view], [0, 0, 0, 8], 'over the same memory')
  const held = writer.written()
  writer.release()
  writer.int32(9)
  t.same([...held], [0, 0, 0, 8], 'after release, what was shown is left alone')
  t.equal(writer.buffer.length, 64, "the new buffer has the old one's size")
})
