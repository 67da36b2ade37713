import { present, checkOptions } from './change-point-input.js'
import { domainOf } from './change-points.js'
import { effectOf, levelOf } from './levels.js'
import { normalTail, prewhiten, shiftZ } from './change-scan.js'
import { noiseOf } from './series-noise.js'

// A series tested where the lab saw something begin or end. The scan of
// change-points.js looks for a change at every second and pays for it: a
// fall by a fifth in a noise of a third, as another process taking the CPU
// makes on a loaded machine, is not told from the noise there. The lab sees
// such moments itself (from /proc, the server's views, its own events;
// nothing read from the series), so each edge it saw is tested once, in
// time order: the shift's z of change-scan.js at that second, in a window of
// at most GUIDED_SPAN points each side, reaching back to the last change
// (the scan's, or an edge already found one) and on to the next change the
// scan found or the end of the stretch that began there (another moment
// seen need not move the level: a checkpoint requested every second would
// leave no window), the noise fitted around the levels the step would
// leave. An edge is a change
// when its step is significant after Bonferroni over the edges tested and
// its two sides differ by minEffect. Nothing within minSegment points of a
// change the scan found is tested again. (A stretch tested as a whole
// against its surroundings, as the oracle does, found fewer: that needs the
// long-run variance, which a ρ estimated from 120 points over-states.)

/** @typedef {import('./change-points.js').ChangePoint} ChangePoint */
/** @typedef {import('./levels.js').Level} Level */
/** @typedef {{ from: number, to: number, level: Level }} Segment */

/** The points each side of a moment that its test compares, at most. */
export const GUIDED_SPAN = 60
/** Moments of one kind closer than this (points) to the one before are a burst, tested once. */
const BURST_GAP = 10

/**
 * What the lab saw, in indexes of the series.
 * @typedef {object} Span
 * @property {number} from
 * @property {number | null} to    its end; null for a moment, or when it had not ended
 * @property {string} kind          the observation's kind (observations.js)
 */

/**
 * The scan's changes and segments with those found where the lab saw
 * something added.
 * @param {ArrayLike<number | null>} values      one per second
 * @param {Span[]} spans
 * @param {{ changes: ChangePoint[], segments: Segment[] }} found   the scan's
 * @param {import('./change-point-input.js').ChangePointOptions} options
 * @returns {{ changes: ChangePoint[], segments: Segment[] }}
 */
export function withGuidedChanges(values, spans, found, options) {
  const opts = checkOptions(options)
  const { x, positions } = present(values)
  if (x.length < 2 * opts.minSegment) return found
  const changed = found.changes.map(c => pointOf(positions, c.index))
  const tests = edgesOf(spans, positions).filter(t => changed.every(e => Math.abs(e - t.at) >= opts.minSegment))
  if (tests.length === 0) return found
  const guided = testedChanges(x, [0, ...changed, x.length], tests, opts).map(({ at, ...change }) => ({
    ...change,
    index: positions[at]
  }))
  if (guided.length === 0) return found
  return {
    changes: [...found.changes, ...guided].sort((a, b) => a.index - b.index),
    segments: splitSegments(found.segments, guided, x, positions)
  }
}

/**
 * The edges to test, in points, ascending: where each stretch began (with
 * its end, the farthest its window reaches) and where it ended, and each
 * moment that is not a burst's next. One test a point: the shortest reach
 * kept. The spans come in order of their start.
 * @param {Span[]} spans
 * @param {Int32Array} positions
 * @returns {Array<{ at: number, end: number }>}
 */
function edgesOf(spans, positions) {
  /** @type {Map<number, number>} */
  const reach = new Map()
  const add = (/** @type {number} */ at, /** @type {number} */ end) => {
    if (at > 0 && at < positions.length) reach.set(at, Math.min(end, reach.get(at) ?? Infinity))
  }
  /** @type {Map<string, number>} */
  const lastMoment = new Map()
  for (const span of spans) {
    const from = pointOf(positions, span.from)
    if (span.to === null) {
      // a burst of moments of one kind (a checkpoint every second) is one edge, at its first
      const last = lastMoment.get(span.kind)
      lastMoment.set(span.kind, from)
      if (last === undefined || from - last >= BURST_GAP) add(from, Infinity)
      continue
    }
    const end = pointOf(positions, span.to)
    add(from, end)
    add(end, Infinity)
  }
  return [...reach].map(([at, end]) => ({ at, end })).sort((a, b) => a.at - b.at)
}

/**
 * The changes at the edges whose step is significant, after Bonferroni
 * over the edges tested, and whose effect is at least minEffect.
 * @param {Float64Array} x
 * @param {number[]} edges      the scan's segment edges, points
 * @param {Array<{ at: number, end: number }>} tests   the edges to test (none beside a scanned change), ascending
 * @param {Required<import('./change-point-input.js').ChangePointOptions>} opts
 * @returns {Array<Omit<ChangePoint, 'index'> & { at: number }>}
 */
function testedChanges(x, edges, tests, opts) {
  const z = domainOf(x, opts.minSegment)
  /** @type {Array<Omit<ChangePoint, 'index'> & { at: number }>} */
  const accepted = []
  for (const { at, end } of tests) {
    // back to the last change, scanned or found here; on to the next scanned one, or the end of what began here
    const last = Math.max(...edges.filter(e => e < at), ...accepted.map(a => a.at))
    const next = Math.min(...edges.filter(e => e > at), end)
    const from = Math.max(last, at - GUIDED_SPAN)
    const to = Math.min(next, at + GUIDED_SPAN)
    if (at - from < opts.minSegment || to - at < opts.minSegment) continue
    // the noise around the levels the step would leave, as the scan's refit fits it: a level
    // for every edge tested would add each one's small-sample shortfall to ρ
    const bounds = [...new Set([...edges, ...accepted.map(a => a.at), at, to])].sort((a, b) => a - b)
    const { rho, scale } = noiseOf(z, bounds)
    const shift = shiftZ(prewhiten(z, rho, scale), from, to, at)
    const pValue = Math.min(1, 2 * normalTail(Math.abs(shift)) * tests.length)
    const before = levelOf(x, from, at)
    const after = levelOf(x, at, to)
    const effect = effectOf(before, after, opts.floor)
    if (pValue < opts.alpha && Math.abs(effect) >= opts.minEffect) accepted.push({ at, before, after, effect, pValue })
  }
  return accepted
}

/**
 * @param {Int32Array} positions
 * @param {number} index   of values
 */
function pointOf(positions, index) {
  const p = positions.findIndex(position => position >= index)
  return p === -1 ? positions.length : p
}

/**
 * The scan's segments cut at the guided changes, each piece's level its own.
 * @param {Segment[]} segments
 * @param {Array<{ index: number }>} guided
 * @param {Float64Array} x
 * @param {Int32Array} positions
 * @returns {Segment[]}
 */
function splitSegments(segments, guided, x, positions) {
  const cuts = [...segments.slice(1).map(s => s.from), ...guided.map(g => g.index)].sort((a, b) => a - b)
  const bounds = [0, ...cuts, segments[segments.length - 1].to]
  return bounds.slice(1).map((to, i) => {
    const from = bounds[i]
    return { from, to, level: levelOf(x, pointOf(positions, from), pointOf(positions, to)) }
  })
}
