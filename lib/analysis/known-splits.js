import { findChangePoints } from './change-points.js'
import { effectOf } from './levels.js'
import { checkOptions } from './change-point-input.js'

// A series cut where the lab knows it changed, and segmented between the
// cuts. When no request was done for seconds on end (a stall: a lock every
// client waits for, a link gone dark, a hung server), the rate was 0 then
// by observation, not by inference: a scan for a shift in AR(1) noise sees
// such a hole as two shifts that each spoil the other side's level and
// inflate the fitted autocorrelation, and on a loaded machine it could miss
// a rate that fell to 0 for eleven seconds. So the stall's seconds are a
// segment of their own, each side is segmented as usual, and a cut whose
// two sides differ by minEffect is a change (with p-value 0: it was seen).

/** @typedef {import('./change-points.js').ChangePoint} ChangePoint */
/** @typedef {import('./levels.js').Level} Level */

/**
 * @param {ArrayLike<number | null>} values   one per second
 * @param {number[]} cuts                      indexes of values where a known stretch begins or ends
 * @param {import('./change-point-input.js').ChangePointOptions} options
 * @returns {{ changes: ChangePoint[], segments: Array<{ from: number, to: number, level: Level }> }}
 */
export function changePointsWithCuts(values, cuts, options) {
  const opts = checkOptions(options)
  const inside = [...new Set(cuts)].filter(i => i > 0 && i < values.length).sort((a, b) => a - b)
  if (inside.length === 0) return findChangePoints(values, opts)
  const bounds = [0, ...inside, values.length]
  /** @type {Array<{ from: number, to: number, level: Level }>} */
  const segments = []
  /** @type {ChangePoint[]} */
  const changes = []
  for (let k = 0; k + 1 < bounds.length; k++) {
    const from = bounds[k]
    const found = findChangePoints(Array.prototype.slice.call(values, from, bounds[k + 1]), opts)
    const pieceSegments = found.segments.filter(s => s.level.n > 0)
    if (pieceSegments.length === 0) continue
    const previous = segments[segments.length - 1]
    const first = pieceSegments[0]
    if (previous) {
      const effect = effectOf(previous.level, first.level, opts.floor)
      if (Math.abs(effect) >= opts.minEffect) {
        changes.push({ index: from + first.from, before: previous.level, after: first.level, effect, pValue: 0 })
      }
    }
    segments.push(...pieceSegments.map(s => ({ from: from + s.from, to: from + s.to, level: s.level })))
    changes.push(...found.changes.map(c => ({ ...c, index: from + c.index })))
  }
  return { changes: changes.sort((a, b) => a.index - b.index), segments: joinedSegments(segments, values.length) }
}

/**
 * The segments made to cover [0, length) without gaps: a piece with no
 * value at all has no segment, and the segment before it reaches over it.
 * @param {Array<{ from: number, to: number, level: Level }>} segments
 * @param {number} length
 */
function joinedSegments(segments, length) {
  return segments.map((s, i) => ({
    from: i === 0 ? 0 : s.from,
    to: i + 1 < segments.length ? segments[i + 1].from : length,
    level: s.level
  }))
}
