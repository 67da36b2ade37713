// pgbench's random numbers: PostgreSQL's pg_prng generator (xoroshiro128**
// seeded through splitmix64), the uniform, exponential, Gaussian and
// Zipfian draws of pgbench's random functions with their checks and
// messages, how pgbench seeds each client from --random-seed, and the
// parsing of --random-seed. With the same seed, a client draws the same
// numbers as pgbench's client of the same id.
import { printable } from '../helpers/quote.js'
import { getRandomValues } from 'node:crypto'
import { RandomSeedError, ScriptRuntimeError } from './errors.js'
import { formatFixed } from './expression/cformat.js'
import { PgPrng } from './expression/prng.js'

const UINT64_MASK = (1n << 64n) - 1n
const INT64_MAX = (1n << 63n) - 1n
const MIN_GAUSSIAN_PARAM = 2.0
const MIN_ZIPFIAN_PARAM = 1.001
const MAX_ZIPFIAN_PARAM = 1000.0

/**
 * pgbench's checks of a random function's bounds.
 * @param {bigint} lb
 * @param {bigint} ub
 */
export function checkRandomRange(lb, ub) {
  if (lb > ub) throw new ScriptRuntimeError('empty range given to random')
  if (ub - lb >= INT64_MAX) throw new ScriptRuntimeError('random range is too large')
}

export class Random extends PgPrng {
  /**
   * The generator of client clientId's random functions, as pgbench seeds
   * it from its base seed: the (clientId + 1)th draw of the base generator.
   * @param {bigint} seed  the base seed (see parseRandomSeed)
   * @param {number} clientId
   */
  static forClient(seed, clientId) {
    const base = new PgPrng(seed)
    for (let i = 0; i < clientId; i++) base.step()
    return new Random(base.uint64())
  }

  /** A copy with the same state: it draws what this one would. */
  clone() {
    return /** @type {Random} */ (new Random().copyFrom(this))
  }

  /**
   * random(lb, ub): uniform in [lb, ub].
   * @param {bigint} lb
   * @param {bigint} ub
   * @returns {bigint}
   */
  uniform(lb, ub) {
    checkRandomRange(lb, ub)
    return lb + this.offsetBig(ub - lb)
  }

  /**
   * A uniform integer in [lb, ub] for small numbers (script choice, say).
   * @param {number} lb
   * @param {number} ub  lb <= ub, ub - lb < 2^53
   */
  uniformNumber(lb, ub) {
    return lb + this.offset(ub - lb)
  }

  /**
   * random_exponential(lb, ub, parameter).
   * @param {bigint} lb
   * @param {bigint} ub
   * @param {number} parameter  > 0
   * @returns {bigint}
   */
  exponential(lb, ub, parameter) {
    checkRandomRange(lb, ub)
    if (!(parameter > 0)) {
      throw new ScriptRuntimeError(`exponential parameter must be greater than zero (not ${formatFixed(parameter)})`)
    }
    const cut = Math.exp(-parameter)
    const uniform = 1.0 - this.double()
    const rand = -Math.log(cut + (1.0 - cut) * uniform) / parameter
    return lb + BigInt(Math.trunc(Number(ub - lb + 1n) * rand))
  }

  /**
   * random_gaussian(lb, ub, parameter): Box-Muller, redrawn until within
   * [-parameter, parameter).
   * @param {bigint} lb
   * @param {bigint} ub
   * @param {number} parameter  >= 2 and finite
   * @returns {bigint}
   */
  gaussian(lb, ub, parameter) {
    checkRandomRange(lb, ub)
    if (!(parameter >= MIN_GAUSSIAN_PARAM && parameter < Infinity)) {
      throw new ScriptRuntimeError(
        `gaussian parameter must be at least ${formatFixed(MIN_GAUSSIAN_PARAM)} (not ${formatFixed(parameter)})`
      )
    }
    let stdev
    do {
      const rand1 = 1.0 - this.double()
      const rand2 = 1.0 - this.double()
      stdev = Math.sqrt(-2.0 * Math.log(rand1)) * Math.sin(2.0 * Math.PI * rand2)
    } while (stdev < -parameter || stdev >= parameter)
    const rand = (stdev + parameter) / (parameter * 2.0)
    return lb + BigInt(Math.trunc(Number(ub - lb + 1n) * rand))
  }

