import { climbStart, lagSlope, meanRate, MIN_SMOOTHING_S, peakWindow, series, smoothed } from './capacity-line.js'
import { roundOrNull } from '../helpers/numbers.js'

// The capacity of a paced ingest (a fleet of agents, each writing once per
// interval): the points a second the server delivered just before it
// stopped keeping up, found in a run's per-second samples as its clients
// ramp up (the workload's ramp, or a plan's concurrency steps). How each
// figure is found is CAPACITY_METHOD, written into the experiment's
// summary.json and shown on the page with the figures (capacity-section.js);
// the line it is found on, and the arithmetic along it, are capacity-line.js.

export const CAPACITY_METHOD = {
  lag: 'per second, the p99 of how late paced requests ended, from when they were due (their latency); of how late they started when the samples carry it',
  bound: 'the pacing interval: a request ending later than one interval after it was due delays the next',
  smoothed_lag: 'median of the lag over a trailing window of one interval (at least 3 s)',
  knee: 'where the climb of the last excursion of the smoothed lag above the bound (lasting to the end) began: back from where it crossed the bound, the first second of the climb above the level before it (median + 3 × 1.4826 × MAD, at least 5 % of the way to the bound)',
  unbounded:
    'that excursion lasted at least 2 intervals (at least 10 s) and the lag rose from the knee to the end (least-squares slope above 0)',
  capacity:
    'mean points (else rows) per second delivered in the window ending at the knee, 2 intervals long (at least 5 s)',
  peak: 'highest mean over such a window during the load',
  after_knee: 'mean delivered from the knee to the end of the load'
}

// The window the rates are averaged over: long enough for every client to
// have written in it, short enough not to reach far back into a ramp.
const MIN_WINDOW_S = 5
// How long the lag must have stayed above the bound to be growing for good.
const MIN_EXCURSION_S = 10

/**
 * @typedef {object} CapacityStats   what the samples showed around the knee
 * @property {number | null} dead_tuples          of the workload's table, at the knee
 * @property {boolean} vacuum_running             a vacuum of the table in the window around the knee
 * @property {number | null} generator_cpu_pct    the generator's CPU, mean over the window before the knee
 * @property {Record<string, { before: number | null, at_knee: number | null, at_end: number | null }>} workload
 *   the workload's own statistics at the start of the window, at the knee and at the end
 */

/**
 * @typedef {object} RunCapacity
 * @property {'knee' | 'kept_up' | 'overloaded_throughout' | 'inconclusive' | 'no_lag'} verdict
 * @property {'points' | 'rows'} unit
 * @property {'start' | 'end'} lag_kind         which lag the samples gave
 * @property {number} bound_us
 * @property {number} window_s
 * @property {number | null} capacity_per_s     delivered in the window before the knee
 * @property {number | null} knee_s             seconds from the run's t0
 * @property {number | null} clients_at_knee
 * @property {number | null} lag_at_knee_us     smoothed
 * @property {number | null} lag_at_end_us      smoothed
 * @property {number | null} lag_growth         seconds of lag gained per second after the knee
 * @property {number | null} peak_per_s
 * @property {number | null} after_knee_per_s
 * @property {number | null} max_clients
 * @property {CapacityStats | null} stats
 */

/**
 * The capacity of one run, or null when it is not a paced run that
 * delivered points or rows.
 * @param {import('../results/read.js').RunData} run
 * @returns {RunCapacity | null}
 */
