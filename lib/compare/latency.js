import { mergeHistograms } from '../results/merge-histograms.js'
import { histogramFromJson } from '../summary/histogram-field.js'

// The latency percentiles of an entry: of every request of all its
// repetitions, from their raw histograms added bucket by bucket (never an
// average of percentiles), per request type and over all types; and each
// repetition's own, from its own histograms, which the intervals are
// computed from.

/** The percentiles compared, and their quantiles. */
export const PERCENTILES = /** @type {const} */ ([
  ['p50', 0.5],
  ['p95', 0.95],
  ['p99', 0.99],
  ['p99.9', 0.999]
])

/** @typedef {Record<string, number | null>} Percentiles  p50 … p99.9, µs; null: no request */

/** The key of every type together. */
export const ALL_TYPES = 'all'

/**
 * @typedef {object} EntryLatency
 * @property {string[]} types     request types that completed requests, in the order first met
 * @property {Record<string, Percentiles>} merged           by type, and ALL_TYPES
 * @property {Record<string, Percentiles>[]} repetitions    each repetition's, likewise
 */

/**
 * @param {Record<string, any>[]} summaries   one per repetition, checked (read-entries.js)
 * @returns {EntryLatency}
 */
export function entryLatency(summaries) {
  const merged = mergeHistograms(summaries)
  const types = [...merged.byType].filter(([, h]) => h.count > 0).map(([type]) => type)
  /** @type {Record<string, Percentiles>} */
  const mergedPercentiles = { [ALL_TYPES]: percentiles(merged.latency) }
  for (const type of types)
    mergedPercentiles[type] = percentiles(
      /** @type {import('../metrics/log-histogram.js').LogHistogram} */ (merged.byType.get(type))
    )
  const repetitions = summaries.map(summary => {
    const h = summary.histograms
    /** @type {Record<string, Percentiles>} */
    const out = { [ALL_TYPES]: percentiles(histogramFromJson(h.latency, 'latency')) }
    for (const type of types) {
      const json = h.latency_by_type?.[type]
      out[type] = json ? percentiles(histogramFromJson(json, type)) : empty()
    }
    return out
  })
  return { types, merged: mergedPercentiles, repetitions }
}

/**
 * @param {import('../metrics/log-histogram.js').LogHistogram} h
 * @returns {Percentiles}
 */
function percentiles(h) {
  /** @type {Percentiles} */
  const out = {}
  for (const [name, q] of PERCENTILES) {
    const value = h.quantile(q)
    out[name] = value === null ? null : Math.round(value)
  }
  return out
}

/** @returns {Percentiles} */
function empty() {
  return Object.fromEntries(PERCENTILES.map(([name]) => [name, null]))
}
