// PostgreSQL's pg_prng: xoroshiro128** with its state seeded from a 64-bit
// integer through splitmix64, and the draws pgbench makes from it. The
// 64-bit words are kept as 32-bit halves in plain numbers, so that a draw
// allocates nothing; BigInts appear only at seeding and for 64-bit results.

const TWO_32 = 2 ** 32
const TWO_52 = 2 ** 52
const TWO_53 = 2 ** 53
const UINT64_MASK = (1n << 64n) - 1n

/**
 * One splitmix64 output for the state x (the state already advanced).
 * @param {bigint} x
 */
function splitmix(x) {
  let v = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & UINT64_MASK
  v = ((v ^ (v >> 27n)) * 0x94d049bb133111ebn) & UINT64_MASK
  return v ^ (v >> 31n)
}

export class PgPrng {
  /** @param {bigint | number} [seed]  as pg_prng_seed takes it, an unsigned 64-bit integer (taken modulo 2^64) */
  constructor(seed = 0n) {
    // The two 64-bit words of xoroshiro128**'s state, as 32-bit halves.
    this.s0h = 0
    this.s0l = 0
    this.s1h = 0
    this.s1l = 0
    // The last output, as 32-bit halves.
    this.hi = 0
    this.lo = 0
    this.seed(seed)
  }

  /**
   * pg_prng_seed: the state from a 64-bit seed, never all zeroes.
   * @param {bigint | number} seed
   */
  seed(seed) {
    const golden = 0x9e3779b97f4a7c15n
    const x = BigInt.asUintN(64, BigInt(seed))
    const s0 = splitmix((x + golden) & UINT64_MASK)
    const s1 = splitmix((x + 2n * golden) & UINT64_MASK)
    this.s0h = Number(s0 >> 32n)
    this.s0l = Number(s0 & 0xffffffffn)
    this.s1h = Number(s1 >> 32n)
    this.s1l = Number(s1 & 0xffffffffn)
    if ((this.s0h | this.s0l | this.s1h | this.s1l) === 0) {
      this.s0h = 0x5851f42d
      this.s0l = 0x4c957f2d
      this.s1h = 0x14057b7e
      this.s1l = 0xf767814f
    }
    return this
  }

  /**
   * Takes other's state (pgbench restores a client's state this way to
   * retry a transaction with the same random numbers).
   * @param {PgPrng} other
   */
  copyFrom(other) {
    this.s0h = other.s0h
    this.s0l = other.s0l
    this.s1h = other.s1h
    this.s1l = other.s1l
    return this
  }

  /** One step of xoroshiro128**, its output left in this.hi and this.lo. */
  step() {
    const s0h = this.s0h
    const s0l = this.s0l
    const sxh = (this.s1h ^ s0h) >>> 0
    const sxl = (this.s1l ^ s0l) >>> 0
    // output: rotl(s0 * 5, 7) * 9
    let l = s0l * 5
    let h = (s0h * 5 + Math.floor(l / TWO_32)) >>> 0
    l >>>= 0
    const rh = ((h << 7) | (l >>> 25)) >>> 0
    const rl = ((l << 7) | (h >>> 25)) >>> 0
    l = rl * 9
    h = (rh * 9 + Math.floor(l / TWO_32)) >>> 0
    this.hi = h
    this.lo = l >>> 0
    // s0 = rotl(s0, 24) ^ sx ^ (sx << 16); s1 = rotl(sx, 37)
    this.s0h = (((s0h << 24) | (s0l >>> 8)) ^ sxh ^ ((sxh << 16) | (sxl >>> 16))) >>> 0
    this.s0l = (((s0l << 24) | (s0h >>> 8)) ^ sxl ^ (sxl << 16)) >>> 0
    this.s1h = ((sxl << 5) | (sxh >>> 27)) >>> 0
    this.s1l = ((sxh << 5) | (sxl >>> 27)) >>> 0
  }

  /** pg_prng_uint64: uniform in [0, 2^64). */
  uint64() {
    this.step()
    return (BigInt(this.hi) << 32n) | BigInt(this.lo)
  }

  /** pg_prng_double: uniform in [0, 1), 52 random bits. */
  double() {
    this.step()
    return (this.hi * 1048576 + (this.lo >>> 12)) / TWO_52
  }

  /**
   * pg_prng_uint64_range(0, range): uniform in [0, range] by bitmask
   * rejection; range 0 draws nothing.
   * @param {number} range  an integer in [0, 2^53)
   */
  offset(range) {
    if (range <= 0) return 0
    const high = Math.floor(range / TWO_32)
    const top = high > 0 ? 63 - Math.clz32(high) : 31 - Math.clz32(range)
    const shift = 63 - top
    let value
    do {
      this.step()
      value = shift >= 32 ? this.hi >>> (shift - 32) : this.hi * 2 ** (32 - shift) + (this.lo >>> shift)
    } while (value > range)
    return value
  }

  /**
   * pg_prng_uint64_range(0, range) for any 64-bit range.
   * @param {bigint} range  in [0, 2^64)
   * @returns {bigint}
   */
  offsetBig(range) {
    if (range < TWO_53) return BigInt(this.offset(Number(range)))
    const shift = BigInt(64 - range.toString(2).length)
    let value
    do value = this.uint64() >> shift
    while (value > range)
    return value
  }
}
