// A log-linear histogram of integer microseconds (HdrHistogram-like, 32
// sub-buckets per power of two, so about 3 % relative precision). It backs the
// percentiles of the summary; recording is two shifts and an increment.

const SUB_BITS = 5
const SUB = 1 << SUB_BITS // 32
const LINEAR = SUB * 2 // values below 64 are exact
const MAX_MAGNITUDE = 36 // about 19 hours in microseconds
const SIZE = LINEAR + (MAX_MAGNITUDE - SUB_BITS) * SUB

/** @param {number} value non-negative */
function indexOf (value) {
  const v = Math.floor(value)
  if (v < LINEAR) return v < 0 ? 0 : v
  const magnitude = Math.min(Math.floor(Math.log2(v)), MAX_MAGNITUDE)
  const shift = magnitude - SUB_BITS
  const sub = Math.min(Math.floor(v / 2 ** shift), LINEAR - 1) - SUB
  return LINEAR + (magnitude - SUB_BITS - 1) * SUB + sub
}

/** Highest value that falls into bucket index. @param {number} index */
function upperBoundOf (index) {
  if (index < LINEAR) return index
  const k = index - LINEAR
  const magnitude = Math.floor(k / SUB) + SUB_BITS + 1
  const sub = k % SUB + SUB
  const shift = magnitude - SUB_BITS
  return (sub + 1) * 2 ** shift - 1
}

export class LogHistogram {
  constructor () {
    this.counts = new Float64Array(SIZE)
    this.count = 0
    this.sum = 0
    this.max = 0
  }

  /** @param {number} us */
  record (us) {
    this.counts[indexOf(us)]++
    this.count++
    this.sum += us
    if (us > this.max) this.max = us
  }

  /**
   * The value at quantile q (0..1), reported as its bucket's upper bound but
   * never above the observed max. Null when empty.
   * @param {number} q
   */
  quantile (q) {
    if (this.count === 0) return null
    const rank = Math.max(1, Math.ceil(q * this.count))
    let seen = 0
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i]
      if (seen >= rank) return Math.min(upperBoundOf(i), this.max)
    }
    return this.max
  }

  /**
   * The quantile of what was recorded since a copy of counts was taken:
   * per-interval percentiles without touching the hot path.
   * @param {Float64Array} previous  counts as they were
   * @param {number} q
   * @returns {number | null}
   */
  quantileSince (previous, q) {
    let total = 0
    for (let i = 0; i < SIZE; i++) total += this.counts[i] - previous[i]
    if (total <= 0) return null
    const rank = Math.max(1, Math.ceil(q * total))
    let seen = 0
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i] - previous[i]
      if (seen >= rank) return Math.min(upperBoundOf(i), this.max)
    }
    return this.max
  }

  /** @param {LogHistogram} other */
  add (other) {
    for (let i = 0; i < SIZE; i++) this.counts[i] += other.counts[i]
    this.count += other.count
    this.sum += other.sum
    if (other.max > this.max) this.max = other.max
  }

  reset () {
    this.counts.fill(0)
    this.count = 0
    this.sum = 0
    this.max = 0
  }
}
