// The noise of a series around its segments' levels, as the scan of
// change-scan.js needs it: the lag-1 autocorrelation ρ of an AR(1) fit and
// the scale of its innovations. Residuals are taken around each segment's
// median and clipped at three robust scales, so that a step the
// segmentation has not found yet makes ρ larger (the scan then more
// cautious) rather than the scale smaller; ρ's small-sample shortfall,
// about (1 + 3ρ)/n for each level fitted (Marriott & Pope 1954), is added
// back. The innovations' scale is 1.4826 × their median absolute value.

/** The autocorrelation used is clipped to [0, RHO_MAX]. */
export const RHO_MAX = 0.95

/**
 * @param {Float64Array} z
 * @param {number[]} bounds   segment edges, from 0 to z.length
 * @returns {{ rho: number, scale: number }}
 */
export function noiseOf(z, bounds) {
  const n = z.length
  const residuals = new Float64Array(n)
  const segmentOf = new Int32Array(n)
  for (let k = 0; k + 1 < bounds.length; k++) {
    const median = medianOf(z.subarray(bounds[k], bounds[k + 1]))
    for (let i = bounds[k]; i < bounds[k + 1]; i++) {
      residuals[i] = z[i] - median
      segmentOf[i] = k
    }
  }
  const limit = 3 * 1.4826 * medianOf(residuals.map(Math.abs))
  const clipped = residuals.map(r => Math.max(-limit, Math.min(limit, r)))
  let squares = 0
  let products = 0
  for (let i = 0; i < n; i++) {
    squares += clipped[i] * clipped[i]
    if (i > 0 && segmentOf[i] === segmentOf[i - 1]) products += clipped[i] * clipped[i - 1]
  }
  const estimated = squares > 0 ? products / squares : 0
  const levels = bounds.length - 1
  const rho = Math.min(RHO_MAX, Math.max(0, estimated + (levels * (1 + 3 * estimated)) / Math.max(1, n)))
  const innovations = new Float64Array(n)
  let count = 0
  for (let i = 1; i < n; i++) {
    if (segmentOf[i] === segmentOf[i - 1]) innovations[count++] = Math.abs(residuals[i] - rho * residuals[i - 1])
  }
  return { rho, scale: 1.4826 * medianOf(innovations.subarray(0, count)) }
}

/**
 * The median, by selection (Hoare's), in linear time on average.
 * @param {Float64Array} values
 */
export function medianOf(values) {
  const n = values.length
  if (n === 0) return 0
  const a = Float64Array.from(values)
  const upper = select(a, n >> 1)
  if (n % 2) return upper
  let lower = -Infinity
  for (let i = 0; i < n >> 1; i++) if (a[i] > lower) lower = a[i]
  return (lower + upper) / 2
}

/**
 * The k-th smallest value of a (0-based); a is reordered so that a[0, k)
 * holds the smaller ones.
 * @param {Float64Array} a
 * @param {number} k
 */
export function select(a, k) {
  let low = 0
  let high = a.length - 1
  while (low < high) {
    const pivot = a[(low + high) >> 1]
    let i = low
    let j = high
    while (i <= j) {
      while (a[i] < pivot) i++
      while (a[j] > pivot) j--
      if (i <= j) {
        const t = a[i]
        a[i++] = a[j]
        a[j--] = t
      }
    }
    if (k <= j) high = j
    else if (k >= i) low = i
    else return a[k]
  }
  return a[k]
}
