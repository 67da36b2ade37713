// The chaos soak's faults, drawn from a seed: one every gap (1 to 3
// minutes by default), each of a kind drawn uniformly from the kinds
// given, at a whole second of the load. The same seed and length give the
// same schedule, so that a failing soak can be run again as it was.
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'

/** Every kind of fault, in the order the tables list them (faults.js does each). */
export const FAULT_KINDS = /** @type {const} */ ([
  'restart_fast',
  'restart_immediate',
  'terminate_backends',
  'kill_backend',
  'blackhole',
  'sigstop',
  'wal_full',
  'slow_statements',
  'connection_burst'
])

/** @typedef {typeof FAULT_KINDS[number]} FaultKind */

/**
 * @typedef {object} PlannedFault
 * @property {number} at_s      seconds after the load began
 * @property {FaultKind} kind
 * @property {number} hold_s    how long it lasts where it has a length (the WAL's full dataset: 10 to 20 s)
 */

/**
 * @typedef {object} ScheduleOptions
 * @property {number} seed
 * @property {number} lengthS                 the load's length
 * @property {[number, number]} [gapS]        seconds between two faults' starts (default 60 to 180)
 * @property {readonly FaultKind[]} [kinds]   the kinds to draw from (default all)
 * @property {boolean} [distinct]             no kind twice while some are left (a short soak)
 * @property {number} [quietEndS]             no fault starts this close to the end (default the longest gap's half)
 */

/**
 * The faults of one soak, in order.
 * @param {ScheduleOptions} options
 * @returns {PlannedFault[]}
 */
export function drawSchedule({ seed, lengthS, gapS = [60, 180], kinds = FAULT_KINDS, distinct = false, quietEndS }) {
  const random = mulberry32(seed)
  const last = lengthS - (quietEndS ?? gapS[1] / 2)
  /** @type {PlannedFault[]} */
  const faults = []
  /** @type {FaultKind[]} */
  let left = [...kinds]
  for (let at = drawGap(random, gapS); at <= last; at += drawGap(random, gapS)) {
    if (left.length === 0) left = [...kinds]
    const index = Math.floor(random() * left.length)
    const kind = left[index]
    if (distinct) left.splice(index, 1)
    faults.push({ at_s: at, kind, hold_s: kind === 'wal_full' ? 10 + Math.floor(random() * 11) : 10 })
  }
  return faults
}

/**
 * @param {() => number} random
 * @param {[number, number]} gapS
 */
function drawGap(random, gapS) {
  return gapS[0] + Math.floor(random() * (gapS[1] - gapS[0] + 1))
}
