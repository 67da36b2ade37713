// A log-linear histogram of integer microseconds (HdrHistogram-like, 32
// sub-buckets per power of two, so about 3 % relative precision). It backs the
// percentiles of the summary; recording is two shifts and an increment.

const SUB_BITS = 5
const SUB = 1 << SUB_BITS // 32
const LINEAR = SUB * 2 // values below 64 are exact
const MAX_MAGNITUDE = 36 // about 19 hours in microseconds
const SIZE = LINEAR + (MAX_MAGNITUDE - SUB_BITS) * SUB

// Names the bucket layout above: bucket counts written by a summary can be
// added to others only when they were made with the same layout.
export const LOG_HISTOGRAM_SCHEME = `log-linear-us:sub_bits=${SUB_BITS},max_magnitude=${MAX_MAGNITUDE}`
export const LOG_HISTOGRAM_SIZE = SIZE

/** @param {number} value non-negative */
function indexOf(value) {
  const v = Math.floor(value)
  if (v < LINEAR) return v < 0 ? 0 : v
  let magnitude, sub
  if (v < 4294967296) {
    // Below 2^32 µs (71 minutes), every request's case: the bit length
    // gives the magnitude without a call to log2 and pow.
    magnitude = 31 - Math.clz32(v)
    sub = (v >>> (magnitude - SUB_BITS)) - SUB
  } else {
    magnitude = Math.min(Math.floor(Math.log2(v)), MAX_MAGNITUDE)
    sub = Math.min(Math.floor(v / 2 ** (magnitude - SUB_BITS)), LINEAR - 1) - SUB
  }
  return LINEAR + (magnitude - SUB_BITS - 1) * SUB + sub
}

/** Highest value that falls into bucket index. @param {number} index */
function upperBoundOf(index) {
  if (index < LINEAR) return index
  const k = index - LINEAR
  const magnitude = Math.floor(k / SUB) + SUB_BITS + 1
  const sub = (k % SUB) + SUB
  const shift = magnitude - SUB_BITS
  return (sub + 1) * 2 ** shift - 1
}

// Floats a histogram keeps: its buckets, then its count, sum and max. A
// histogram may live in memory given to it (a SharedArrayBuffer's, so that
// another thread reads what a generator thread records).
export const LOG_HISTOGRAM_FLOATS = SIZE + 3
const COUNT = SIZE
const SUM = SIZE + 1
const MAX = SIZE + 2

export class LogHistogram {
  /** @param {Float64Array} [memory]  LOG_HISTOGRAM_FLOATS floats, zeroed */
  constructor(memory = new Float64Array(LOG_HISTOGRAM_FLOATS)) {
    this.memory = memory
    this.counts = memory.subarray(0, SIZE)
  }

  get count() {
    return this.memory[COUNT]
  }
  set count(n) {
    this.memory[COUNT] = n
  }
  get sum() {
    return this.memory[SUM]
  }
  set sum(n) {
    this.memory[SUM] = n
  }
  get max() {
    return this.memory[MAX]
  }
  set max(n) {
    this.memory[MAX] = n
  }

  /** @param {number} us */
  record(us) {
    const memory = this.memory
    memory[indexOf(us)]++
    memory[COUNT]++
    memory[SUM] += us
    if (us > memory[MAX]) memory[MAX] = us
  }

  /**
   * The value at quantile q (0..1), reported as its bucket's upper bound but
   * never above the observed max. Null when empty.
   * @param {number} q
   */
  quantile(q) {
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
  quantileSince(previous, q) {
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
  add(other) {
    for (let i = 0; i < SIZE; i++) this.counts[i] += other.counts[i]
    this.count += other.count
    this.sum += other.sum
    if (other.max > this.max) this.max = other.max
  }

  reset() {
    this.memory.fill(0)
  }
}
