// The ledger of acknowledged inserts keeps only its newest chunks in memory
// and the rest in a spill file: whatever it holds, it answers as a plain
// map of every acknowledgement would, in memory or not, through a restart
// of the server (nextIncarnation) and the check's ascending reads.
import t from 'tap'
import { readdirSync } from 'node:fs'
import os from 'node:os'
import { AckLedger, RESIDENT_CHUNKS, foldFingerprint } from '../../lib/generator/ack-ledger.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'

const CHUNK_IDS = 1 << 16

/**
 * The same acknowledgements in a ledger of `resident` chunks and in a Map.
 * @param {number} resident
 * @param {number} seed
 */
function fill(resident, seed) {
  const random = mulberry32(seed)
  const ledger = new AckLedger({ residentChunks: resident })
  /** @type {Map<number, { cell: number, earlier: boolean }>} */
  const expected = new Map()
  let next = 1
  let replaced = 0
  for (let i = 0; i < 400_000; i++) {
    // mostly the next id, sometimes a late one from far back, sometimes one again
    const late = random() < 0.01
    const id = late ? 1 + Math.floor(random() * next) : next++
    const fingerprint = Math.floor(random() * 1e9)
    const fromEarlier = ledger.incarnation > 0 && random() < 0.05
    if (expected.has(id)) replaced++
    ledger.add(id, fingerprint, fromEarlier ? ledger.incarnation - 1 : ledger.incarnation)
    expected.set(id, { cell: foldFingerprint(fingerprint), earlier: fromEarlier })
    if (i === 250_000) {
      ledger.nextIncarnation()
      for (const value of expected.values()) value.earlier = true
    }
  }
  return { ledger, expected, replaced, highest: next }
}

t.test('a ledger of a few chunks in memory answers as every acknowledgement kept', async t => {
  const { ledger, expected, replaced, highest } = fill(2, 7)
  t.ok(ledger.spill !== null, 'chunks went to the spill file')
  t.ok(ledger.chunks.size <= 2, `at most 2 chunks in memory (${ledger.chunks.size})`)
  t.equal(ledger.size, expected.size, 'the ids acknowledged')
  t.equal(ledger.acknowledged, 400_000, 'every acknowledgement counted')
  t.equal(ledger.replaced, replaced, 'an id acknowledged again counted as replaced')
  let wrong = 0
  for (let id = 1; id < highest + 100; id++) {
    const want = expected.get(id)
    if (ledger.get(id) !== (want?.cell ?? 0)) wrong++
    if (ledger.fromEarlierIncarnation(id) !== (want?.earlier ?? false)) wrong++
    if (ledger.chunks.size > 2) wrong++
  }
  t.equal(wrong, 0, 'every id read back (cell and incarnation bit), in memory or from the file')
  const ids = [...ledger.batches(1000)].flat()
  const want = [...expected.keys()].sort((a, b) => a - b)
  // compared here rather than by t.same, whose diff of 400,000 numbers costs seconds
  const firstWrong = want.findIndex((id, i) => ids[i] !== id)
  t.ok(
    ids.length === want.length && firstWrong === -1,
    `batches give every acknowledged id once, ascending (${ids.length} of ${want.length}, first wrong at ${firstWrong})`
  )
  let cellsWrong = 0
  let lastFirst = -1
  for (const { firstId, cells } of ledger.slices(4096)) {
    if (firstId <= lastFirst) cellsWrong++
    lastFirst = firstId
    for (let i = 0; i < cells.length; i++) if (cells[i] !== (expected.get(firstId + i)?.cell ?? 0)) cellsWrong++
  }
  t.equal(cellsWrong, 0, 'slices give every cell, ascending')
})

t.test('the default keeps the newest ids in memory and spills nothing before that', async t => {
  const ledger = new AckLedger()
  for (let id = 1; id < (RESIDENT_CHUNKS - 1) * CHUNK_IDS; id++) ledger.add(id, id)
  t.equal(ledger.spill, null, 'no file while every chunk fits')
  for (let id = (RESIDENT_CHUNKS - 1) * CHUNK_IDS; id < 3 * RESIDENT_CHUNKS * CHUNK_IDS; id++) ledger.add(id, id)
  t.equal(ledger.chunks.size, RESIDENT_CHUNKS, `${RESIDENT_CHUNKS} chunks in memory`)
  t.same(
    [...ledger.chunks.keys()].sort((a, b) => a - b),
    Array.from({ length: RESIDENT_CHUNKS }, (_, i) => 2 * RESIDENT_CHUNKS + i),
    'the newest ones'
  )
  t.equal(ledger.get(5), foldFingerprint(5), 'an old id read back from the file')
})

t.test('the spill file leaves nothing in the temporary directory', async t => {
  const before = readdirSync(os.tmpdir()).filter(name => name.startsWith('pgloadgen-ledger-'))
  const ledger = new AckLedger({ residentChunks: 1 })
  for (let id = 1; id < 3 * CHUNK_IDS; id++) ledger.add(id, 0)
  t.ok(ledger.spill !== null, 'a chunk was spilled')
  const after = readdirSync(os.tmpdir()).filter(name => name.startsWith('pgloadgen-ledger-'))
  t.same(after, before, 'its directory and file are unlinked while open')
  t.equal(ledger.get(1), foldFingerprint(0), 'and it is still read')
})
