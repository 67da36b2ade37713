import { LATENCY_BUCKETS_US, bucketIndex } from './latency-buckets.js'
import { LogHistogram } from './log-histogram.js'
import { ErrorMessageCounts } from './error-messages.js'

const NBUCKETS = LATENCY_BUCKETS_US.length + 1 // + Inf

// The generator's hot-path record of what happened: flat typed arrays indexed
// by request type, no label hashing per request. The Prometheus side reads
// these at scrape time.
export class RequestStats {
  /** @param {readonly string[]} types  the workload's request types */
  constructor (types) {
    this.types = types
    const n = types.length
    this.started = new Float64Array(n)
    this.done = new Float64Array(n) // every completed request, ok or not
    this.failed = new Float64Array(n)
    this.notFound = new Float64Array(n) // succeeded but found nothing to work on
    this.diskFull = new Float64Array(n) // failed because the server found no space to write
    this.maxUs = new Float64Array(n)
    // what the requests of each type wrote, as they reported it once acknowledged
    this.rows = new Float64Array(n)
    this.points = new Float64Array(n) // metric values: a row of ten metrics is ten points
    // [result][type][bucket], result 0 = ok, 1 = error; not cumulative
    this.buckets = [new Float64Array(n * NBUCKETS), new Float64Array(n * NBUCKETS)]
    this.sums = [new Float64Array(n), new Float64Array(n)]
    this.counts = [new Float64Array(n), new Float64Array(n)]
    this.latency = types.map(() => new LogHistogram())
    this.lag = new LogHistogram() // open loop: send time minus intended time
    this.errors = new ErrorMessageCounts()
    this.unexpectedFailures = 0
  }

  /** @param {number} type */
  start (type) {
    this.started[type]++
  }

  /**
   * @param {number} type
   * @param {number} us
   * @param {boolean} ok
   */
  finish (type, us, ok) {
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
  error (message, expected) {
    this.errors.add(message)
    if (!expected) this.unexpectedFailures++
  }

  /** @param {number} type */
  outstanding (type) {
    return this.started[type] - this.done[type]
  }
}

export const LATENCY_BUCKET_COUNT = NBUCKETS