  /**
   * random_zipfian(lb, ub, parameter): Devroye's rejection method.
   * @param {bigint} lb
   * @param {bigint} ub
   * @param {number} parameter  in [1.001, 1000]
   * @returns {bigint}
   */
  zipfian(lb, ub, parameter) {
    checkRandomRange(lb, ub)
    if (!(parameter >= MIN_ZIPFIAN_PARAM && parameter <= MAX_ZIPFIAN_PARAM)) {
      throw new ScriptRuntimeError(`zipfian parameter must be in range [1.001, 1000] (not ${formatFixed(parameter)})`)
    }
    const n = Number(ub - lb + 1n)
    return lb - 1n + BigInt(this.iterativeZipfian(n, parameter))
  }

  /**
   * @param {number} n
   * @param {number} s
   */
  iterativeZipfian(n, s) {
    if (n <= 1) return 1
    const b = Math.pow(2.0, s - 1.0)
    for (;;) {
      const u = this.double()
      const v = this.double()
      const x = Math.floor(Math.pow(u, -1.0 / (s - 1.0)))
      const t = Math.pow(1.0 + 1.0 / x, s - 1.0)
      if ((v * x * (t - 1.0)) / (b - 1.0) <= t / b && x <= n) return x
    }
  }

  /**
   * getPoissonRand: a draw whose mean is center (pgbench's delay between
   * transactions under --rate, in microseconds).
   * @param {number} center
   */
  poisson(center) {
    const uniform = 1.0 - this.double()
    return Math.trunc(-Math.log(uniform) * center + 0.5)
  }
}

/**
 * The generators pgbench derives from its base seed, in pgbench's order:
 * one per client for the script's random functions, then :default_seed,
 * then per thread the ones that choose a script, pace --rate and sample
 * the log.
 * @param {bigint} seed  the base seed (see parseRandomSeed)
 * @param {{ clients: number, threads?: number }} counts
 */
export function deriveRandomStates(seed, { clients, threads = 1 }) {
  const base = new PgPrng(seed)
  const next = () => new Random(base.uint64())
  const clientRandoms = Array.from({ length: clients }, next)
  const defaultSeed = BigInt.asIntN(64, base.uint64())
  const threadRandoms = Array.from({ length: threads }, () => ({ choose: next(), throttle: next(), sample: next() }))
  return {
    clients: clientRandoms,
    defaultSeed,
    randomSeed: BigInt.asIntN(64, BigInt.asUintN(64, seed)),
    threads: threadRandoms
  }
}

/**
 * pgbench's :default_seed for a base seed and a number of clients: the draw
 * of the base generator after those of the clients.
 * @param {bigint} seed
 * @param {number} clients
 */
export function defaultSeedFor(seed, clients) {
  const base = new PgPrng(seed)
  for (let i = 0; i < clients; i++) base.step()
  return BigInt.asIntN(64, base.uint64())
}

/**
 * A --random-seed value as pgbench reads it: "time" (also the default,
 * undefined) seeds from the clock, "rand" from a strong random source,
 * anything else must be an unsigned integer (sscanf %lu: leading spaces,
 * a sign, wrapping modulo 2^64, saturating past it).
 * @param {string | undefined} text
 * @returns {bigint}  an unsigned 64-bit seed
 */
export function parseRandomSeed(text) {
  if (text === undefined || text === 'time') return process.hrtime.bigint() / 1000n
  if (text === 'rand') {
    const bytes = getRandomValues(new BigUint64Array(1))
    return bytes[0]
  }
  const match = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)$/.exec(text)
  if (match === null) {
    throw new RandomSeedError(
      `unrecognized random seed option "${printable(text)}": expecting an unsigned integer, "time" or "rand"`
    )
  }
  const magnitude = BigInt(match[2])
  if (magnitude > UINT64_MASK) return UINT64_MASK
  return match[1] === '-' ? BigInt.asUintN(64, -magnitude) : magnitude
}
