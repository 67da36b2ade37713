import { LogHistogram, LOG_HISTOGRAM_SCHEME, LOG_HISTOGRAM_SIZE } from '../metrics/log-histogram.js'

// The raw latency histograms a summary keeps (its `histograms` field), so
// that the summaries of instances can be merged exactly: counts added
// bucket by bucket, percentiles recomputed from the sum. Only non-zero
// buckets are written, as [index, count] pairs, with the name of the bucket
// layout; a merge refuses histograms of another layout.

/**
 * @typedef {object} HistogramJson
 * @property {number} count
 * @property {number} sum     µs, unrounded
 * @property {number} max     µs
 * @property {[number, number][]} buckets  [bucket index, count], non-zero, ascending
 */

/**
 * @typedef {object} HistogramsField
 * @property {string} scheme   LOG_HISTOGRAM_SCHEME of the writer
 * @property {'us'} unit
 * @property {HistogramJson} latency                     every request
 * @property {Record<string, HistogramJson>} latency_by_type
 * @property {HistogramJson} [schedule_lag]             open loop and paced clients
 */

/** @param {LogHistogram} h @returns {HistogramJson} */
export function histogramJson(h) {
  /** @type {[number, number][]} */
  const buckets = []
  for (let i = 0; i < h.counts.length; i++) if (h.counts[i] !== 0) buckets.push([i, h.counts[i]])
  return { count: h.count, sum: h.sum, max: h.max, buckets }
}

/**
 * The `histograms` field of a summary: every request's latencies, each
 * type's, and the schedule lag when there is one.
 * @param {LogHistogram} latency
 * @param {Array<[string, LogHistogram]>} byType
 * @param {LogHistogram | null} lag
 * @param {string} [scheme]   the layout the histograms were made with
 * @returns {HistogramsField}
 */
export function histogramsFieldOf(latency, byType, lag, scheme = LOG_HISTOGRAM_SCHEME) {
  return {
    scheme,
    unit: 'us',
    latency: histogramJson(latency),
    latency_by_type: Object.fromEntries(byType.map(([type, h]) => [type, histogramJson(h)])),
    ...(lag && { schedule_lag: histogramJson(lag) })
  }
}

/**
 * @param {import('../metrics/request-stats.js').RequestStats} stats
 * @param {LogHistogram} all  every type's latencies together
 * @param {boolean} withLag
 * @returns {HistogramsField}
 */
export function histogramsField(stats, all, withLag) {
  return histogramsFieldOf(
    all,
    stats.types.map((type, i) => [type, stats.latency[i]]),
    withLag ? stats.lag : null
  )
}

/**
 * A histogram back from its JSON; throws an Error naming what is wrong. Not
 * a coded error: the readers of a recorded run (compare, merge) call it on
 * each summary first and report its Error as PGLG_INVALID_RUN_DIR.
 * @param {unknown} value
 * @param {string} where   named in the error
 */
export function histogramFromJson(value, where) {
  const json = /** @type {Partial<HistogramJson> | null} */ (value)
  if (!json || typeof json !== 'object' || !Array.isArray(json.buckets)) throw new Error(`${where}: no bucket counts`)
  const h = new LogHistogram()
  let count = 0
  for (const pair of json.buckets) {
    const [index, n] = Array.isArray(pair) ? pair : [NaN, NaN]
    if (!(Number.isInteger(index) && index >= 0 && index < LOG_HISTOGRAM_SIZE && typeof n === 'number' && n >= 0)) {
      throw new Error(`${where}: a bucket is not [index, count]: ${JSON.stringify(pair)}`)
    }
    h.counts[index] += n
    count += n
  }
  if (json.count !== undefined && json.count !== count) {
    throw new Error(`${where}: count ${json.count} is not the sum of its buckets (${count})`)
  }
  h.count = count
  h.sum = Number(json.sum ?? 0)
  h.max = Number(json.max ?? 0)
  return h
}
