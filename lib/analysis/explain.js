// When a recorded load changed, and what the lab saw at that moment: the
// per-second series of the samples are segmented (change-points.js), and
// each change is matched against the timeline of observations.js. A cause
// is named only when its timing fits; where none does, the change says so
// rather than guess.
import { findChangePoints } from './change-points.js'
import { observe } from './observations.js'
import { conditionCause, conditionChanges } from './hold-ups.js'
import { changePointsWithCuts } from './known-splits.js'
import { withGuidedChanges } from './guided-changes.js'
import { round } from '../helpers/numbers.js'
import { RATES, seriesOf, observedSpans, cutsAt } from './load-series.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/records.js').LabEvent} LabEvent */

/**
 * @typedef {object} ChangeLevel
 * @property {number} median
 * @property {number} low     95 % interval of the median
 * @property {number} high
 * @property {number} n       seconds in the segment
 */

/**
 * @typedef {object} Cause
 * @property {string} kind       what observations.js calls it (vacuum, checkpoint, xmin_holder, lock_wait, …)
 * @property {string} label
 * @property {number} at_s       when it began (or happened)
 * @property {number | null} [until_s]
 */

/**
 * @typedef {object} Change
 * @property {number} at_s       seconds after the load began
 * @property {string} metric     throughput, p99_us:TYPE, rows_per_s, points_per_s, schedule_lag_p99_us, or a
 *   condition the lab saw directly (conditions.js): condition:xmin_horizon, condition:lock_wait,
 *   condition:vacuum, condition:server_stopped, condition:stall, condition:reconnects, condition:failures
 * @property {ChangeLevel} before
 * @property {ChangeLevel} after
 * @property {number | null} effect   relative: (after − before) / before; null from a level of 0
 * @property {Cause[]} causes    [] when nothing the lab saw fits: "no cause seen"
 */

/**
 * @typedef {object} Segment
 * @property {number} from_s
 * @property {number} to_s
 * @property {ChangeLevel} level
 */

// The first seconds (clients connecting, or the whole --warmup, whose
// samples are marked) and the last one (cut short by the end) are left out
// of the series.
const SKIP_FIRST = 2
const SKIP_LAST = 1
// The smallest move worth a change, relative to the level before: rates
// swing by a tenth on a shared machine, a second's p99 by much more.
export const MIN_EFFECT = /** @type {Record<string, number>} */ ({
  throughput: 0.2,
  rows_per_s: 0.2,
  points_per_s: 0.2,
  p99_us: 0.4,
  schedule_lag_p99_us: 0.4
})
// At most this many changes in a summary, the largest effects first: 20,
// or one for every CHANGE_EVERY_S seconds of a longer load (a day of faults
// has more than 20, and each must be there).
const MAX_CHANGES = 20
const CHANGE_EVERY_S = 30

/**
 * The seconds the samples span.
 * @param {Sample[]} used
 */
function loadSeconds(used) {
  return used.length === 0 ? 0 : (used[used.length - 1].elapsed_s ?? 0) - (used[0].elapsed_s ?? 0) + 1
}

/**
 * What changed in a recorded load and why.
 * @param {{ samples: Sample[], events: LabEvent[], logText?: string | null, statsIntervalS?: number }} run
 * @returns {{ changes: Change[], segments: Record<string, Segment[]>, method: Record<string, unknown> }}
 */
