import { DEFAULTS } from './change-point-input.js'
import { WINDOW_REQUESTS } from '../recorder/p99-windows.js'

// The per-second series of a recorded load that explain.js segments, and
// where what the lab saw falls among their seconds.

/** @typedef {import('../recorder/records.js').Sample} Sample */

// A request type's p99 is read over windows of at least WINDOW_REQUESTS
// requests (recorder/p99-windows.js): a second's p99 from fewer is its
// slowest few, which swing with the tail, and made changes of steady runs.
// A window's p99 stands at its first second; a record made before the
// windows has its seconds with as many requests. A type is segmented when
// it has twice the shortest segment's windows.
const MIN_WINDOWS = 2 * DEFAULTS.minSegment
// the schedule lag's p99 is segmented when at least half the seconds have one
const MIN_LAG_SHARE = 0.5

/** The series of what was done each second: 0 throughout a stall. */
export const RATES = new Set(['throughput', 'rows_per_s', 'points_per_s'])

/**
 * The indexes of the seconds at which the moments begin: for each moment,
 * the first second starting at it or after (within half a second).
 * @param {number[]} moments   seconds after the load began
 * @param {number[]} starts    each second's start, ascending
 * @returns {number[]}
 */
export function cutsAt(moments, starts) {
  return moments.map(m => starts.findIndex(start => start >= m - 0.5)).filter(i => i > 0)
}

/**
 * What the lab saw, in indexes of the seconds: from the first second
 * starting at its start or after (within half a second) to the same of its
 * end, null when it had not ended by the last second.
 * @param {import('./observations.js').Observation[]} observations
 * @param {number[]} starts    each second's start, ascending
 * @returns {import('./guided-changes.js').Span[]}
 */
export function observedSpans(observations, starts) {
  const indexAt = (/** @type {number} */ moment) => starts.findIndex(start => start >= moment - 0.5)
  return observations
    .map(o => ({ from: indexAt(o.from_s), to: o.to_s === null ? null : indexAt(o.to_s) }))
    .filter(span => span.from > 0)
    .map(span => ({ from: span.from, to: span.to === -1 ? null : span.to }))
}

/**
 * The per-second series worth segmenting, by metric name.
 * @param {Sample[]} samples
 * @returns {Map<string, Array<number | null>>}
 */
export function seriesOf(samples) {
  /** @type {Map<string, Array<number | null>>} */
  const series = new Map()
  if (samples.length === 0) return series
  series.set(
    'throughput',
    samples.map(s => (s.paused ? null : s.throughput))
  )
  const types = new Set(samples.flatMap(s => Object.keys(s.requests ?? {})))
  for (const type of types) {
    const values = p99Windows(samples, type)
    if (values.filter(v => v !== null).length >= MIN_WINDOWS) series.set(`p99_us:${type}`, values)
  }
  // ingest workloads: what was written, and how late a paced or open-loop request started
  // (an ingest workload writes points, or rows in batches: more rows than requests)
  if (samples.some(s => (s.points ?? 0) > 0 || (s.rows ?? 0) > s.throughput)) {
    series.set(
      'rows_per_s',
      samples.map(s => (s.paused ? null : (s.rows ?? null)))
    )
  }
  if (samples.some(s => (s.points ?? 0) > 0)) {
    series.set(
      'points_per_s',
      samples.map(s => (s.paused ? null : (s.points ?? null)))
    )
  }
  if (samples.filter(s => typeof s.lag?.p99_us === 'number').length >= MIN_LAG_SHARE * samples.length) {
    series.set(
      'schedule_lag_p99_us',
      samples.map(s => s.lag?.p99_us ?? null)
    )
  }
  return series
}

/**
 * A type's p99 over windows of at least WINDOW_REQUESTS requests, each at
 * its first second; null elsewhere.
 * @param {Sample[]} samples
 * @param {string} type
 * @returns {Array<number | null>}
 */
export function p99Windows(samples, type) {
  /** @type {Array<number | null>} */
  const values = samples.map(() => null)
  const windowed = samples.some(s => s.requests?.[type]?.window)
  samples.forEach((s, i) => {
    const r = s.requests?.[type]
    if (windowed && r?.window && i + 1 >= r.window.seconds) values[i + 1 - r.window.seconds] = r.window.p99_us
    else if (!windowed && r && r.done >= WINDOW_REQUESTS) values[i] = r.p99_us
  })
  return values
}
