import { timeline } from '../results/timeline.js'

// A paced run's samples as the line the capacity is found on: per second,
// the points (or rows) delivered and the lag; and what is computed along
// it (the smoothed lag, where a climb began, the slope, windowed rates).

export const MIN_SMOOTHING_S = 3

/**
 * @typedef {object} LinePoint
 * @property {number} x          seconds from t0, end of the sample's second
 * @property {number} dt
 * @property {number} delivered  points or rows in that second
 * @property {number | null} lag µs
 * @property {number | null} clients
 * @property {number | null} cpuPct
 * @property {number | null} dead
 * @property {boolean} vacuum
 * @property {Record<string, number | null>} workload
 */

/**
 * The samples as one line: the first (connections being set up) and
 * paused seconds left out.
 * @param {import('../results/read.js').RunData} run
 * @param {'points' | 'rows'} unit
 * @returns {LinePoint[]}
 */
export function series(run, unit) {
  const points = timeline(run)
  /** @type {LinePoint[]} */
  const line = []
  for (let i = 1; i < points.length; i++) {
    const p = points[i]
    const sample = run.samples[i]
    if (p.paused) continue
    const startLag = sample.lag?.p99_us
    line.push({
      x: p.x,
      dt: p.dt,
      delivered: Number(sample[unit]) || 0,
      lag: typeof startLag === 'number' ? startLag : p.p99,
      clients: p.concurrency,
      cpuPct: p.cpuPct,
      dead: p.dead,
      vacuum: (p.vacuumPhase ?? 0) > 0,
      workload: sample.workload ?? {}
    })
  }
  return line
}

/**
 * Trailing median of the lag over windowS seconds; null where none is known.
 * @param {LinePoint[]} line
 * @param {number} windowS
 */
export function smoothed(line, windowS) {
  return line.map((p, i) => {
    const values = []
    for (let j = i; j >= 0 && line[j].x > p.x - windowS; j--) {
      const lag = line[j].lag
      if (lag !== null) values.push(lag)
    }
    return values.length === 0 ? null : median(values)
  })
}

/**
 * Where the climb that crossed the bound at `crossing` began: walking back
 * from it while the lag (the median of each second and its neighbours)
 * stays above the level of the seconds before the climb (their median,
 * plus three times their spread (1.4826 × MAD, at least 5 % of the way to
 * the bound).
 * @param {LinePoint[]} line
 * @param {number} from      first index of the stretch the climb belongs to
 * @param {number} crossing
 * @param {number} boundUs
 */
export function climbStart(line, from, crossing, boundUs) {
  const before = /** @type {number[]} */ (
    line
      .slice(from, crossing)
      .map(p => p.lag)
      .filter(v => v !== null)
  )
  if (before.length === 0) return crossing
  const level = median(before)
  const spread = 1.4826 * median(before.map(v => Math.abs(v - level)))
  const threshold = level + Math.max(3 * spread, 0.05 * (boundUs - level))
  let knee = crossing
  while (knee - 1 >= from) {
    const around = /** @type {number[]} */ (
      [line[knee - 2]?.lag, line[knee - 1].lag, line[knee]?.lag].filter(v => typeof v === 'number')
    )
    if (around.length === 0 || median(around) <= threshold) break
    knee--
  }
  return knee
}

/**
 * Least-squares slope of the lag over [from, to], µs per second; null with
 * fewer than 3 seconds known.
 * @param {LinePoint[]} line
 * @param {number} from
 * @param {number} to
 */
export function lagSlope(line, from, to) {
  let n = 0
  let sx = 0
  let sy = 0
  let sxx = 0
  let sxy = 0
  for (let i = from; i <= to; i++) {
    const y = line[i].lag
    if (y === null) continue
    const x = line[i].x
    n++
    sx += x
    sy += y
    sxx += x * x
    sxy += x * y
  }
  const varX = sxx - (sx * sx) / n
  return n < 3 || varX <= 0 ? null : (sxy - (sx * sy) / n) / varX
}

/** @param {number[]} values  not empty */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * Delivered per second over the samples ending in (fromX, toX].
 * @param {LinePoint[]} line
 * @param {number} fromX
 * @param {number} toX
 */
export function meanRate(line, fromX, toX) {
  let delivered = 0
  let seconds = 0
  for (const p of line) {
    if (p.x <= fromX || p.x > toX) continue
    delivered += p.delivered
    seconds += p.dt
  }
  return seconds > 0 ? delivered / seconds : null
}

/**
 * The highest mean delivered over any window of windowS seconds (the
 * whole load when shorter).
 * @param {LinePoint[]} line
 * @param {number} windowS
 */
export function peakWindow(line, windowS) {
  const first = line[0].x - line[0].dt
  let best = null
  for (const p of line) {
    if (p.x - first < windowS && p !== line[line.length - 1]) continue
    const rate = meanRate(line, p.x - windowS, p.x)
    if (rate !== null && (best === null || rate > best)) best = rate
  }
  return best
}
