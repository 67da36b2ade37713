// pgbench's random numbers: the generator against a plain 64-bit
// reference of xoroshiro128** and splitmix64 seeding, the distributions
// against the formulas of pgbench's documentation (chi-square, fixed
// seeds, so the outcome is deterministic), the parameter limits, the
// derivation of each client's generator and the --random-seed option.
import t from 'tap'
import { RandomSeedError } from '../../lib/pgbench/errors.js'
import {
  Random,
  checkRandomRange,
  defaultSeedFor,
  deriveRandomStates,
  parseRandomSeed
} from '../../lib/pgbench/random.js'

const MASK = (1n << 64n) - 1n

/**
 * pg_prng written directly on 64-bit BigInts: the reference the 32-bit
 * implementation must agree with.
 * @param {bigint} seed
 */
function referenceGenerator(seed) {
  let x = BigInt.asUintN(64, seed)
  const splitmix = () => {
    x = (x + 0x9e3779b97f4a7c15n) & MASK
    let v = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK
    v = ((v ^ (v >> 27n)) * 0x94d049bb133111ebn) & MASK
    return v ^ (v >> 31n)
  }
  let s0 = splitmix()
  let s1 = splitmix()
  /** @param {bigint} v @param {bigint} k */
  const rotl = (v, k) => ((v << k) | (v >> (64n - k))) & MASK
  return () => {
    const sx = s1 ^ s0
    const value = (rotl((s0 * 5n) & MASK, 7n) * 9n) & MASK
    s0 = rotl(s0, 24n) ^ sx ^ ((sx << 16n) & MASK)
    s1 = rotl(sx, 37n)
    return value
  }
}

t.test("the generator is pg_prng's xoroshiro128**, seeded by splitmix64", async t => {
  for (const seed of [0n, 1n, 42n, MASK, 0x123456789abcdefn, -5n]) {
    const reference = referenceGenerator(seed)
    const random = new Random(seed)
    const doubles = new Random(seed)
    const expected = Array.from({ length: 200 }, () => reference())
    t.same(
      Array.from({ length: 200 }, () => random.uint64()),
      expected,
      `seed ${seed}: pg_prng_uint64`
    )
    t.same(
      Array.from({ length: 200 }, () => doubles.double()),
      expected.map(v => Number(v >> 12n) / 2 ** 52),
      `seed ${seed}: pg_prng_double, the top 52 bits`
    )
  }
})

t.test('pg_prng_uint64_range: bitmask rejection, nothing drawn for an empty range', async t => {
  for (const range of [
    1n,
    2n,
    3n,
    1000n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 52n + 12345n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 63n - 2n,
    MASK - 1n
  ]) {
    const reference = referenceGenerator(77n)
    const random = new Random(77n)
    const shift = BigInt(64 - range.toString(2).length)
    const expected = Array.from({ length: 100 }, () => {
      let value
      do value = reference() >> shift
      while (value > range)
      return value
    })
    t.same(
      Array.from({ length: 100 }, () => random.offsetBig(range)),
      expected,
      `range ${range}`
    )
  }
  const random = new Random(3n)
  const untouched = random.clone()
  t.equal(random.offset(0), 0)
  t.equal(random.uniform(5n, 5n), 5n)
  t.equal(random.uint64(), untouched.uint64(), 'an empty range draws nothing')
})

t.test("clone and copyFrom replay the same draws (pgbench's retries)", async t => {
  const random = new Random(10n)
  random.uint64()
  const saved = random.clone()
  const first = [random.uniform(1n, 100n), random.gaussian(1n, 100n, 3), random.zipfian(1n, 100n, 1.5)]
  random.copyFrom(saved)
  t.same([random.uniform(1n, 100n), random.gaussian(1n, 100n, 3), random.zipfian(1n, 100n, 1.5)], first)
})

/**
 * Chi-square critical value for df degrees of freedom at significance
 * 0.001 (Wilson-Hilferty).
 * @param {number} df
 */
function critical(df) {
  const z = 3.090232
  return df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3
}

/**
 * Draws n values in [lb, ub] and compares their counts with probabilities.
 * @param {import('tap').Test} t
 * @param {() => bigint} draw
 * @param {bigint} lb
 * @param {number[]} probabilities  of lb, lb + 1, ...
 * @param {string} what
 * @param {number} [n]  draws
 */
function chiSquare(t, draw, lb, probabilities, what, n = 100000) {
  const counts = new Array(probabilities.length).fill(0)
  for (let i = 0; i < n; i++) {
    const k = Number(draw() - lb)
    if (!(k >= 0 && k < counts.length)) throw new Error(`${what}: ${k + Number(lb)} out of range`)
    counts[k]++
  }
  const total = probabilities.reduce((a, b) => a + b, 0)
  t.ok(Math.abs(total - 1) < 1e-9, `${what}: the probabilities sum to 1`)
  let statistic = 0
  probabilities.forEach((p, k) => {
    statistic += (counts[k] - n * p) ** 2 / (n * p)
  })
  const limit = critical(probabilities.length - 1)
  t.ok(statistic < limit, `${what}: chi-square ${statistic.toFixed(1)} < ${limit.toFixed(1)}`)
}