export function runCapacity(run) {
  const intervalS = Number(run.summary?.pacing_interval_s)
  const mode = run.summary?.mode ?? run.info.mode
  if (mode !== 'paced' || !(intervalS > 0)) return null
  /** @type {'points' | 'rows' | null} */
  const unit = run.samples.some(s => Number(s.points) > 0)
    ? 'points'
    : run.samples.some(s => Number(s.rows) > 0)
      ? 'rows'
      : null
  if (unit === null) return null
  const line = series(run, unit)
  if (line.length === 0) return null
  const boundUs = intervalS * 1e6
  const windowS = Math.max(MIN_WINDOW_S, 2 * intervalS)
  const smooth = smoothed(line, Math.max(MIN_SMOOTHING_S, intervalS))
  const lagKind = run.samples.some(s => typeof s.lag?.p99_us === 'number') ? 'start' : 'end'
  const base = {
    unit,
    lag_kind: /** @type {'start' | 'end'} */ (lagKind),
    bound_us: boundUs,
    window_s: windowS,
    peak_per_s: roundOrNull(peakWindow(line, windowS), 1),
    max_clients: maxOf(line.map(p => p.clients))
  }
  const empty = {
    capacity_per_s: null,
    knee_s: null,
    clients_at_knee: null,
    lag_at_knee_us: null,
    lag_at_end_us: null,
    lag_growth: null,
    after_knee_per_s: null,
    stats: null
  }
  const known = smooth.flatMap((v, i) => (v === null ? [] : [i]))
  if (known.length === 0) return { verdict: 'no_lag', ...base, ...empty }
  const last = known[known.length - 1]
  const endLag = roundOrNull(smooth[last], 1)
  if (/** @type {number} */ (smooth[last]) <= boundUs)
    return { verdict: 'kept_up', ...base, ...empty, lag_at_end_us: endLag }
  const within = known.filter(i => /** @type {number} */ (smooth[i]) <= boundUs)
  if (within.length === 0) {
    return {
      verdict: 'overloaded_throughout',
      ...base,
      ...empty,
      lag_at_end_us: endLag,
      after_knee_per_s: roundOrNull(meanRate(line, line[0].x - 1, line[line.length - 1].x), 1)
    }
  }
  const lastWithin = within[within.length - 1]
  const crossing = known.find(i => i > lastWithin) ?? last
  // An earlier excursion above the bound, recovered from, is not this one.
  const earlier = known.filter(i => i < lastWithin && /** @type {number} */ (smooth[i]) > boundUs)
  const from = earlier.length ? earlier[earlier.length - 1] + 1 : 0
  const knee = climbStart(line, from, crossing, boundUs)
  const slope = lagSlope(line, knee, line.length - 1)
  const excursionS = line[last].x - line[lastWithin].x
  const grew = slope !== null && slope > 0 && excursionS >= Math.max(MIN_EXCURSION_S, 2 * intervalS)
  const kneeX = line[knee].x
  return {
    verdict: grew ? 'knee' : 'inconclusive',
    ...base,
    capacity_per_s: roundOrNull(meanRate(line, kneeX - windowS, kneeX), 1),
    knee_s: roundOrNull(kneeX, 1),
    clients_at_knee: line[knee].clients,
    lag_at_knee_us: roundOrNull(smooth[knee] ?? line[knee].lag, 1),
    lag_at_end_us: endLag,
    lag_growth: slope === null ? null : roundOrNull(slope / 1e6, 3),
    after_knee_per_s: roundOrNull(meanRate(line, kneeX, line[line.length - 1].x), 1),
    stats: statsAround(line, knee, windowS)
  }
}

/** @typedef {import('./capacity-line.js').LinePoint} LinePoint */

/**
 * @param {LinePoint[]} line
 * @param {number} knee   index
 * @param {number} windowS
 * @returns {CapacityStats}
 */
function statsAround(line, knee, windowS) {
  const kneeX = line[knee].x
  const before = line.filter(p => p.x > kneeX - windowS && p.x <= kneeX)
  const start = before[0] ?? line[knee]
  const end = line[line.length - 1]
  /** @type {CapacityStats['workload']} */
  const workload = {}
  for (const name of Object.keys({ ...start.workload, ...line[knee].workload, ...end.workload })) {
    workload[name] = {
      before: start.workload[name] ?? null,
      at_knee: line[knee].workload[name] ?? null,
      at_end: end.workload[name] ?? null
    }
  }
  const cpu = before.map(p => p.cpuPct).filter(v => v !== null)
  return {
    dead_tuples: line[knee].dead,
    vacuum_running: line.some(p => p.vacuum && Math.abs(p.x - kneeX) <= windowS),
    generator_cpu_pct: cpu.length
      ? roundOrNull(/** @type {number[]} */ (cpu).reduce((a, b) => a + b, 0) / cpu.length, 1)
      : null,
    workload
  }
}

/**
 * Capacity across the repetitions of a variant.
 * @param {Array<RunCapacity | null>} reps
 */
export function capacitySpread(reps) {
  const found = /** @type {RunCapacity[]} */ (reps.filter(r => r !== null))
  if (found.length === 0) return null
  const knees = found.filter(r => r.verdict === 'knee').map(r => /** @type {number} */ (r.capacity_per_s))
  const mean = knees.length ? knees.reduce((a, b) => a + b, 0) / knees.length : null
  return {
    unit: found[0].unit,
    verdicts: found.map(r => r.verdict),
    capacity_per_s:
      mean === null
        ? null
        : { mean: roundOrNull(mean, 1), min: Math.min(...knees), max: Math.max(...knees), n: knees.length }
  }
}

/** @param {Array<number | null>} values */
function maxOf(values) {
  const known = /** @type {number[]} */ (values.filter(v => v !== null))
  return known.length ? Math.max(...known) : null
}
