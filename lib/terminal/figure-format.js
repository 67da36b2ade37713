// How the terminal writes figures, the same everywhere: latencies in
// milliseconds with three decimals (pgbench's way; the summary's whole
// microseconds, exactly), rates with one decimal, counts whole. A figure
// that does not exist is a dash.

export const NONE = '-'

/**
 * @param {number | null | undefined} us   microseconds
 */
export function ms(us) {
  return typeof us === 'number' && Number.isFinite(us) ? (us / 1000).toFixed(3) : NONE
}

/**
 * @param {number | null | undefined} perS
 */
export function rate(perS) {
  return typeof perS === 'number' && Number.isFinite(perS) ? perS.toFixed(1) : NONE
}

/**
 * @param {number | null | undefined} n
 */
export function count(n) {
  return typeof n === 'number' && Number.isFinite(n) ? String(Math.round(n)) : NONE
}

/**
 * "1 request", "2 requests".
 * @param {number} n
 * @param {string} one
 * @param {string} [many]
 */
export function plural(n, one, many = `${one}s`) {
  return `${count(n)} ${n === 1 ? one : many}`
}

/**
 * Seconds as a person reads a time left: 45 s, 3 min 05 s, 1 h 02 min.
 * @param {number} seconds
 */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, '0')} min`
}