/**
 * The standard normal distribution function, from erf (Abramowitz and
 * Stegun 7.1.26, error below 1.5e-7).
 * @param {number} x
 */
function phi(x) {
  const z = Math.abs(x) / Math.SQRT2
  const k = 1 / (1 + 0.3275911 * z)
  const erf =
    1 -
    ((((1.061405429 * k - 1.453152027) * k + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k * Math.exp(-z * z)
  return 0.5 * (1 + (x < 0 ? -erf : erf))
}

/**
 * @param {number} lb
 * @param {number} ub
 * @param {(i: number) => number} probability
 */
const table = (lb, ub, probability) => Array.from({ length: ub - lb + 1 }, (_, k) => probability(lb + k))

t.test('random: uniform', async t => {
  const random = new Random(101n)
  chiSquare(
    t,
    () => random.uniform(1n, 10n),
    1n,
    table(1, 10, () => 1 / 10),
    'random(1, 10)'
  )
  chiSquare(
    t,
    () => random.uniform(-50n, 49n),
    -50n,
    table(-50, 49, () => 1 / 100),
    'random(-50, 49)'
  )
  const big = new Random(5n)
  const lb = -(2n ** 62n)
  const span = 2n ** 63n - 2n
  chiSquare(
    t,
    () => (big.uniform(lb, lb + span) - lb) / 2n ** 59n,
    0n,
    table(0, 15, () => 1 / 16),
    'random over most of int64, in 16 bins'
  )
})

t.test(
  'random_exponential: P(i) = f(i) - f(i + 1), f(x) = exp(-p (x - min) / (max - min + 1)) / (1 - exp(-p))',
  async t => {
    for (const [lb, ub, p] of [
      [1, 20, 3.0],
      [0, 9, 0.5],
      [-5, 5, 10]
    ]) {
      const f = (/** @type {number} */ x) => Math.exp((-p * (x - lb)) / (ub - lb + 1)) / (1 - Math.exp(-p))
      const random = new Random(BigInt(lb * 100 + ub))
      chiSquare(
        t,
        () => random.exponential(BigInt(lb), BigInt(ub), p),
        BigInt(lb),
        table(lb, ub, i => f(i) - f(i + 1)),
        `random_exponential(${lb}, ${ub}, ${p})`
      )
    }
  }
)

t.test(
  'random_gaussian: P(i) = f(i + 0.5) - f(i - 0.5), f(x) = PHI(2 p (x - mu) / (max - min + 1)) / (2 PHI(p) - 1)',
  async t => {
    for (const [lb, ub, p] of [
      [1, 20, 2.5],
      [0, 9, 2.0],
      [-10, 10, 5]
    ]) {
      const mu = (lb + ub) / 2
      const f = (/** @type {number} */ x) => phi((2 * p * (x - mu)) / (ub - lb + 1)) / (2 * phi(p) - 1)
      const random = new Random(BigInt(ub * 7 + lb))
      chiSquare(
        t,
        () => random.gaussian(BigInt(lb), BigInt(ub), p),
        BigInt(lb),
        table(lb, ub, i => f(i + 0.5) - f(i - 0.5)),
        `random_gaussian(${lb}, ${ub}, ${p})`
      )
    }
  }
)

t.test('random_zipfian: P(k) / P(k + 1) = ((k + 1) / k) ** s', async t => {
  // Close to 1 the rejection method needs many tries per draw: fewer draws there.
  for (const [lb, ub, s, n] of [
    [1, 10, 1.5, 100000],
    [1, 30, 1.07, 50000],
    [100, 119, 2.5, 100000],
    [1, 5, 1.001, 5000]
  ]) {
    const weights = table(lb, ub, i => (i - lb + 1) ** -s)
    const sum = weights.reduce((a, b) => a + b, 0)
    const random = new Random(BigInt(ub))
    chiSquare(
      t,
      () => random.zipfian(BigInt(lb), BigInt(ub), s),
      BigInt(lb),
      weights.map(w => w / sum),
      `random_zipfian(${lb}, ${ub}, ${s})`,
      n
    )
  }
  t.equal(new Random(1n).zipfian(7n, 7n, 2), 7n, 'a single value')
})

t.test("poisson: the mean pgbench's --rate delays have", async t => {
  const random = new Random(8n)
  let sum = 0
  const n = 100000
  for (let i = 0; i < n; i++) sum += random.poisson(1000)
  t.ok(Math.abs(sum / n - 1000) < 10, `mean ${sum / n}`)
})

t.test('parameter limits and their messages', async t => {
  const random = new Random(1n)
  t.throws(() => random.uniform(2n, 1n), { name: 'ScriptRuntimeError', message: 'empty range given to random' })
  t.throws(() => checkRandomRange(-1n, 2n ** 63n - 1n), { message: 'random range is too large' })
  t.throws(() => random.uniform(0n, 2n ** 63n - 1n), { message: 'random range is too large' })
  t.equal(typeof random.uniform(-1n, 2n ** 63n - 3n), 'bigint', 'the largest range allowed')
  t.throws(() => random.exponential(1n, 10n, 0), {
    message: 'exponential parameter must be greater than zero (not 0.000000)'
  })
  t.throws(() => random.exponential(1n, 10n, -0.5), {
    message: 'exponential parameter must be greater than zero (not -0.500000)'
  })
  t.throws(() => random.gaussian(1n, 10n, 1.999), {
    message: 'gaussian parameter must be at least 2.000000 (not 1.999000)'
  })
  t.throws(() => random.zipfian(1n, 10n, 1.0009), {
    message: 'zipfian parameter must be in range [1.001, 1000] (not 1.000900)'
  })
  t.throws(() => random.zipfian(1n, 10n, 1000.001), {
    message: 'zipfian parameter must be in range [1.001, 1000] (not 1000.001000)'
  })
  t.throws(() => random.gaussian(10n, 1n, 1), { message: 'empty range given to random' }, 'the range is checked first')
  for (const [value, label] of [
    [random.exponential(1n, 10n, 1e-9), 'tiny exponential'],
    [random.gaussian(1n, 10n, 2), 'gaussian 2'],
    [random.zipfian(1n, 10n, 1.001), 'zipfian 1.001'],
    [random.zipfian(1n, 10n, 1000), 'zipfian 1000']
  ]) {
    t.ok(value >= 1n && value <= 10n, `${label}: ${value}`)
  }
})

t.test("each client's generator and :default_seed come from the base seed in pgbench's order", async t => {
  const states = deriveRandomStates(42n, { clients: 3, threads: 2 })
  const base = referenceGenerator(42n)
  for (const client of states.clients) t.equal(client.uint64(), referenceGenerator(base())())
  t.equal(states.defaultSeed, BigInt.asIntN(64, base()))
  for (const thread of states.threads) {
    t.equal(thread.choose.uint64(), referenceGenerator(base())())
    t.equal(thread.throttle.uint64(), referenceGenerator(base())())
    t.equal(thread.sample.uint64(), referenceGenerator(base())())
  }
  t.equal(
    deriveRandomStates(42n, { clients: 1 }).defaultSeed,
    4306334408478191133n,
    'seed 42 with one client: what pgbench 15 sets :default_seed to'
  )
  t.equal(
    deriveRandomStates(42n, { clients: 1 }).clients[0].uniform(1n, 1000000n),
    668251n,
    "and its client 0's random(1, 1000000)"
  )
  t.equal(deriveRandomStates(MASK, { clients: 1 }).randomSeed, -1n, ':random_seed is the seed as int64')
  for (let client = 0; client < 3; client++) {
    t.equal(
      Random.forClient(42n, client).uint64(),
      deriveRandomStates(42n, { clients: 3 }).clients[client].uint64(),
      `forClient(42, ${client})`
    )
  }
  t.equal(defaultSeedFor(42n, 3), states.defaultSeed)
  t.equal(defaultSeedFor(42n, 1), 4306334408478191133n)
})

t.test('--random-seed as pgbench reads it', async t => {
  t.equal(parseRandomSeed('42'), 42n)
  t.equal(parseRandomSeed(' +5'), 5n)
  t.equal(parseRandomSeed('-1'), MASK, 'wraps modulo 2^64 as sscanf %lu does')
  t.equal(parseRandomSeed('18446744073709551615'), MASK)
  t.equal(parseRandomSeed('99999999999999999999999'), MASK, 'saturates')
  t.equal(parseRandomSeed('-99999999999999999999999'), MASK)
  for (const text of ['5 ', '', 'abc', '0x10', '1.5', 'TIME']) {
    t.throws(() => parseRandomSeed(text), RandomSeedError, JSON.stringify(text))
  }
  t.throws(() => parseRandomSeed('x'), {
    message: 'unrecognized random seed option "x": expecting an unsigned integer, "time" or "rand"'
  })
  for (const text of ['time', 'rand', undefined]) {
    const seed = parseRandomSeed(text)
    t.ok(seed >= 0n && seed <= MASK, `${text}: ${seed}`)
  }
  t.not(parseRandomSeed('rand'), parseRandomSeed('rand'), 'rand draws a new seed each time')
})
