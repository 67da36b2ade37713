import { bootstrapMean } from '../lib/results/bootstrap-interval.js'

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * Nearest-rank quantile of a sorted array.
 * @param {ArrayLike<number>} sorted
 * @param {number} q
 */
export function quantileSorted(sorted, q) {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

/** @param {number[]} values */
export function spread(values) {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) }
}

/**
 * One round of an alternating comparison: A then B in odd rounds, B then A
 * in even ones, so that a drift within a round does not always favour the
 * same side. Resolves to both results, A's first, whatever the order.
 * @template A, B
 * @param {number} round  counted from 1
 * @param {() => Promise<A>} a
 * @param {() => Promise<B>} b
 * @returns {Promise<[A, B]>}
 */
export async function alternated(round, a, b) {
  if (round % 2 === 1) {
    const first = await a()
    return [first, await b()]
  }
  const second = await b()
  return [await a(), second]
}

/**
 * @typedef {object} GoalCheck
 * @property {number | null} goal  the ratio to reach; null: none stated
 * @property {number} n  pairs
 * @property {number} level
 * @property {number} mean
 * @property {number | null} low  null: too few pairs for an interval
 * @property {number | null} high
 * @property {'met' | 'missed' | 'undecided' | null} verdict  null without a goal
 * @property {boolean} [ceiling]  the goal is a most, not a least (againstCeiling)
 */

/**
 * The pairs' ratios against a goal, with the experiments' own method
 * (lib/results/bootstrap-interval.js): the 95 % percentile-bootstrap
 * interval of their mean. The goal is met when the whole interval lies at
 * or above it, missed when the whole interval lies below it, and undecided
 * when the interval straddles it: the pairs swing more than the distance
 * to the goal, and more rounds would narrow the interval.
 * @param {number[]} ratios
 * @param {number | null} goal
 * @returns {GoalCheck | null}  null without a ratio
 */
export function againstGoal(ratios, goal) {
  const interval = bootstrapMean(ratios)
  if (interval === null) return null
  const { n, level, mean, low, high } = interval
  /** @type {GoalCheck['verdict']} */
  let verdict = null
  if (goal !== null) {
    verdict = low === null || high === null ? 'undecided' : low >= goal ? 'met' : high < goal ? 'missed' : 'undecided'
  }
  return { goal, n, level, mean, low, high, verdict }
}

/**
 * The pairs' ratios against a goal that is a most (CPU per request at most
 * 1.2 times pgbench's): met when the whole interval lies at or below it,
 * missed when the whole interval lies above it, undecided in between.
 * @param {number[]} ratios
 * @param {number} ceiling
 * @returns {GoalCheck | null}  null without a ratio
 */
export function againstCeiling(ratios, ceiling) {
  const check = againstGoal(ratios, null)
  if (check === null) return null
  const { low, high } = check
  /** @type {GoalCheck['verdict']} */
  let verdict = 'undecided'
  if (low !== null && high !== null) verdict = high <= ceiling ? 'met' : low > ceiling ? 'missed' : 'undecided'
  return { ...check, goal: ceiling, verdict, ceiling: true }
}
