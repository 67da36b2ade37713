// findChangePoints on generated series: steady noise of the kinds a shared
// machine gives (±15 % jitter, autocorrelated jitter, heavy-tailed p99) must
// make no change; real steps must be found where they are, with their sign
// and levels; the same input gives the same output; missing values keep
// their indices; bad options throw. No server.
import t from 'tap'
import { findChangePoints } from '../../lib/analysis/change-points.js'

/**
 * mulberry32: a small seeded generator of uniform numbers in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let r = Math.imul(a ^ (a >>> 15), a | 1)
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61)
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A standard normal number (Box–Muller).
 * @param {() => number} rand
 */
function normal(rand) {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
}

/**
 * n points of steady noise around 1.
 * @param {'iid' | 'ar' | 'lognormal' | 'lognormal-ar'} kind
 * @param {number} n
 * @param {() => number} rand
 * @returns {number[]}
 */
function noise(kind, n, rand) {
  const out = []
  let state = normal(rand)
  for (let i = 0; i < n; i++) {
    state = 0.6 * state + 0.8 * normal(rand) // AR(1), ρ = 0.6, unit variance
    if (kind === 'iid') out.push(1 + 0.15 * normal(rand))
    else if (kind === 'ar') out.push(1 + 0.15 * state)
    else if (kind === 'lognormal') out.push(Math.exp(0.5 * normal(rand)))
    else out.push(Math.exp(0.5 * state))
  }
  return out
}

t.test('steady series make no change', async t => {
  let pooled = 0
  let series = 0
  for (const [kind, seed] of /** @type {const} */ ([
    ['iid', 1],
    ['ar', 2],
    ['lognormal', 3],
    ['lognormal-ar', 4]
  ])) {
    const rand = mulberry32(seed)
    let falsePositives = 0
    series += 200
    for (let s = 0; s < 200; s++) if (findChangePoints(noise(kind, 300, rand)).changes.length > 0) falsePositives++
    const rate = falsePositives / 200
    t.comment(
      `${kind}: ${falsePositives} of 200 steady series of 300 points with a change (${(rate * 100).toFixed(1)} %)`
    )
    pooled += falsePositives
    // 200 series tell 1 % from 4 %, not 1.5 % from 2 %: a kind is held to 3 % (at a true 1.1 %, the rate
    // of 2,000 lognormal-ar series, 5 or more of 200 come in 7 % of seeds), the four together to the target
    t.ok(rate <= 0.03, `${kind}: false-positive rate ${rate} at most 3 % of 200`)
  }
  // the known-answer target (docs/change-points.md): at most 2 % of steady series
  t.ok(pooled / series <= 0.02, `${pooled} of ${series} steady series with a change: at most 2 %`)
})

/**
 * @param {Tap.Test} t
 * @param {ReturnType<typeof findChangePoints>} result
 * @param {number[]} expected   indices
 * @param {number[]} signs
 */
function assertFound(t, result, expected, signs) {
  const indices = result.changes.map(change => change.index)
  t.equal(indices.length, expected.length, `${expected.length} change(s) found (${indices.join(', ')})`)
  expected.forEach((index, i) => {
    const change = result.changes[i]
    if (!change) return
    t.ok(Math.abs(change.index - index) <= 3, `change at ${change.index}, within 3 points of ${index}`)
    t.equal(Math.sign(change.effect), signs[i], `its effect ${change.effect.toFixed(2)} has the right sign`)
    t.ok(change.pValue < 0.001, `p-value ${change.pValue}`)
  })
}

t.test('a step down by half is found', async t => {
  for (const kind of /** @type {const} */ (['iid', 'ar'])) {
    const rand = mulberry32(11)
    for (let s = 0; s < 5; s++) {
      const values = noise(kind, 300, rand).map((v, i) => (i >= 150 ? v * 0.5 : v))
      const result = findChangePoints(values)
      assertFound(t, result, [150], [-1])
      const [change] = result.changes
      if (change) {
        t.ok(
          Math.abs(change.before.median - 1) < 0.1 && Math.abs(change.after.median - 0.5) < 0.05,
          `${kind}: levels ${change.before.median.toFixed(2)} then ${change.after.median.toFixed(2)}`
        )
        t.ok(
          change.before.low <= change.before.median && change.before.median <= change.before.high,
          'the median within its interval'
        )
        t.ok(change.after.high < change.before.low, 'the intervals apart')
      }
    }
  }
})

t.test('a p99 that triples is found, heavy tail and all', async t => {
  const rand = mulberry32(12)
  for (let s = 0; s < 5; s++) {
    const values = noise('lognormal', 300, rand).map((v, i) => (i >= 120 ? v * 3 : v))
    const result = findChangePoints(values)
    assertFound(t, result, [120], [1])
    if (result.changes[0]) {
      t.ok(Math.abs(result.changes[0].effect - 2) < 0.8, `effect ${result.changes[0].effect.toFixed(2)} near +2`)
    }
  }
})

t.test('throughput halved for a minute, then back', async t => {
  const rand = mulberry32(13)
  for (let s = 0; s < 3; s++) {
    const values = noise('iid', 300, rand).map((v, i) => (i >= 120 && i < 180 ? v * 0.5 : v))
    assertFound(t, findChangePoints(values), [120, 180], [-1, 1])
  }
})

