// What the lab sees directly that holds up the load or the server, reported
// as a change of its own whether or not a series of the load moved beyond
// its noise: the xmin horizon held by a session or a prepared transaction
// outside the load, the load's sessions waiting for a lock someone else
// holds, a manual VACUUM running, the server's processes stopped, no
// request answered at all, clients losing their connections, requests
// failing, every connection slot of the server taken. Each condition is a
// per-second figure that is 0 when all is well; a condition is a run of
// seconds in which it is not (a second back at 0 does not end it), long
// enough to matter. Its start and, when it ended before the run did, its
// end are changes of the series `condition:NAME` (docs/causes.md).
import { levelOf } from './levels.js'
import { HOLDER_MIN_AGE_S, loadStartMs, outsideHolders, outsideWaiting, slotsTaken } from './observations.js'
import { failuresOf } from './lab-observers.js'
import { round } from '../helpers/numbers.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('./levels.js').Level} Level */

// a lock wait, a stopped server, lost connections or failures this long, or longer
export const CONDITION_MIN_S = 3
// seconds of the figure back at 0 that do not end a condition
const GAP_SAMPLES = 1
// the level before a condition's start (after its end) is taken over at most this many seconds
const SIDE_SAMPLES = 10

/**
 * @typedef {object} ConditionChange
 * @property {number} at_s
 * @property {string} metric    condition:NAME
 * @property {Level} before
 * @property {Level} after
 * @property {number | null} effect   null from a level of 0
 */

/**
 * @typedef {object} Condition
 * @property {string} name
 * @property {(s: Sample, previous: Sample | undefined) => number | null} figure   null: not seen in that second
 * @property {boolean} backdated   the figure is how long the condition has lasted: it began that long before
 * @property {number} leastS       the shortest condition that matters (for a backdated one, the largest figure)
 * @property {number} [burst]      figures adding up to this over a span matter however short it is
 */

/**
 * @param {Sample[]} samples
 * @returns {Condition[]}
 */
function conditionsOf(samples) {
  const failedIn = failuresOf(samples)
  const clients = Math.max(0, ...samples.map(s => s.concurrency ?? 0))
  const vacuumAges = manualVacuumAges(samples)
  return [
    {
      name: 'xmin_horizon',
      // how long the oldest transaction outside the load has held the horizon
      figure: s => (s.server?.horizon ? Math.max(0, ...outsideHolders(s).map(h => h.xact_age_s ?? 0)) : null),
      backdated: true,
      leastS: HOLDER_MIN_AGE_S
    },
    { name: 'lock_wait', figure: s => outsideWaiting(s), backdated: false, leastS: CONDITION_MIN_S },
    {
      // someone ran VACUUM on the server (an autovacuum is the server's own
      // work, all the time): how long the oldest one has run
      name: 'vacuum',
      figure: s => vacuumAges.get(s) ?? null,
      backdated: true,
      leastS: CONDITION_MIN_S
    },
    {
      name: 'server_stopped',
      figure: s => s.host?.server_stopped ?? null,
      backdated: false,
      leastS: CONDITION_MIN_S
    },
    {
      // no request done while clients wanted to run: a link gone dark, a
      // hung server, whatever the lab cannot see from its side
      name: 'stall',
      figure: s => (!s.paused && (s.concurrency ?? 1) > 0 && s.throughput === 0 ? 1 : 0),
      backdated: false,
      leastS: CONDITION_MIN_S
    },
    {
      name: 'reconnects',
      figure: (s, previous) => (previous ? (s.reconnects ?? 0) - (previous.reconnects ?? 0) : 0),
      backdated: false,
      leastS: CONDITION_MIN_S,
      // every client lost its connection at once (a restart, backends killed): over in a second or two,
      // and counted in two seconds when the reconnects straddle one's end
      ...(clients > 1 && { burst: clients })
    },
    { name: 'failures', figure: s => failedIn(s), backdated: false, leastS: CONDITION_MIN_S },
    // every connection slot taken, not by the load alone: a reconnect of the load's would be refused
    { name: 'connection_slots', figure: s => slotsTaken(s), backdated: false, leastS: CONDITION_MIN_S }
  ]
}

/**
 * How long the oldest manual VACUUM in the run's database each poll saw
 * had run (another database's, on a shared server, is not the run's
 * condition), 0 when none
 * ran, null for a sample with no poll: from its statement's start, or,
 * when the start is not known, from a second before the first poll that
 * saw its process vacuuming.
 * @param {Sample[]} samples
 * @returns {Map<Sample, number | null>}
 */
