// A small seeded random number generator (sfc32: 128 bits of state, 32-bit
// arithmetic only) and normal variates from it: the data of a run can be
// made again from its seed, and drawing costs no allocation.

const TWO_TO_MINUS_32 = 2 ** -32

// Normal variates by table: the quantile function at 4096 evenly spaced
// probabilities, and a straight line between neighbours. One draw of 32
// bits picks the segment (12 bits) and the place in it (20 bits): a few
// times cheaper than a logarithm and a square root, and for steps of a
// random walk as good as exact (mean 0, variance 1 to within 0.1 %; no
// step beyond about ±3.8).
const NORMAL_BITS = 12
const NORMAL_SEGMENTS = 1 << NORMAL_BITS
const FRACTION_BITS = 32 - NORMAL_BITS
const FRACTION_SCALE = 2 ** -FRACTION_BITS
const NORMAL_TABLE = new Float64Array(NORMAL_SEGMENTS + 1)
for (let i = 0; i <= NORMAL_SEGMENTS; i++) {
  // the ends: the quantiles half a segment in, so the tails are not cut at 0 and 1
  const p =
    i === 0 ? 0.5 / NORMAL_SEGMENTS / 2 : i === NORMAL_SEGMENTS ? 1 - 0.5 / NORMAL_SEGMENTS / 2 : i / NORMAL_SEGMENTS
  NORMAL_TABLE[i] = normalQuantile(p)
}

export class Random {
  /** @param {number} seed  any integer; the same seed gives the same sequence */
  constructor(seed) {
    // splitmix32 spreads the seed over the four words of state.
    let s = seed >>> 0
    const next = () => {
      s = (s + 0x9e3779b9) | 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    for (let i = 0; i < 12; i++) this.uint32()
  }

  /** @returns {number} uniform in [0, 2^32) */
  uint32() {
    const a = this.a
    const b = this.b
    const c = this.c
    const d = this.d
    const t = (((a + b) | 0) + d) | 0
    this.d = (d + 1) | 0
    this.a = b ^ (b >>> 9)
    this.b = (c + (c << 3)) | 0
    this.c = (((c << 21) | (c >>> 11)) + t) | 0
    return t >>> 0
  }

  /** @returns {number} uniform in [0, 1) */
  float() {
    return this.uint32() * TWO_TO_MINUS_32
  }

  /**
   * @param {number} n
   * @returns {number} uniform integer in [0, n)
   */
  below(n) {
    return Math.floor(this.float() * n)
  }

  /**
   * A standard normal variate (by table, see NORMAL_TABLE).
   * @returns {number}
   */
  normal() {
    const u = this.uint32()
    const segment = u >>> FRACTION_BITS
    const low = NORMAL_TABLE[segment]
    return low + (NORMAL_TABLE[segment + 1] - low) * ((u & ((1 << FRACTION_BITS) - 1)) * FRACTION_SCALE)
  }
}

/**
 * The standard normal quantile function, by P. J. Acklam's rational
 * approximations (relative error below 1.2e-9): a central one, and one for
 * each tail below 0.02425.
 * @param {number} p  in (0, 1)
 */
export function normalQuantile(p) {
  const LOW = 0.02425
  if (p < LOW) return tail(Math.sqrt(-2 * Math.log(p)))
  if (p > 1 - LOW) return -tail(Math.sqrt(-2 * Math.log(1 - p)))
  const q = p - 0.5
  const r = q * q
  return (
    ((((((-3.969683028665376e1 * r + 2.209460984245205e2) * r - 2.759285104469687e2) * r + 1.38357751867269e2) * r -
      3.066479806614716e1) *
      r +
      2.506628277459239) *
      q) /
    (((((-5.447609879822406e1 * r + 1.615858368580409e2) * r - 1.556989798598866e2) * r + 6.680131188771972e1) * r -
      1.328068155288572e1) *
      r +
      1)
  )
}

/** @param {number} q */
function tail(q) {
  return (
    (((((-7.784894002430293e-3 * q - 3.223964580411365e-1) * q - 2.400758277161838) * q - 2.549732539343734) * q +
      4.374664141464968) *
      q +
      2.938163982698783) /
    ((((7.784695709041462e-3 * q + 3.224671290700398e-1) * q + 2.445134137142996) * q + 3.754408661907416) * q + 1)
  )
}

/**
 * A seed for a run given none: different every time.
 * @returns {number}
 */
export function randomSeed() {
  return Math.floor(Math.random() * 2 ** 31)
}
