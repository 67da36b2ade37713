import t from 'tap'
import { parseMix, pickType, REQUEST_TYPES } from '../lib/config/mix.js'

t.test('default mix picks each type in proportion', async t => {
  const mix = parseMix('insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1')
  const counts = REQUEST_TYPES.map(() => 0)
  const n = 100000
  for (let i = 0; i < n; i++) counts[pickType(mix, i / n)]++
  t.same(counts, [60000, 20000, 18000, 1000, 1000])
})

t.test('types with weight zero are never picked', async t => {
  const mix = parseMix('read_row=1')
  t.equal(pickType(mix, 0), 1)
  t.equal(pickType(mix, 0.999999), 1)
})
