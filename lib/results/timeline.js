// Turns a run's samples into points on its time axis: seconds relative to
// the run's t0, rates per second, and the per-second figures the charts and
// the phase comparison share.

/**
 * @typedef {object} TypePoint
 * @property {number} rate        requests done per second
 * @property {number} failedRate  failures per second
 * @property {number | null} p50  µs
 * @property {number | null} p99  µs
 */

/**
 * @typedef {object} Point
 * @property {number} x            seconds from t0 to the end of the sample's second
 * @property {number} startMs      epoch ms: start of the interval the sample covers
 * @property {number} endMs        epoch ms: end of that interval (the sample's t)
 * @property {number} dt           seconds the sample covers
 * @property {boolean} paused
 * @property {number} rate         requests done per second, all types
 * @property {Record<string, TypePoint>} types
 * @property {number | null} p50   µs, all types (see allTypes below)
 * @property {number | null} p99   µs, all types
 * @property {number | null} concurrency
 * @property {number | null} cpuPct   generator CPU (user + system), % of one core
 * @property {number | null} live
 * @property {number | null} dead
 * @property {number | null} tableBytes
 * @property {number | null} indexBytes
 * @property {number | null} xidAge
 * @property {number | null} vacuumPhase   null before the first stats poll; 0 no vacuum running;
 *   1 … 7 pg_stat_progress_vacuum's phases (initializing … performing final cleanup); 8 a phase not known
 * @property {number | null} heapScannedPct
 * @property {number | null} rowsRate     rows the requests reported written, per second (null: not recorded)
 * @property {number | null} pointsRate   points (metric values) written, per second
 * @property {number | null} lagP50       µs: how late paced or open-loop requests started (null: none started)
 * @property {number | null} lagP99
 * @property {Record<string, number | null>} workload  the workload's own statistics
 */

/**
 * @param {import('./read.js').RunData} run
 * @returns {Point[]}
 */
export function timeline(run) {
  /** @type {Point[]} */
  const points = []
  let previousEnd = NaN
  for (const sample of run.samples) {
    const endMs = Date.parse(sample.t)
    const dt = intervalSeconds(sample, (endMs - previousEnd) / 1000, points.length === 0)
    previousEnd = endMs
    /** @type {Record<string, TypePoint>} */
    const types = {}
    for (const [type, figures] of Object.entries(sample.requests ?? {})) {
      types[type] = {
        rate: num(figures?.done) / dt,
        failedRate: num(figures?.failed) / dt,
        p50: numOrNull(figures?.p50_us),
        p99: numOrNull(figures?.p99_us)
      }
    }
    const pg = sample.pg ?? null
    const vacuum = pg?.vacuum ?? null
    const cpu = sample.cpu_us
    points.push({
      x: (endMs - run.t0) / 1000,
      startMs: endMs - dt * 1000,
      endMs,
      dt,
      paused: sample.paused === true,
      rate: num(sample.throughput) / dt,
      types,
      p50: allTypes(sample, 'p50_us'),
      p99: allTypes(sample, 'p99_us'),
      concurrency: numOrNull(sample.concurrency),
      cpuPct: cpu ? (num(cpu.user) + num(cpu.system)) / 1e4 / dt : null,
      live: numOrNull(pg?.live_tuples),
      dead: numOrNull(pg?.dead_tuples),
      tableBytes: numOrNull(pg?.table_bytes),
      indexBytes: numOrNull(pg?.index_bytes),
      xidAge: numOrNull(pg?.xid_age),
      vacuumPhase: pg ? (vacuum ? phaseStep(vacuum.phase) : 0) : null,
      heapScannedPct:
        vacuum && num(vacuum.heap_blks_total) > 0
          ? (100 * num(vacuum.heap_blks_scanned)) / num(vacuum.heap_blks_total)
          : null,
      rowsRate: typeof sample.rows === 'number' ? num(sample.rows) / dt : null,
      pointsRate: typeof sample.points === 'number' ? num(sample.points) / dt : null,
      lagP50: numOrNull(sample.lag?.p50_us),
      lagP99: numOrNull(sample.lag?.p99_us),
      workload: sample.workload ?? {}
    })
  }
  return points
}

/**
 * Request types in the samples that completed at least one request, in the
 * order the workload declares them (run.json's types), others after them.
 * @param {import('./read.js').RunData[]} runs
 * @returns {string[]}
 */
export function activeTypes(runs) {
  const seen = new Set()
  for (const run of runs) {
    for (const sample of run.samples) {
      for (const [type, figures] of Object.entries(sample.requests ?? {})) {
        if (num(figures?.done) > 0 || num(figures?.failed) > 0) seen.add(type)
      }
    }
  }
  const declared = runs.find(run => Array.isArray(run.info.types))?.info.types ?? []
  const known = declared.filter(type => seen.has(type))
  return [...known, ...[...seen].filter(type => !known.includes(type)).sort()]
}

/**
 * The latency of all request types in one second. The samples hold
 * percentiles per type only, and percentiles do not add up; this is the mean
 * of the types' percentiles weighted by how many requests of each type
 * completed in that second: an approximation of the percentile of the mixed
 * distribution (exact when the types have the same distribution, below the
 * true p99 when one type is much slower than the others).
 * @param {import('./read.js').Sample} sample
 * @param {'p50_us' | 'p99_us'} key
 * @returns {number | null}
 */
export function allTypes(sample, key) {
  let weight = 0
  let sum = 0
  for (const figures of Object.values(sample.requests ?? {})) {
    const value = numOrNull(figures?.[key])
    const done = num(figures?.done)
    if (value === null || done <= 0) continue
    weight += done
    sum += value * done
  }
  return weight > 0 ? sum / weight : null
}

/**
 * Seconds a sample covers: the time since the previous sample (the recorder
 * samples every second, but a busy event loop stretches a second), bounded
 * to a sane range; for the first sample its elapsed_s when that looks like
 * one interval, else one second.
 * @param {import('./read.js').Sample} sample
 * @param {number} sincePrevious
 * @param {boolean} first
 */
function intervalSeconds(sample, sincePrevious, first) {
  if (first || !Number.isFinite(sincePrevious)) {
    const elapsed = num(sample.elapsed_s, 1)
    return elapsed >= 0.5 && elapsed <= 1.5 ? elapsed : 1
  }
  return Math.min(Math.max(sincePrevious, 0.5), 10)
}

/**
 * The recorder's phase (0 initializing … 6 performing final cleanup, -1
 * other) as a step of the vacuum phase chart.
 * @param {unknown} phase
 */
function phaseStep(phase) {
  const n = num(phase, -1)
  return n >= 0 && n <= 6 ? n + 1 : 8
}

/**
 * @param {unknown} value
 * @param {number} [fallback]
 */
function num(value, fallback = 0) {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback
}

/** @param {unknown} value */
function numOrNull(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}
