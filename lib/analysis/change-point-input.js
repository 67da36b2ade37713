// The input of findChangePoints (change-points.js) checked: its options,
// and its values with the missing ones (null, undefined, NaN, ±Infinity)
// set aside and the others' positions kept.

/**
 * @typedef {object} ChangePointOptions
 * @property {number} [minSegment]   points on each side of a change (default 10)
 * @property {number} [minEffect]    relative change of the median (default 0.2)
 * @property {number} [alpha]        a window's false-positive rate, over every place tested (default 0.01)
 * @property {number} [floor]        smallest |median| an effect is relative to (default 1e-9)
 * @property {number} [maxChanges]   (default 20)
 */

/**
 * A series as the search reads it, its options checked.
 * @typedef {object} Series
 * @property {Float64Array} x      the non-missing values, in order
 * @property {Float64Array} z      the same in the domain analysed (logarithms of positive series)
 * @property {Required<ChangePointOptions>} opts
 */

export const DEFAULTS = Object.freeze({ minSegment: 10, minEffect: 0.2, alpha: 0.01, floor: 1e-9, maxChanges: 20 })

/**
 * The non-missing values and where they were.
 * @param {ArrayLike<number | null | undefined>} values
 * @returns {{ x: Float64Array, positions: Int32Array }}
 */
export function present(values) {
  if (values === null || typeof values !== 'object' || !Number.isSafeInteger(values.length) || values.length < 0) {
    throw new TypeError('findChangePoints: values must be an array of numbers')
  }
  const x = new Float64Array(values.length)
  const positions = new Int32Array(values.length)
  let count = 0
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (value === null || value === undefined) continue
    if (typeof value !== 'number') {
      throw new TypeError(`findChangePoints: values[${i}] is ${typeof value}, not a number`)
    }
    if (!Number.isFinite(value)) continue
    x[count] = value
    positions[count++] = i
  }
  return { x: x.slice(0, count), positions: positions.slice(0, count) }
}

/**
 * @param {Float64Array} x
 * @returns {Int32Array}   each value's rank among the distinct values
 */
export function denseRanks(x) {
  const sorted = x.slice().sort()
  const dense = new Int32Array(x.length)
  /** @type {Map<number, number>} */
  const rankOf = new Map()
  for (const value of sorted) if (!rankOf.has(value)) rankOf.set(value, rankOf.size)
  for (let i = 0; i < x.length; i++) dense[i] = /** @type {number} */ (rankOf.get(x[i]))
  return dense
}

/**
 * @param {unknown} options
 * @returns {Required<ChangePointOptions>}
 */
export function checkOptions(options) {
  if (options === undefined) return { ...DEFAULTS }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('findChangePoints: options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!(key in DEFAULTS)) throw new TypeError(`findChangePoints: unknown option ${key}`)
  }
  /** @type {Record<string, unknown>} */
  const given = { ...options }
  /** @type {Required<ChangePointOptions>} */
  const opts = { ...DEFAULTS }
  /**
   * @param {keyof ChangePointOptions} key
   * @param {(v: number) => boolean} ok
   * @param {string} what
   */
  const check = (key, ok, what) => {
    const value = given[key]
    if (value === undefined) return
    if (typeof value !== 'number' || !ok(value)) {
      throw new TypeError(`findChangePoints: ${key} must be ${what}, not ${String(value)}`)
    }
    opts[key] = value
  }
  check('minSegment', v => Number.isSafeInteger(v) && v >= 2, 'an integer of at least 2')
  check('minEffect', v => Number.isFinite(v) && v >= 0, 'a number of at least 0')
  check('alpha', v => v > 0 && v < 1, 'a number between 0 and 1')
  check('floor', v => Number.isFinite(v) && v > 0, 'a positive number')
  check('maxChanges', v => Number.isSafeInteger(v) && v >= 0, 'an integer of at least 0')
  return opts
}