export function explainRun({ samples, events, logText = null, statsIntervalS = 1 }) {
  const skipFirst = Math.max(SKIP_FIRST, samples.filter(s => s.warmup === true).length)
  const used = samples.slice(skipFirst, Math.max(skipFirst, samples.length - SKIP_LAST))
  const observations = observe({ samples, events, logText })
  // a change is located to within a few seconds; what the lab saw is
  // sampled at each poll: both widen the window a cause must fall in
  const window = { before: Math.max(5, 2 * statsIntervalS), after: Math.max(3, statsIntervalS + 1) }
  /** @type {Change[]} */
  const changes = []
  /** @type {Record<string, Segment[]>} */
  const segments = {}
  // each sample describes the second that ends at its elapsed_s
  const secondStart = (/** @type {number} */ index) => round((used[index]?.elapsed_s ?? index + skipFirst + 1) - 1, 1)
  const conditions = conditionChanges(samples, skipFirst)
  const starts = used.map((_, i) => secondStart(i))
  const spans = observedSpans(observations, starts)
  const stallCuts = cutsAt(
    conditions.filter(c => c.metric === 'condition:stall').map(c => c.at_s),
    starts
  )
  for (const [metric, values] of seriesOf(used)) {
    const options = { minEffect: MIN_EFFECT[metric.startsWith('p99_us:') ? 'p99_us' : metric] ?? 0.2 }
    // a rate was 0 while no request was done: seen, not inferred (known-splits.js)
    const scanned = RATES.has(metric)
      ? changePointsWithCuts(values, stallCuts, options)
      : findChangePoints(values, options)
    // and tested where the lab saw something begin or end (guided-changes.js)
    const found = withGuidedChanges(values, spans, scanned, options)
    segments[metric] = found.segments.map(s => ({
      from_s: secondStart(s.from),
      to_s: s.to >= used.length ? round(used[used.length - 1]?.elapsed_s ?? s.to, 1) : secondStart(s.to),
      level: level(s.level)
    }))
    const own = found.changes.map(change => {
      const at = secondStart(change.index)
      // from a level of 0 a ratio means nothing
      const effect = change.before.median === 0 ? null : round(change.effect, 3)
      const causes = causesAt(at, observations, window)
      return { at_s: at, metric, before: level(change.before), after: level(change.after), effect, causes }
    })
    changes.push(...wentOn(own))
  }
  // what the lab saw directly, whether or not the load's series moved
  for (const change of conditions) {
    // the condition itself, and what strikes every client at once (a
    // restart, a stopped server): nothing else makes a condition
    const kind = conditionCause(change.metric)
    const fitting = observations.filter(o => o.kind === kind || TIER[o.kind] === 0)
    changes.push({ ...change, causes: causesAt(change.at_s, fitting, window) })
  }
  const kept = changes
    .sort((a, b) => Math.abs(b.effect ?? Infinity) - Math.abs(a.effect ?? Infinity))
    .slice(0, Math.max(MAX_CHANGES, Math.ceil(loadSeconds(used) / CHANGE_EVERY_S)))
    .sort((a, b) => a.at_s - b.at_s || a.metric.localeCompare(b.metric))
  return {
    changes: kept,
    segments,
    method: {
      test: 'binary segmentation (a likelihood-ratio scan for a shift of the mean in AR(1) noise) and a MOSUM scan; docs/change-points.md',
      conditions:
        'what the lab saw directly (xmin horizon held, lock waits, a manual VACUUM, server stopped, no request answered, reconnects, failures), lasting at least a few seconds, or every client reconnecting at once; docs/causes.md',
      causes: 'docs/causes.md',
      min_effect: MIN_EFFECT,
      min_segment_s: 10,
      skipped_first_s: skipFirst,
      cause_window_s: [-window.before, window.after]
    }
  }
}

/**
 * A series' changes, those with no cause of their own that carry on the
 * one before (the same way, within GONE_ON_S seconds, that one named)
 * given its causes: a load whose latency settles for longer than the
 * shortest segment after other processes left moves in two steps, and the
 * second is the first one going on, not a change of unknown cause.
 * @param {Change[]} own   one series', in time order
 * @returns {Change[]}
 */
function wentOn(own) {
  return own.map((change, i) => {
    const before = own[i - 1]
    const sameWay = before && Math.sign(before.effect ?? 0) === Math.sign(change.effect ?? 0)
    if (change.causes.length > 0 || !sameWay || before.causes.length === 0 || change.at_s - before.at_s > GONE_ON_S)
      return change
    const causes = before.causes.map(c => ({ ...c, label: `${c.label} (the change at ${before.at_s} s went on)` }))
    return { ...change, causes }
  })
}

/** Twice the shortest segment: a second step this close to a first one the same way is that one going on. */
const GONE_ON_S = 20

/**
 * What the lab saw whose timing fits a change at `at`: something that
 * began, ended or changed phase in the window around it, or an xmin holder
 * or lock wait that was there. Nearest first, at most five.
 * @param {number} at
 * @param {import('./observation.js').Observation[]} observations
 * @param {{ before: number, after: number }} window
 * @returns {Cause[]}
 */
