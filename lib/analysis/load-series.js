import { DEFAULTS } from './change-point-input.js'
import { WINDOW_REQUESTS } from '../recorder/p99-windows.js'

// The per-second series of a recorded load that explain.js segments, and
// where what the lab saw falls among their seconds.

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/p99-windows.js').WindowFigures} WindowFigures */

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
  return moments.map(m => secondAt(m, starts)).filter(i => i > 0)
}

/**
 * The index of the first second starting at the moment or after (within
 * half a second); −1 when none does.
 * @param {number} moment @param {number[]} starts
 */
function secondAt(moment, starts) {
  return starts.findIndex(start => start >= moment - 0.5)
}

/**
 * What the lab saw, in indexes of the seconds: from the first second
 * starting at its start or after (within half a second) to the same of its
 * end, null when it had not ended by the last second.
 * @param {import('./observation.js').Observation[]} observations
 * @param {number[]} starts    each second's start, ascending
 * @returns {import('./guided-changes.js').Span[]}
 */
export function observedSpans(observations, starts) {
  return observations
    .map(o => ({
      from: secondAt(o.from_s, starts),
      to: o.to_s === null ? null : secondAt(o.to_s, starts),
      kind: o.kind
    }))
    .filter(span => span.from > 0)
    .map(span => ({ ...span, to: span.to === -1 ? null : span.to }))
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
    const values = p99Windows(samples, s => s.requests?.[type])
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
  const lag = lagSeries(samples)
  if (lag) series.set('schedule_lag_p99_us', lag)
  return series
}

/**
 * How late paced and open-loop requests started: the p99 over windows of
 * WINDOW_REQUESTS, or in a record made before the windows, each second's
 * when at least half the seconds have one. Null: not segmented.
 * @param {Sample[]} samples
 * @returns {Array<number | null> | null}
 */
function lagSeries(samples) {
  if (samples.some(s => s.lag?.window)) {
    const values = p99Windows(samples, s => s.lag ?? undefined)
    return values.filter(v => v !== null).length >= MIN_WINDOWS ? values : null
  }
  const seconds = samples.map(s => s.lag?.p99_us ?? null)
  return seconds.filter(v => v !== null).length >= MIN_LAG_SHARE * samples.length ? seconds : null
}

/**
 * A p99 over windows of at least WINDOW_REQUESTS requests, each at its
 * first second; null elsewhere. A record made before the windows: each
 * second's p99 with as many requests.
 * @param {Sample[]} samples
 * @param {(sample: Sample) => { p99_us?: number | null, done?: number, window?: WindowFigures } | undefined} figuresOf
 * @returns {Array<number | null>}
 */
export function p99Windows(samples, figuresOf) {
  /** @type {Array<number | null>} */
  const values = samples.map(() => null)
  const windowed = samples.some(s => figuresOf(s)?.window)
  samples.forEach((s, i) => {
    const figures = figuresOf(s)
    const window = figures?.window
    if (window && i + 1 >= window.seconds) values[i + 1 - window.seconds] = window.p99_us
    else if (!windowed && (figures?.done ?? 0) >= WINDOW_REQUESTS) values[i] = figures?.p99_us ?? null
  })
  return values
}
