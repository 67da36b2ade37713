import { LogHistogram } from '../metrics/log-histogram.js'
import { histogramFromJson, histogramsFieldOf } from '../summary/histogram-field.js'

// The raw histograms of several summaries added bucket by bucket: the
// merged percentiles are those of every request of every instance, not an
// average of the instances' percentiles.

/**
 * @typedef {object} MergedHistograms
 * @property {LogHistogram} latency
 * @property {Map<string, LogHistogram>} byType    in the order the types first appear
 * @property {LogHistogram | null} lag
 */

/**
 * @param {Record<string, any>[]} summaries  checked by read-runs.js: one scheme
 * @returns {MergedHistograms}
 */
export function mergeHistograms(summaries) {
  const latency = new LogHistogram()
  /** @type {Map<string, LogHistogram>} */
  const byType = new Map()
  /** @type {LogHistogram | null} */
  let lag = null
  for (const summary of summaries) {
    const h = summary.histograms
    latency.add(histogramFromJson(h.latency, 'latency'))
    for (const [type, json] of Object.entries(/** @type {Record<string, unknown>} */ (h.latency_by_type ?? {}))) {
      const merged = byType.get(type) ?? new LogHistogram()
      merged.add(histogramFromJson(json, type))
      byType.set(type, merged)
    }
    if (h.schedule_lag) (lag ??= new LogHistogram()).add(histogramFromJson(h.schedule_lag, 'schedule lag'))
  }
  return { latency, byType, lag }
}

/**
 * The `histograms` field of the merged summary.
 * @param {string} scheme
 * @param {MergedHistograms} merged
 * @returns {import('../summary/histogram-field.js').HistogramsField}
 */
export function mergedHistogramsField(scheme, merged) {
  return histogramsFieldOf(merged.latency, [...merged.byType], merged.lag, scheme)
}