export function manualVacuumAges(samples) {
  /** @type {Map<Sample, number | null>} */
  const ages = new Map()
  /** @type {Map<string, number>} */
  const firstSeenS = new Map()
  for (const s of samples) {
    if (!s.server) {
      ages.set(s, null)
      continue
    }
    const polledS = Date.parse(s.server.polled_at ?? s.t) / 1000
    const running = (s.server.vacuums ?? []).filter(v => v.mode === 'manual' && v.here !== false)
    const keys = running.map(v => `${v.pid} ${v.table}`)
    for (const key of [...firstSeenS.keys()]) if (!keys.includes(key)) firstSeenS.delete(key)
    const each = running.map((v, i) => {
      const key = keys[i]
      if (!firstSeenS.has(key)) firstSeenS.set(key, polledS - 1)
      const from =
        typeof v.started_at === 'number' && v.started_at > 0
          ? v.started_at
          : /** @type {number} */ (firstSeenS.get(key))
      return Math.max(0.1, polledS - from)
    })
    ages.set(s, each.length > 0 ? Math.max(...each) : 0)
  }
  return ages
}

/**
 * The kind of observation (observations.js) a condition's series is seen as.
 * @param {string} metric   condition:NAME
 */
export function conditionCause(metric) {
  const name = metric.replace(/^condition:/, '')
  return name === 'xmin_horizon' ? 'xmin_holder' : name
}

/**
 * The conditions' starts and ends in a recorded load, in order of time.
 * @param {Sample[]} samples
 * @param {number} skipFirst   samples at the start (connecting, warm-up): a condition already there then is no change
 * @returns {ConditionChange[]}
 */
export function conditionChanges(samples, skipFirst) {
  if (samples.length === 0) return []
  const t0 = loadStartMs(samples)
  const at = (/** @type {Sample} */ s) => round((Date.parse(s.t) - t0) / 1000, 1)
  // a figure of the server's is as old as its poll, which came before the sample
  const polledAt = (/** @type {Sample} */ s) => round((Date.parse(s.server?.polled_at ?? s.t) - t0) / 1000, 1)
  /** @type {ConditionChange[]} */
  const out = []
  for (const condition of conditionsOf(samples)) {
    const figures = samples.map((s, i) => condition.figure(s, samples[i - 1]))
    for (const span of spansOf(figures)) {
      if (span.first < skipFirst) continue
      const fromS = condition.backdated
        ? round(polledAt(samples[span.first]) - /** @type {number} */ (figures[span.first]), 1)
        : round(at(samples[span.first]) - 1, 1)
      const toS = at(samples[span.last])
      const lasted = condition.backdated ? span.most : toS - fromS
      if (lasted < condition.leastS && span.total < (condition.burst ?? Infinity)) continue
      const metric = `condition:${condition.name}`
      const during = levelOver(figures, span.first, span.last + 1)
      out.push(change(fromS, metric, levelOver(figures, span.first - SIDE_SAMPLES, span.first), during))
      // a burst shorter than a condition: a moment, with no end of its own
      if (span.last < samples.length - 1 && lasted >= condition.leastS) {
        out.push(change(toS, metric, during, levelOver(figures, span.last + 1, span.last + 1 + SIDE_SAMPLES)))
      }
    }
  }
  return out.sort((a, b) => a.at_s - b.at_s)
}

/**
 * Runs of figures above 0, through gaps of up to GAP_SAMPLES at 0 (a
 * second not seen neither starts nor ends one): where, the largest figure
 * and their sum.
 * @param {Array<number | null>} figures
 * @returns {Array<{ first: number, last: number, most: number, total: number }>}
 */
export function spansOf(figures) {
  /** @type {Array<{ first: number, last: number, most: number, total: number }>} */
  const spans = []
  /** @type {{ first: number, last: number, most: number, total: number } | null} */
  let span = null
  figures.forEach((v, i) => {
    if (v === null) return
    if (v > 0) {
      span ??= { first: i, last: i, most: v, total: 0 }
      span.last = i
      span.most = Math.max(span.most, v)
      span.total += v
    } else if (span && i - span.last > GAP_SAMPLES) {
      spans.push(span)
      span = null
    }
  })
  if (span) spans.push(span)
  return spans
}

/**
 * The level of the figures seen in [from, to).
 * @param {Array<number | null>} figures @param {number} from @param {number} to
 */
function levelOver(figures, from, to) {
  const seen = figures.slice(Math.max(0, from), Math.max(0, to)).filter(v => v !== null)
  return levelOf(/** @type {number[]} */ (seen))
}

/**
 * @param {number} at @param {string} metric @param {Level} before @param {Level} after
 * @returns {ConditionChange}
 */
function change(at, metric, before, after) {
  const level = (/** @type {Level} */ l) => ({
    median: round(l.median || 0, 1),
    low: round(l.low || 0, 1),
    high: round(l.high || 0, 1),
    n: l.n
  })
  return {
    at_s: at,
    metric,
    before: level(before),
    after: level(after),
    effect: before.median > 0 ? Math.round(((after.median - before.median) / before.median) * 1000) / 1000 : null
  }
}
