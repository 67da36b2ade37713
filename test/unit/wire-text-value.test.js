// A value's text as the wire client decodes it: the short ASCII path must
// give what Buffer's UTF-8 decoder gives, for any bytes (invalid UTF-8
// included), at any offset of the chunk they arrived in.
import t from 'tap'
import fc from 'fast-check'
import { textValue, rowValues } from '../../lib/wire/backend-messages.js'
import { dataRow } from '../helpers/backend-messages.js'

t.test('textValue decodes as Buffer#toString does', async t => {
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 40 }),
    fc.uint8Array({ maxLength: 16 }).map(a => a.map(b => b & 0x7f)),
    fc.string({ maxLength: 20, unit: 'grapheme' }).map(s => new Uint8Array(Buffer.from(s)))
  )
  fc.assert(
    fc.property(bytes, fc.nat(8), fc.nat(8), (value, before, after) => {
      const buf = Buffer.concat([Buffer.alloc(before, 0x41), value, Buffer.alloc(after, 0x42)])
      const end = before + value.length
      return textValue(buf, before, end) === buf.toString('utf8', before, end)
    }),
    { numRuns: 20000 }
  )
  t.pass('20000 byte strings decoded alike')
  t.equal(textValue(Buffer.from('12345678901234567'), 0, 17), '12345678901234567', 'a value longer than the short path')
  t.equal(textValue(Buffer.from('é1'), 0, 3), 'é1', 'a short value with a non-ASCII character')
  t.equal(textValue(Buffer.alloc(0), 0, 0), '', 'an empty value')
})

t.test('rowValues reads every value, NULL as null', async t => {
  const values = ['42', null, '', 'naïve', 'x'.repeat(100)]
  t.same(rowValues(dataRow(values), 5), values)
})
