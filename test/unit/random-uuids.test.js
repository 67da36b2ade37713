// The dense-table workloads' UUIDs: version 4, RFC 9562 variant, lower-case
// hex with hyphens, appended after what the row held, and never the same
// twice in a million.
import t from 'tap'
import { pushRandomUuids } from '../../lib/workloads/random-uuids.js'

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('rows of v4 UUIDs after the given values', async t => {
  const row = pushRandomUuids([42], 5)
  t.equal(row.length, 6)
  t.equal(row[0], 42, 'the leading value stays first')
  for (const uuid of row.slice(1)) t.match(uuid, V4)
  t.equal(pushRandomUuids([], 20).length, 20, 'more than the scratch space held at first')
})

t.test('a million UUIDs, all different, every hex digit used at every free position', async t => {
  const seen = new Set()
  const digitsAt = Array.from({ length: 36 }, () => new Set())
  let malformed = 0
  for (let i = 0; i < 200000; i++) {
    for (const uuid of pushRandomUuids([], 5)) {
      if (!V4.test(/** @type {string} */ (uuid))) malformed++
      seen.add(uuid)
      if (i < 2000) for (let k = 0; k < 36; k++) digitsAt[k].add(/** @type {string} */ (uuid)[k])
    }
  }
  t.equal(malformed, 0, 'every one is a well-formed v4 UUID')
  t.equal(seen.size, 1000000, 'no repeats')
  const fixed = new Set([8, 13, 14, 18, 23])
  const narrow = digitsAt
    .map((digits, k) => (fixed.has(k) || k === 19 ? null : digits.size))
    .filter(size => size !== null && size < 16)
  t.same(narrow, [], 'the random positions take all sixteen digits')
  t.same([...digitsAt[19]].sort(), ['8', '9', 'a', 'b'], 'the variant digit takes exactly 8, 9, a and b')
})
