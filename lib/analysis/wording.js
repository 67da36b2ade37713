// A change and its causes in words, the same in the end table, the report
// and `pgloadgen compare`: "throughput 1830 → 412/s (−77 %)",
// "p99 insert_row 4.1 → 38.0 ms (+827 %)".

/**
 * The metric's name as a reader knows it.
 * @param {string} metric   throughput, p99_us:TYPE, rows_per_s, points_per_s, schedule_lag_p99_us
 */
export function metricName(metric) {
  if (metric.startsWith('p99_us:')) return `p99 ${metric.slice(7)}`
  if (metric.startsWith('condition:')) return CONDITIONS[metric.slice(10)]?.name ?? metric.slice(10)
  return (
    { throughput: 'throughput', rows_per_s: 'rows', points_per_s: 'points', schedule_lag_p99_us: 'schedule lag p99' }[
      metric
    ] ?? metric
  )
}

// The conditions the lab sees directly (conditions.js): their name and unit.
const CONDITIONS = /** @type {Record<string, { name: string, unit: string }>} */ ({
  xmin_horizon: { name: 'xmin horizon held', unit: ' s' },
  lock_wait: { name: 'sessions waiting for a lock', unit: '' },
  vacuum: { name: 'manual VACUUM running', unit: ' s' },
  server_stopped: { name: "server's processes stopped", unit: '' },
  reconnects: { name: 'reconnects', unit: '/s' },
  failures: { name: 'failed requests', unit: '/s' }
})

/**
 * A level of the metric with its unit.
 * @param {string} metric
 * @param {number} value
 */
export function metricValue(metric, value) {
  if (metric.startsWith('p99_us:') || metric === 'schedule_lag_p99_us') {
    return `${(value / 1000).toFixed(value < 10000 ? 2 : 1)} ms`
  }
  if (metric.startsWith('condition:')) return `${Math.round(value)}${CONDITIONS[metric.slice(10)]?.unit ?? ''}`
  return `${Math.round(value)}/s`
}

/**
 * "throughput 1830 → 412/s (−77 %)"
 * @param {{ metric: string, before: { median: number }, after: { median: number }, effect: number | null }} change
 */
export function describeChange({ metric, before, after, effect }) {
  const from = metricValue(metric, before.median)
    .replace(/\/s$|ms$| s$/, '')
    .trim()
  const pct =
    effect === null
      ? 'from 0'
      : Math.abs(effect) >= 10
        ? `×${(after.median / before.median).toFixed(0)}`
        : `${effect >= 0 ? '+' : '−'}${Math.round(Math.abs(effect) * 100)} %`
  return `${metricName(metric)} ${from} → ${metricValue(metric, after.median)} (${pct})`
}

/**
 * The causes, or that none was seen.
 * @param {Array<{ label: string }>} causes
 * @param {number} [most]
 */
export function describeCauses(causes, most = 2) {
  if (causes.length === 0) return 'no cause seen'
  const named = causes
    .slice(0, most)
    .map(c => c.label)
    .join('; ')
  return causes.length > most ? `${named}; +${causes.length - most} more` : named
}