export function causesAt(at, observations, window) {
  /** @type {Array<{ cause: Cause, distance: number }>} */
  const fits = []
  for (const o of observations) {
    const near = o.from_s >= at - window.before && o.from_s <= at + window.after
    const endsNear = o.to_s !== null && o.to_s >= at - window.before && o.to_s <= at + window.after
    // a holder, a wait, a stopped server or a strained machine that had
    // been there a while: a change is found up to a few seconds late
    const spans = SPANNING.has(o.kind) && o.from_s <= at && (o.to_s === null || o.to_s >= at - window.before)
    if (!near && !endsNear && !spans) continue
    const distance = near
      ? Math.abs(o.from_s - at)
      : endsNear
        ? Math.abs(/** @type {number} */ (o.to_s) - at)
        : window.before + (at - o.from_s) / 1000
    const label = endsNear && !near ? `${o.label} ended` : o.label
    fits.push({
      cause: {
        kind: o.kind,
        label,
        at_s: endsNear && !near ? /** @type {number} */ (o.to_s) : o.from_s,
        ...(o.to_s !== null && { until_s: o.to_s })
      },
      distance
    })
  }
  // what acts at once before what builds up; then nearest first; within a
  // second of each other, the likelier kind first
  return fits
    .sort(
      (a, b) =>
        tierOf(a.cause) - tierOf(b.cause) ||
        (Math.abs(a.distance - b.distance) > 1 ? a.distance - b.distance : 0) ||
        kindRank(a.cause.kind) - kindRank(b.cause.kind) ||
        a.distance - b.distance
    )
    .slice(0, 5)
    .map(f => f.cause)
}

const SPANNING = new Set([
  'xmin_holder',
  'lock_wait',
  'host',
  'cpu_contention',
  'server_stopped',
  'stall',
  'connection_slots'
])

// What acts at once on every client first; what builds up slowly last.
const KIND_ORDER = [
  'server_stopped',
  'lock_wait',
  'disk_full',
  'reconnects',
  'failures',
  'action',
  'pause',
  'concurrency',
  'stall',
  'connection_slots',
  'cpu_contention',
  'vacuum',
  'vacuum_phase',
  'checkpoint',
  'xmin_holder',
  'host'
]

// Tiers, first to last: what stops or strikes every client at once and is
// seen directly; what someone did to the server or the machine (a manual
// VACUUM, a session or prepared transaction holding the horizon, another
// process's CPU, a silence); what the server does by itself all the time
// (autovacuum, checkpoints) and the machine's I/O wait, which are named
// when nothing else fits (docs/causes.md).
const TIER = /** @type {Record<string, number>} */ ({
  server_stopped: 0,
  lock_wait: 0,
  disk_full: 0,
  reconnects: 0,
  failures: 0,
  action: 0,
  pause: 0,
  concurrency: 0,
  stall: 1,
  connection_slots: 1,
  cpu_contention: 1,
  xmin_holder: 1
})

// The machine's I/O wait is what someone's I/O does: a checkpoint or a
// vacuum of the server that fits the change is named before it, however
// near the wait's rise came (a burst of checkpoints on a slow disk raised
// the wait a second before the checkpoint counters moved, and was named
// after the wait).
const LAST_TIER = 3

/** @param {Cause} cause */
function tierOf(cause) {
  if (cause.kind === 'vacuum' && cause.label.startsWith('VACUUM ')) return 1
  if (cause.kind === 'host') return LAST_TIER
  return TIER[cause.kind] ?? 2
}

/** @param {string} kind */
function kindRank(kind) {
  const i = KIND_ORDER.indexOf(kind)
  return i === -1 ? KIND_ORDER.length : i
}

/**
 * Changes close in time, as one line each for the end table and the
 * report: throughput and p99 move together when one thing happens.
 * @param {Change[]} changes
 * @param {number} [withinS]
 * @returns {Array<{ at_s: number, changes: Change[], causes: Cause[] }>}
 */
export function groupChanges(changes, withinS = 3) {
  /** @type {Array<{ at_s: number, changes: Change[], causes: Cause[] }>} */
  const groups = []
  for (const change of [...changes].sort((a, b) => a.at_s - b.at_s)) {
    const last = groups[groups.length - 1]
    if (last && change.at_s - last.at_s <= withinS) {
      last.changes.push(change)
      for (const cause of change.causes) if (!last.causes.some(c => c.label === cause.label)) last.causes.push(cause)
    } else {
      groups.push({ at_s: change.at_s, changes: [change], causes: [...change.causes] })
    }
  }
  return groups
}

/**
 * @param {{ median: number, low: number, high: number, n: number }} l
 * @returns {ChangeLevel}
 */
function level(l) {
  return { median: round(l.median, 1), low: round(l.low, 1), high: round(l.high, 1), n: l.n }
}
