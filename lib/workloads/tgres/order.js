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
// next step's; layout.js). A client takes the earliest write not handed out
// whose segment has none in flight, looking at most a step's worth of
// writes ahead of the earliest one not handed out: a slow segment lets the
// others run a step ahead of it at most, so the segments' data times stay
// within two steps of each other. A client waits (until a segment's write
// ends) only when every segment it could write is busy: with more clients
// than segments, or when one segment's write lasts as long as a step's
// worth of the others'.

export class SegmentOrder {
  /** @param {{ unitsPerStep: number, segments: number, unitSeg: Int32Array }} layout */
  constructor({ unitsPerStep, segments, unitSeg }) {
    this.unitsPerStep = unitsPerStep
    this.segments = segments
    this.unitSeg = unitSeg
    // the earliest write not handed out; those after it that were, by number mod unitsPerStep
    this.head = 0
    this.handed = new Uint8Array(unitsPerStep)
    // segments with a write in flight
    this.busy = new Uint8Array(segments)
    this.inFlight = 0
    // each segment's earliest write not handed out, and by write within a
    // step, how many writes further on its segment's next one is
    this.next = new Float64Array(segments)
    this.gap = new Int32Array(unitsPerStep)
    gaps(this)
    // the scan of take(): a segment met in this scan already is skipped
    this.seen = new Float64Array(segments)
    this.scans = 0
    // writes that had to wait for a segment; the clients waiting now
    this.waits = 0
    this.waiting = 0
    /** @type {() => void} */
    this.wake = () => {}
    // settles when a segment's write ends (a promise, so that this state
    // cannot be copied to another thread: --threads is refused)
    /** @type {Promise<void>} */
    this.freed = this.renewFreed()
  }

  /** @returns {Promise<void>} */
  renewFreed() {
    return new Promise(resolve => {
      this.wake = () => resolve(undefined)
    })
  }

  /**
   * The earliest write that may go now, marked in flight; -1 when every
   * segment that has one within a step's worth is busy.
   */
  take() {
    const perStep = this.unitsPerStep
    const scan = ++this.scans
    let met = 0
    for (let n = this.head; n < this.head + perStep && met < this.segments; n++) {
      const unit = n % perStep
      if (this.handed[unit] === 1) continue
      const seg = this.unitSeg[unit]
      // only a segment's earliest write not handed out may go
      if (this.seen[seg] === scan) continue
      this.seen[seg] = scan
      met++
      if (this.busy[seg] === 1) continue
      this.busy[seg] = 1
      this.inFlight++
      this.handed[unit] = 1
      this.next[seg] = n + this.gap[unit]
      while (this.handed[this.head % perStep] === 1) this.handed[this.head++ % perStep] = 0
      return n
    }
    return -1
  }

  /**
   * The next write this client may send, waiting for a segment when none
   * is free. Resolves to the write's number; release(its segment) once it
   * has ended, done or failed.
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
    if (this.busy[seg] === 0) return
    this.busy[seg] = 0
    this.inFlight--
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
