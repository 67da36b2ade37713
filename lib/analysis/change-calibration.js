import { criticalZ } from './change-scan.js'

// How far the scan's largest z strays under no change, once the noise is
// fitted around the candidate split (change-points.js refit): the fit takes
// a slow swing of autocorrelated noise for a step, so the statistic runs
// beyond the normal. Measured on 3,000 steady AR(1) series per cell
// (Gaussian in the domain analysed, a margin of 10 points each side): the
// 99th percentile of the largest |z| of one scan, by the scan's length and
// the noise's ρ. A scan's z is taken less the excess of that percentile
// over the Bonferroni bound at 1 % for the same places, then Bonferroni
// applies as for independent normal statistics. Two cells where the
// measurement dipped as ρ grew (30 points at ρ 0.8, 180 at 0.95) hold the
// cell before them. benchmarks/change-calibration-table.js measures the
// table again; docs/change-points.md.

const LENGTHS = [20, 30, 40, 60, 90, 120, 180, 240, 480, 960]
const RHOS = [0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95]
const Q99 = [
  [3.61, 4.44, 4.8, 5.76, 6.64, 6.91, 7.32],
  [4.01, 4.78, 5.39, 6.13, 6.13, 7, 7.52],
  [3.9, 4.67, 5.06, 5.37, 5.69, 6.78, 6.82],
  [3.9, 4.3, 4.78, 5.24, 5.45, 5.71, 6.51],
  [3.76, 4.1, 4.35, 4.65, 4.97, 5.31, 5.47],
  [3.71, 4.05, 4.21, 4.53, 4.74, 5.05, 5.46],
  [3.8, 4.09, 4.13, 4.23, 4.48, 5.01, 5.01],
  [3.68, 3.89, 4.13, 4.36, 4.37, 4.66, 4.83],
  [3.67, 3.81, 4, 4.11, 4.26, 4.56, 4.69],
  [3.69, 3.81, 3.94, 4.06, 4.23, 4.4, 4.66]
]
/** @type {QuantileTable} */
const STEP_TABLE = { lengths: LENGTHS, rhos: RHOS, q99: Q99 }
/** The margin the table was measured with. */
const MARGIN = 10
/** ρ as fitted around a split falls a little short of the truth. */
export const RHO_SHORTFALL = 0.02

/**
 * The excess of the scan's 99th percentile over Bonferroni's bound.
 * @param {number} length    points scanned
 * @param {number} rho       fitted
 * @param {number} margin    minSegment
 */
export function scanExcess(length, rho, margin) {
  const scaled = (length * MARGIN) / margin
  const places = Math.max(1, length - 2 * margin + 1)
  return quantile99(STEP_TABLE, scaled, rho + RHO_SHORTFALL) - criticalZ(0.01 / (2 * places))
}

/**
 * @typedef {object} QuantileTable
 * @property {number[]} lengths   ascending
 * @property {number[]} rhos      ascending
 * @property {number[][]} q99     by length, then ρ
 */

/**
 * A table's 99th percentile at a length and ρ, interpolated in the
 * length's logarithm and in ρ, clamped to the table's edges.
 * @param {QuantileTable} table
 * @param {number} length
 * @param {number} rho
 */
export function quantile99(table, length, rho) {
  const { lengths, rhos, q99 } = table
  const i = bracket(lengths, Math.log(Math.max(lengths[0], Math.min(length, lengths[lengths.length - 1]))), Math.log)
  const j = bracket(rhos, Math.max(0, Math.min(rho, rhos[rhos.length - 1])), v => v)
  const at = (/** @type {number} */ r) => q99[i.low][r] + i.share * (q99[i.high][r] - q99[i.low][r])
  return at(j.low) + j.share * (at(j.high) - at(j.low))
}

/**
 * Where v falls in the ascending grid, and how far between its neighbours.
 * @param {number[]} grid
 * @param {number} v     already mapped
 * @param {(x: number) => number} map
 */
function bracket(grid, v, map) {
  let low = 0
  while (low + 2 < grid.length && map(grid[low + 1]) <= v) low++
  const high = Math.min(grid.length - 1, low + 1)
  const span = map(grid[high]) - map(grid[low])
  return { low, high, share: span > 0 ? Math.max(0, Math.min(1, (v - map(grid[low])) / span)) : 0 }
}
