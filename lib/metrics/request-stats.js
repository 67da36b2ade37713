import { LATENCY_BUCKETS_US, bucketIndex } from './latency-buckets.js'
import { LogHistogram, LOG_HISTOGRAM_FLOATS } from './log-histogram.js'
import { ErrorMessageCounts } from './error-messages.js'

const NBUCKETS = LATENCY_BUCKETS_US.length + 1 // + Inf

// Indexes of RequestStats.cancels. A cancel is sent when a request times out
// (or is still running at the shutdown timeout); it succeeded when the
// request ended within the grace and its connection was kept; it gave up
// when the grace passed and the connection was closed instead.
export const CANCELS_SENT = 0
export const CANCELS_SUCCEEDED = 1
export const CANCELS_GAVE_UP = 2
const CANCEL_COUNTS = 3

// The generator's hot-path record of what happened: flat typed arrays indexed
// by request type, no label hashing per request. The Prometheus side reads
// these at scrape time.
//
// Every number lives in one Float64Array (its `memory`), so that a generator
// thread can record into a SharedArrayBuffer's memory and the main thread
// add the threads' records up exactly (mergeFrom). Error messages are the
// exception: they are strings, and the threads send them (see
// lib/generator/threaded-generator.js).
export class RequestStats {
  /**
   * How many floats the stats of these types take.
   * @param {readonly string[]} types
   */
  static floatsFor(types) {
    const n = types.length
    return n * (9 + 2 * NBUCKETS + 4) + (n + 1) * LOG_HISTOGRAM_FLOATS + CANCEL_COUNTS + 1
  }

  /**
   * @param {readonly string[]} types  the workload's request types
   * @param {Float64Array} [memory]  floatsFor(types) zeroed floats, maybe shared
   */
  constructor(types, memory = new Float64Array(RequestStats.floatsFor(types))) {
    this.types = types
    this.memory = memory
    const n = types.length
    let at = 0
    const take = (/** @type {number} */ length) => memory.subarray(at, (at += length))
    this.started = take(n)
    this.done = take(n) // every completed request, ok or not
    this.failed = take(n)
    this.notFound = take(n) // succeeded but found nothing to work on
    this.diskFull = take(n) // failed because the server found no space to write
    this.timeouts = take(n) // failed for want of an answer within --request-timeout
    this.maxUs = take(n) // a maximum: mergeFrom takes the largest, not the sum
    // what the requests of each type wrote, as they reported it once acknowledged
    this.rows = take(n)
    this.points = take(n) // metric values: a row of ten metrics is ten points
    // [result][type][bucket], result 0 = ok, 1 = error; not cumulative
    this.buckets = [take(n * NBUCKETS), take(n * NBUCKETS)]
    this.sums = [take(n), take(n)]
    this.counts = [take(n), take(n)]
    this.latency = types.map(() => new LogHistogram(take(LOG_HISTOGRAM_FLOATS)))
    this.lag = new LogHistogram(take(LOG_HISTOGRAM_FLOATS)) // open loop: send time minus intended time
    // cancels of requests on the server: [sent, succeeded, gave up] (CANCELS_SENT, …)
    this.cancels = take(CANCEL_COUNTS)
    // connections the server refused for want of a slot (SQLSTATE 53300), counted per attempt
    this.refusals = take(1)
    this.errors = new ErrorMessageCounts()
    this.unexpectedFailures = 0
  }

  /**
   * Makes these stats the exact sum of others' (the threads' of one run):
   * counts added, maxima taken. Error messages are not theirs to merge.
   * @param {RequestStats[]} sources  stats of the same types
   */
  mergeFrom(sources) {
    const memory = this.memory
    memory.fill(0)
    for (const source of sources) {
      const from = source.memory
      for (let i = 0; i < memory.length; i++) memory[i] += from[i]
    }
    const n = this.types.length
    for (let t = 0; t < n; t++) this.maxUs[t] = Math.max(0, ...sources.map(s => s.maxUs[t]))
    for (let t = 0; t < n; t++) this.latency[t].max = Math.max(0, ...sources.map(s => s.latency[t].max))
    this.lag.max = Math.max(0, ...sources.map(s => s.lag.max))
  }

  /** @param {number} type */
  start(type) {
    this.started[type]++
  }

  /**
   * @param {number} type
   * @param {number} us
   * @param {boolean} ok
   */
  finish(type, us, ok) {
    this.done[type]++
    const result = ok ? 0 : 1
    if (!ok) this.failed[type]++
    this.buckets[result][type * NBUCKETS + bucketIndex(LATENCY_BUCKETS_US, us)]++
    this.sums[result][type] += us
    this.counts[result][type]++
    this.latency[type].record(us)
    if (us > this.maxUs[type]) this.maxUs[type] = us
  }

  /**
   * @param {string} message
   * @param {boolean} expected  an injected error, as opposed to a real problem
   */
  error(message, expected) {
    this.errors.add(message)
    if (!expected) this.unexpectedFailures++
  }

  /** @param {number} type */
  outstanding(type) {
    return this.started[type] - this.done[type]
  }
}

export const LATENCY_BUCKET_COUNT = NBUCKETS
