// The per-second samples of a load's instances as one run's: the instances'
// recorders tick once a second from their own load start, so with a common
// --start-at their k-th samples describe the same second (counted, not read
// from the clocks, which may differ a little). Those are added
// where adding means something (requests, failures, rows, points,
// concurrency, CPU), and the rest is chosen:
//
// - a second's p50 and p99 (of latency and of schedule lag) are the highest
//   of the instances'. The samples keep no histograms, so the exact
//   percentile of the second cannot be recomputed; the highest is an upper
//   bound of it (a quantile of a mixture never exceeds the largest of the
//   parts' quantiles). The whole run's percentiles, in summary.json, are exact.
// - the PostgreSQL figures, the workload's statistics and the disk are the
//   server's, which every instance polls: those of the first instance that
//   has them for that second.
// - `instances` says how many instances had a sample for that second (fewer
//   at the edges when their loads did not start or end together).

/**
 * @param {import('./read-runs.js').InstanceRun[]} runs   in instance order
 * @param {number} originMs   the merged run's start: second k ends at originMs + k s
 * @returns {import('../results/read.js').Sample[]}
 */
export function mergeSamples(runs, originMs) {
  /** @type {Map<number, import('../results/read.js').Sample[]>} */
  const bySecond = new Map()
  for (const r of runs) {
    // the k-th sample of each: their timers drift alike, their clocks may not
    r.run.samples.forEach((sample, i) => {
      const list = bySecond.get(i + 1) ?? []
      list.push(sample)
      bySecond.set(i + 1, list)
    })
  }
  return [...bySecond.keys()]
    .sort((a, b) => a - b)
    .map(k => mergeSecond(k, originMs, /** @type {import('../results/read.js').Sample[]} */ (bySecond.get(k))))
}

/**
 * @param {number} k
 * @param {number} originMs
 * @param {import('../results/read.js').Sample[]} samples
 * @returns {import('../results/read.js').Sample & { instances: number }}
 */
function mergeSecond(k, originMs, samples) {
  const add = (/** @type {(s: import('../results/read.js').Sample) => unknown} */ pick) =>
    samples.reduce((n, s) => n + (Number(pick(s)) || 0), 0)
  /** @type {Record<string, import('../results/read.js').RequestFigures>} */
  const requests = {}
  for (const s of samples) {
    for (const [type, r] of Object.entries(s.requests ?? {})) {
      const into = requests[type] ?? { done: 0, failed: 0, p50_us: null, p99_us: null }
      into.done += Number(r.done) || 0
      into.failed += Number(r.failed) || 0
      into.p50_us = highest(into.p50_us, r.p50_us)
      into.p99_us = highest(into.p99_us, r.p99_us)
      requests[type] = into
    }
  }
  const lags = samples.map(s => s.lag).filter(l => l !== undefined && l !== null)
  const firstOf = (/** @type {'pg' | 'workload' | 'disk'} */ key) =>
    samples.map(s => /** @type {Record<string, unknown>} */ (s)[key]).find(v => v !== undefined && v !== null)
  const workload = firstOf('workload')
  const disk = firstOf('disk')
  return {
    t: new Date(originMs + k * 1000).toISOString(),
    elapsed_s: k,
    instances: samples.length,
    concurrency: add(s => s.concurrency),
    paused: samples.some(s => s.paused === true),
    throughput: add(s => s.throughput),
    rows: add(s => s.rows),
    points: add(s => s.points),
    requests,
    ...(lags.length > 0 && {
      lag: {
        p50_us: lags.reduce((m, l) => highest(m, l?.p50_us), /** @type {number | null} */ (null)),
        p99_us: lags.reduce((m, l) => highest(m, l?.p99_us), /** @type {number | null} */ (null))
      }
    }),
    cpu_us: { user: add(s => s.cpu_us?.user), system: add(s => s.cpu_us?.system) },
    pg: /** @type {import('../results/read.js').PgFigures | null} */ (firstOf('pg') ?? null),
    ...(workload !== undefined && { workload: /** @type {Record<string, number | null>} */ (workload) }),
    ...(disk !== undefined && { disk })
  }
}

/**
 * @param {number | null | undefined} a
 * @param {number | null | undefined} b
 * @returns {number | null}
 */
function highest(a, b) {
  if (typeof a !== 'number') return typeof b === 'number' ? b : null
  if (typeof b !== 'number') return a
  return Math.max(a, b)
}
