import { Random } from './random.js'

// The data of TSBS's cpu-only use case as one stream shared by all clients:
// one point per host per interval, in TSBS's order (time ascending, hosts in
// order within a time), each of the ten usage fields a random walk of
// normal steps clamped to 0..100, written as its whole part
// (pkg/data/usecases/devops/cpu.go, common/distribution.go). A batch takes
// the next rows of the stream, so no two clients ever send the same point.
//
// Time runs on one of two clocks. Simulated: the stream starts at a given
// time and runs as fast as the rows are taken. Real: epoch n is due at
// start + n × interval by the wall clock, and a batch takes what is due.
//
// Disorder, as TSBS's iot use case has it: a fraction of the points is
// never sent (the walk still advances), and a fraction is held back and
// sent at the end of its batch, after points of later times.

export const FIELD_COUNT = 10
const DISORDER_SEED = 0x5bd1e995

/**
 * Where a batch's rows go: a COPY encoder, or the parameters of an INSERT.
 * @typedef {object} RowSink
 * @property {(timeMs: number, tagsId: number, values: Float64Array) => void} row
 */

/**
 * @typedef {object} StreamOptions
 * @property {Int32Array} tagIds    tags.id of host n
 * @property {number} intervalMs    each host's point interval
 * @property {number} startMs       the time of epoch 0
 * @property {number} firstEpoch    the first epoch this run sends (later than rows already in the table)
 * @property {'simulated' | 'real'} clock
 * @property {number} seed
 * @property {number} missing       fraction of points never sent
 * @property {number} outOfOrder    fraction of points sent late
 * @property {() => number} [now]   the wall clock, in ms
 */

export class CpuStream {
  /** @param {StreamOptions} options */
  constructor({ tagIds, intervalMs, startMs, firstEpoch, clock, seed, missing, outOfOrder, now = Date.now }) {
    this.tagIds = tagIds
    this.hosts = tagIds.length
    this.intervalMs = intervalMs
    this.startMs = startMs
    this.firstEpoch = firstEpoch
    this.real = clock === 'real'
    this.missing = missing
    this.outOfOrder = outOfOrder
    this.now = now
    this.values = new Random(seed)
    this.disorder = new Random(seed ^ DISORDER_SEED)
    // the walks' states, host by host; TSBS starts each uniformly in 0..100
    this.walks = new Float64Array(this.hosts * FIELD_COUNT)
    for (let i = 0; i < this.walks.length; i++) this.walks[i] = this.values.float() * 100
    // the next point: its epoch and host
    this.epoch = firstEpoch
    this.host = 0
    // the newest epoch handed to a batch, and the newest a batch was acknowledged with
    this.newestTakenEpoch = firstEpoch - 1
    this.newestWrittenEpoch = firstEpoch - 1
    // points considered, points never sent, points sent late
    this.points = 0
    this.skipped = 0
    this.late = 0
    this.row = new Float64Array(FIELD_COUNT)
    // the points held back in the batch being made
    this.heldTimes = new Float64Array(64)
    this.heldTags = new Int32Array(64)
    this.heldValues = new Float64Array(64 * FIELD_COUNT)
  }

  /** @param {number} epoch */
  timeOf(epoch) {
    return this.startMs + epoch * this.intervalMs
  }

  /** Points the clock has made due and no batch has taken yet: unbounded on the simulated clock. */
  due() {
    if (!this.real) return Infinity
    const lastDue = Math.floor((this.now() - this.startMs) / this.intervalMs)
    return Math.max(0, (lastDue + 1 - this.epoch) * this.hosts - this.host)
  }

  /**
   * The time partitions must reach for the next rows: the next point's, or
   * on the real clock the present if later.
   */
  frontierMs() {
    const next = this.timeOf(this.epoch)
    return this.real ? Math.max(next, this.now()) : next
  }

  /**
   * Hands up to maxRows of the next rows to the sink, synchronously (all
   * clients share the stream: a batch is taken whole before another can
   * start). Returns the rows given and the newest epoch among them.
   * @param {number} maxRows
   * @param {RowSink} sink
   * @returns {{ rows: number, newestEpoch: number }}
   */
  take(maxRows, sink) {
    const { hosts, walks, row, tagIds, missing, outOfOrder, values, disorder } = this
    let positions = this.due()
    let rows = 0
    let held = 0
    let epoch = this.epoch
    let host = this.host
    let timeMs = this.timeOf(epoch)
    let newestEpoch = -Infinity
    while (rows < maxRows && positions > 0) {
      positions--
      const base = host * FIELD_COUNT
      if (epoch > this.firstEpoch) {
        for (let f = 0; f < FIELD_COUNT; f++) {
          let state = walks[base + f] + values.normal()
          if (state > 100) state = 100
          else if (state < 0) state = 0
          walks[base + f] = state
          row[f] = Math.trunc(state)
        }
      } else {
        for (let f = 0; f < FIELD_COUNT; f++) row[f] = Math.trunc(walks[base + f])
      }
      const tagsId = tagIds[host]
      const pointEpoch = epoch
      const pointMs = timeMs
      if (++host === hosts) {
        host = 0
        epoch++
        timeMs = this.timeOf(epoch)
      }
      this.points++
      if (missing > 0 && disorder.float() < missing) {
        this.skipped++
        continue
      }
      rows++
      newestEpoch = pointEpoch
      if (outOfOrder > 0 && disorder.float() < outOfOrder) {
        this.hold(held++, pointMs, tagsId)
        continue
      }
      sink.row(pointMs, tagsId, row)
    }
    this.epoch = epoch
    this.host = host
    for (let i = 0; i < held; i++) {
      row.set(this.heldValues.subarray(i * FIELD_COUNT, (i + 1) * FIELD_COUNT))
      sink.row(this.heldTimes[i], this.heldTags[i], row)
    }
    this.late += held
    if (rows > 0 && newestEpoch > this.newestTakenEpoch) this.newestTakenEpoch = newestEpoch
    return { rows, newestEpoch: rows > 0 ? newestEpoch : this.newestTakenEpoch }
  }

  /**
   * Keeps the point in this.row for the end of the batch.
   * @param {number} i
   * @param {number} timeMs
   * @param {number} tagsId
   */
  hold(i, timeMs, tagsId) {
    if (i === this.heldTimes.length) {
      const grow = (/** @type {any} */ old, /** @type {number} */ n) => {
        const next = new old.constructor(n)
        next.set(old)
        return next
      }
      this.heldTimes = grow(this.heldTimes, i * 2)
      this.heldTags = grow(this.heldTags, i * 2)
      this.heldValues = grow(this.heldValues, i * 2 * FIELD_COUNT)
    }
    this.heldTimes[i] = timeMs
    this.heldTags[i] = tagsId
    this.heldValues.set(this.row, i * FIELD_COUNT)
  }

  /**
   * A batch with rows up to newestEpoch was acknowledged.
   * @param {number} newestEpoch
   */
  written(newestEpoch) {
    if (newestEpoch > this.newestWrittenEpoch) this.newestWrittenEpoch = newestEpoch
  }
}
