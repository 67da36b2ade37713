import t from 'tap'
import { parseMix, pickType, formatMix } from '../../lib/config/mix.js'

const MANTA_TYPES = ['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max']

t.test('default mix picks each type in proportion', async t => {
  const mix = parseMix('insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1', MANTA_TYPES)
  const counts = MANTA_TYPES.map(() => 0)
  const n = 100000
  for (let i = 0; i < n; i++) counts[pickType(mix, i / n)]++
  t.same(counts, [60000, 20000, 18000, 1000, 1000])
})

t.test('types with weight zero are never picked', async t => {
  const mix = parseMix('read_row=1', MANTA_TYPES)
  t.equal(pickType(mix, 0), 1)
  t.equal(pickType(mix, 0.999999), 1)
})

t.test("a mix names the workload's own types, in its order", async t => {
  const types = ['enqueue', 'dequeue', 'peek', 'tpcb-like', 'my.script']
  const mix = parseMix('peek=1, tpcb-like=2,my.script=3', types)
  t.equal(formatMix(mix), 'enqueue=0,dequeue=0,peek=1,tpcb-like=2,my.script=3')
  t.throws(
    () => parseMix('insert_row=1', types),
    /unknown request type "insert_row" \(known: enqueue, dequeue, peek, tpcb-like, my.script\)/
  )
  t.throws(() => parseMix('peek=1,peek=2', types), /given twice/)
  t.throws(() => parseMix('peek=-1', types), /negative/)
  t.throws(() => parseMix('peek=x', types), /not a number/)
  t.throws(() => parseMix('peek=0', types), /all weights are zero/)
  t.throws(() => parseMix('peek', types), /expected type=weight/)
})
