import { criticalZ } from './change-scan.js'
import { RHO_SHORTFALL, quantile99 } from './change-calibration.js'

// How far the hole scan's largest z (hole-scan.js) strays under no change,
// once the noise is fitted around the best hole: the 99th percentile of the
// largest |z| over every hole of one interval, measured on 1,000 steady
// AR(1) series per cell (Gaussian in the domain analysed, a margin of 10
// points in the hole and on each side), by the interval's length and the
// noise's ρ (a cell below the one before it in ρ holds that one's value).
// A hole's z is taken less the excess of that percentile over
// the Bonferroni bound at 1 % for the same pairs, then Bonferroni applies
// over every pair tested. benchmarks/hole-calibration-table.js measures the
// table again; docs/change-points.md.

export const LENGTHS = [30, 40, 60, 90, 120, 180, 240]
export const RHOS = [0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95]
/** The margin the table was measured with. */
export const MARGIN = 10
const Q99 = [
  [3.29, 4.14, 4.53, 4.53, 5.76, 5.76, 5.76],
  [4.65, 5.18, 5.79, 5.94, 6.49, 7.18, 7.18],
  [4.65, 5.46, 5.9, 6.53, 6.53, 7.15, 7.52],
  [4.58, 5.07, 5.51, 5.74, 5.91, 6.41, 6.42],
  [4.74, 5.16, 5.37, 5.41, 5.96, 5.96, 5.96],
  [4.72, 5.05, 5.33, 5.68, 5.92, 5.92, 6.05],
  [4.68, 5.08, 5.19, 5.4, 5.79, 5.89, 5.96]
]
/** @type {import('./change-calibration.js').QuantileTable} */
const HOLE_TABLE = { lengths: LENGTHS, rhos: RHOS, q99: Q99 }

/**
 * The pairs (a, b) of an interval of `length` points with at least `margin`
 * in the hole and on each side.
 * @param {number} length
 * @param {number} margin
 */
export function holePairs(length, margin) {
  const k = Math.max(0, length - 3 * margin + 1)
  return (k * (k + 1)) / 2
}

/**
 * The excess of the hole scan's 99th percentile over Bonferroni's bound.
 * @param {number} length    points of the interval scanned
 * @param {number} rho       fitted
 * @param {number} margin    minSegment
 */
export function holeExcess(length, rho, margin) {
  const scaled = (length * MARGIN) / margin
  const places = Math.max(1, holePairs(length, margin))
  return quantile99(HOLE_TABLE, scaled, rho + RHO_SHORTFALL) - criticalZ(0.01 / (2 * places))
}
