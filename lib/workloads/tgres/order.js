// The order of a segment's writes. A segment's state row (rra_state) says
// which step its points are at; two writes of one segment on two
// connections would lock that row in the order they reach the server, not
// the order they were sent, and its latest could go back in time. Tgres
// never has two flushes of a segment in flight: its cache hands a segment
// to the flushers once a step (receiver/vcache.go). Data time here runs as
// fast as the server takes the writes, so the order is kept by hand: a
// write of a segment is handed out only when the one before it (of the
// same segment) has ended, done or failed.
//
// Writes are numbered in the order of data time (a step's writes, then the
// next step's; layout.js), and each segment's go in that order. A client
// takes the earliest write among the segments with none in flight: a
// segment whose write is slow is passed over, as Tgres's other flushers go
// on while one waits, and it is the first served once its write ends, so
// it catches up (when there are fewer clients than segments; with as many
// or more, every segment is always busy and the gaps between them wander).
// No write goes slots − 1 steps or more after the earliest write in
// flight: until that write ends, its segment (and, in slices, the rest of
// the segment's slices, which come after it) holds the step before it, and
// every segment's ring must still hold that step, so that the rings share
// a data time (a write slots steps after it would overwrite that step's
// slot). A client waits (until a segment's write ends) only when every
// segment has a write in flight, or when the one free is that far ahead
// of a write still in flight.

export class SegmentOrder {
  /** @param {{ unitsPerStep: number, segments: number, unitSeg: Int32Array, slots: number }} layout */
  constructor({ unitsPerStep, segments, unitSeg, slots }) {
    // settles when a segment's write ends: a promise, so that this state
    // cannot be copied to another thread (--threads above 1 is refused,
    // with "#<Promise> could not be cloned")
    /** @type {Promise<void>} */
    this.freed = Promise.resolve()
    /** @type {() => void} */
    this.wake = () => {}
    this.unitsPerStep = unitsPerStep
    this.slots = slots
    // a write goes less than this many steps after the earliest in flight (with one slot: only at its step)
    this.reach = Math.max(1, slots - 1)
    this.segments = segments
    this.unitSeg = unitSeg
    // each segment's earliest write not handed out, and by write within a
    // step, how many writes further on its segment's next one is
    this.next = new Float64Array(segments)
    this.gap = new Int32Array(unitsPerStep)
    gaps(this)
    // the segments with no write in flight: a binary heap by their next write
    this.free = new Int32Array(segments)
    this.freeCount = 0
    for (let seg = 0; seg < segments; seg++) this.push(seg)
    // the segments with a write in flight, where each is in that list (-1:
    // none in flight), and the write
    this.flying = new Int32Array(segments)
    this.flyingCount = 0
    this.flyingAt = new Int32Array(segments).fill(-1)
    this.current = new Float64Array(segments)
    // writes that had to wait for a segment; the clients waiting now
    this.waits = 0
    this.waiting = 0
    this.freed = this.renewFreed()
  }

  /** @returns {Promise<void>} */
  renewFreed() {
    return new Promise(resolve => {
      this.wake = () => resolve(undefined)
    })
  }

  /** Writes in flight: one a busy segment. */
  get inFlight() {
    return this.flyingCount
  }

  /**
   * The earliest write of a segment with none in flight, marked in flight;
   * -1 when every segment is busy, or the earliest free is too far ahead (reach).
   */
  take() {
    if (this.freeCount === 0) return -1
    const seg = this.free[0]
    const n = this.next[seg]
    if (this.flyingCount > 0 && this.stepOf(n) - this.stepOf(this.earliestInFlight()) >= this.reach) return -1
    this.pop()
    this.flying[this.flyingCount] = seg
    this.flyingAt[seg] = this.flyingCount++
    this.current[seg] = n
    this.next[seg] = n + this.gap[n % this.unitsPerStep]
    return n
  }

  /** The earliest write in flight (there is one). */
  earliestInFlight() {
    let earliest = Infinity
    for (let k = 0; k < this.flyingCount; k++) earliest = Math.min(earliest, this.current[this.flying[k]])
    return earliest
  }

  /** @param {number} n */
  stepOf(n) {
    return Math.floor(n / this.unitsPerStep)
  }

  /**
   * The next write this client may send, waiting for a segment when every
   * one is busy. Resolves to the write's number; release(its segment) once
   * it has ended, done or failed.
   * @returns {Promise<number>}
   */
  async acquire() {
    let n = this.take()
    if (n >= 0) return n
    this.waits++
    while (n < 0) {
      this.waiting++
      await this.freed
      this.waiting--
      n = this.take()
    }
    return n
  }

  /**
   * A write of the segment has ended: its next write may go.
   * @param {number} seg
   */
  release(seg) {
    const at = this.flyingAt[seg]
    if (at < 0) return
    const moved = this.flying[--this.flyingCount]
    this.flying[at] = moved
    this.flyingAt[moved] = at
    this.flyingAt[seg] = -1
    this.push(seg)
    if (this.waiting === 0) return
    const wake = this.wake
    this.freed = this.renewFreed()
    wake()
  }

  /**
   * The last step (counted from the run's first) whose writes of the
   * segment have all been handed out; -1 before the first.
   * @param {number} seg
   */
  handedStep(seg) {
    return Math.floor(this.next[seg] / this.unitsPerStep) - 1
  }

  /** @param {number} seg */
  push(seg) {
    const { free, next } = this
    let k = this.freeCount++
    while (k > 0) {
      const parent = (k - 1) >> 1
      if (next[free[parent]] <= next[seg]) break
      free[k] = free[parent]
      k = parent
    }
    free[k] = seg
  }

  pop() {
    const { free, next } = this
    const top = free[0]
    const last = free[--this.freeCount]
    let k = 0
    for (;;) {
      let child = 2 * k + 1
      if (child >= this.freeCount) break
      if (child + 1 < this.freeCount && next[free[child + 1]] < next[free[child]]) child++
      if (next[last] <= next[free[child]]) break
      free[k] = free[child]
      k = child
    }
    free[k] = last
    return top
  }
}

/**
 * Each segment's first write, and for each write within a step the
 * distance to its segment's next one (in the same step, or the next).
 * @param {SegmentOrder} order
 */
function gaps(order) {
  const { unitsPerStep, unitSeg, next, gap } = order
  const first = new Int32Array(order.segments).fill(-1)
  const last = new Int32Array(order.segments).fill(-1)
  for (let unit = 0; unit < unitsPerStep; unit++) {
    const seg = unitSeg[unit]
    if (first[seg] < 0) first[seg] = unit
    else gap[last[seg]] = unit - last[seg]
    last[seg] = unit
  }
  for (let seg = 0; seg < order.segments; seg++) {
    next[seg] = first[seg]
    gap[last[seg]] = first[seg] + unitsPerStep - last[seg]
  }
}