t.test('throughput drops to 0 and recovers', async t => {
  const rand = mulberry32(14)
  for (let s = 0; s < 3; s++) {
    const values = noise('iid', 300, rand).map((v, i) => (i >= 130 && i < 170 ? 0 : v))
    const result = findChangePoints(values)
    assertFound(t, result, [130, 170], [-1, 1])
    const hole = result.segments[1]
    if (hole) t.same([hole.level.median, hole.level.low, hole.level.high], [0, 0, 0], "the hole's level is 0")
  }
  // a hole of 15 points is at the edge of what the test can tell in 300 points: its rate is shown, not required
  let found = 0
  for (let s = 0; s < 50; s++) {
    const values = noise('iid', 300, rand).map((v, i) => (i >= 130 && i < 145 ? 0 : v))
    const indices = findChangePoints(values).changes.map(change => change.index)
    if (indices.length === 2 && Math.abs(indices[0] - 130) <= 3 && Math.abs(indices[1] - 145) <= 3) found++
  }
  t.comment(`a 15-point hole in ±15 % noise found in ${found} of 50 series`)
  t.ok(found >= 45, `a 15-point hole is found in at least 45 of 50 series (${found})`)
})

t.test('a 10 % step in ±15 % noise is below minEffect', async t => {
  const rand = mulberry32(15)
  for (let s = 0; s < 20; s++) {
    const values = noise('iid', 600, rand).map((v, i) => (i >= 300 ? v * 1.1 : v))
    t.same(findChangePoints(values).changes, [], `series ${s}: no change`)
  }
})

t.test('the same input gives the same output', async t => {
  const values = noise('ar', 1000, mulberry32(16)).map((v, i) => (i >= 400 && i < 700 ? v * 2 : v))
  const first = findChangePoints(values)
  t.equal(first.changes.length, 2)
  t.same(findChangePoints(values.slice()), first)
})

t.test('missing values keep their indices', async t => {
  const rand = mulberry32(17)
  /** @type {Array<number | null | undefined>} */
  const values = noise('iid', 300, rand).map((v, i) => (i >= 150 ? v * 0.5 : v))
  for (let i = 140; i < 150; i++) values[i] = null
  values[10] = undefined
  values[200] = NaN
  const result = findChangePoints(values)
  t.equal(result.changes.length, 1)
  t.ok(
    Math.abs(result.changes[0].index - 150) <= 3,
    `the change at ${result.changes[0].index}, in the input's indexing`
  )
  const present = values.slice(0, result.changes[0].index).filter(v => typeof v === 'number' && !Number.isNaN(v)).length
  t.equal(result.changes[0].before.n, present, 'missing values are not counted')
  t.same(
    result.segments.map(({ from, to }) => [from, to]),
    [
      [0, result.changes[0].index],
      [result.changes[0].index, 300]
    ]
  )

  const allMissing = findChangePoints([null, null, NaN])
  t.same(allMissing.changes, [])
  t.same(
    allMissing.segments.map(({ from, to, level }) => [from, to, level.n]),
    [[0, 3, 0]]
  )
})

t.test('short series give no change', async t => {
  t.same(findChangePoints([]), { changes: [], segments: [] })
  const short = findChangePoints([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  t.same(short.changes, [], '19 points, under 2 · minSegment')
  t.same(
    short.segments.map(({ from, to }) => [from, to]),
    [[0, 19]]
  )
  t.equal(short.segments[0].level.n, 19)
})

t.test('86,400 points', async t => {
  const values = noise('ar', 86_400, mulberry32(18)).map((v, i) => (i >= 40_000 && i < 43_600 ? v * 0.5 : v))
  const started = performance.now()
  const result = findChangePoints(values)
  const ms = performance.now() - started
  t.comment(`86,400 points in ${ms.toFixed(0)} ms, ${result.changes.length} change(s)`)
  t.ok(result.changes.length >= 2, 'the hour at half is found')
  const steadyStarted = performance.now()
  findChangePoints(noise('iid', 86_400, mulberry32(19)))
  t.comment(`86,400 steady points in ${(performance.now() - steadyStarted).toFixed(0)} ms`)
})

t.test('bad options throw a TypeError', async t => {
  const values = [1, 2, 3]
  for (const options of [
    { minSegment: 1 },
    { minSegment: 2.5 },
    { minEffect: -1 },
    { minEffect: NaN },
    { alpha: 0 },
    { alpha: 1 },
    { floor: 0 },
    { maxChanges: -1 },
    { maxChanges: 1.5 },
    { minSegment: '10' },
    { minsegment: 10 }
  ]) {
    t.throws(() => findChangePoints(values, /** @type {any} */ (options)), TypeError, JSON.stringify(options))
  }
  t.throws(() => findChangePoints(values, /** @type {any} */ (null)), TypeError)
  t.throws(() => findChangePoints(/** @type {any} */ ([1, 'two', 3])), TypeError)
  t.throws(() => findChangePoints(/** @type {any} */ (42)), TypeError)
  t.doesNotThrow(() => findChangePoints(values, { minSegment: 2, minEffect: 0, alpha: 0.05, floor: 1, maxChanges: 0 }))
})

t.test('a table locked for 12 s in a short run on a loaded machine: throughput to 0 and back', async t => {
  // ±35 % noise with ρ = 0.6, 45 s: the noise scale is too high for the
  // scan's five scales; the windows' complete separation finds it
  let found = 0
  for (let seed = 1; seed <= 20; seed++) {
    const rand = mulberry32(1000 + seed)
    let e = 0
    const values = []
    for (let i = 0; i < 45; i++) {
      e = 0.6 * e + 0.8 * normal(rand)
      values.push(i >= 13 && i < 25 ? 0 : Math.max(100, 4000 * (1 + 0.35 * e)))
    }
    const { changes } = findChangePoints(values)
    if (changes.some(c => Math.abs(c.index - 13) <= 3 && c.effect < 0)) found++
  }
  t.comment(`found in ${found} of 20 series`)
  t.ok(found >= 18, `the fall to 0 is found in at least 18 of 20 series (${found})`)
})
