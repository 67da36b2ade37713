// Rounding a figure to a number of decimals: the one way every report,
// summary and log line rounds, so that the same figure prints alike.

/**
 * The value rounded to digits decimals.
 * @param {number} value
 * @param {number} [digits]
 */
export function round(value, digits = 0) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/**
 * The value rounded to digits decimals; null when it is null, undefined,
 * NaN or infinite.
 * @param {number | null | undefined} value
 * @param {number} [digits]
 * @returns {number | null}
 */
export function roundOrNull(value, digits = 0) {
  return value === null || value === undefined || !Number.isFinite(value) ? null : round(value, digits)
}
