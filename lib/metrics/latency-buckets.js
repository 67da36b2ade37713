// Fixed bucket bounds for the exported latency histogram, in microseconds.
// Fixed (not data-driven) so that histogram_quantile works across label sets
// and a quantile can never land above the bucket holding the observed max.
// 50 µs steps up to 1 ms, then a roughly 1-2-2.5-5 progression up to 60 s.
export const LATENCY_BUCKETS_US = Object.freeze([
  50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800, 900, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 3500,
  4000, 5000, 6000, 7000, 8000, 10000, 12500, 15000, 17500, 20000, 25000, 30000, 40000, 50000, 60000, 80000, 100000,
  125000, 150000, 200000, 250000, 300000, 400000, 500000, 750000, 1000000, 1500000, 2000000, 3000000, 5000000, 7500000,
  10000000, 15000000, 20000000, 30000000, 45000000, 60000000
])

/**
 * Index of the first bound >= value, or bounds.length for +Inf.
 * @param {readonly number[]} bounds
 * @param {number} value
 */
export function bucketIndex(bounds, value) {
  let lo = 0
  let hi = bounds.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (bounds[mid] < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
