import { UsageError } from '../errors.js'

// What a capacity search must keep: a latency or schedule-lag percentile
// below a limit, as `p99<10ms`, `insert_row:p95<2ms` or `lag_p99<50ms`.
// --threshold (lib/config/thresholds.js, being written alongside) reads a
// wider grammar of the same shape; once it exists the two should share one
// parser. This one reads only what a step of a search can measure: upper
// bounds on latencies (from each request's intended start, so a backlog
// counts) and on how late requests started.

/**
 * @typedef {object} Objective
 * @property {string} text          as given, without spaces
 * @property {string | null} type   a request type of the workload; null: every type together
 * @property {'latency' | 'lag'} figure
 * @property {number} quantile      0..1; 1 is the maximum
 * @property {'<' | '<='} op
 * @property {number} limitUs
 */

const UNITS_US = { us: 1, µs: 1, ms: 1000, s: 1e6 }
const PATTERN = /^(?:([^:<>=\s]+):)?(lag_)?(p\d+(?:\.\d+)?|max)(<=|<)(\d+(?:\.\d+)?)(us|µs|ms|s)?$/

/**
 * One objective, checked against the workload's request types.
 * @param {string} text
 * @param {readonly string[]} types
 * @returns {Objective}
 */
export function parseObjective (text, types) {
  const compact = String(text).replace(/\s+/g, '')
  const match = PATTERN.exec(compact)
  if (!match) throw new UsageError(`--objective ${JSON.stringify(String(text)).slice(0, 60)}: expected FIGURE<LIMIT such as p99<10ms, insert_row:p95<2ms or lag_p99<50ms (figures p50…p99.9, max; units us, ms, s)`)
  const [, type, lag, figure, op, number, unit] = match
  if (type !== undefined && lag) throw new UsageError(`--objective ${compact}: the schedule lag is of the whole load, not of one request type`)
  if (type !== undefined && !types.includes(type)) throw new UsageError(`--objective ${compact}: no request type ${type} in this workload (its types: ${types.join(', ')})`)
  const quantile = figure === 'max' ? 1 : Number(figure.slice(1)) / 100
  if (!(quantile > 0 && quantile < 1)) throw new UsageError(`--objective ${compact}: a percentile is above 0 and below 100, got ${figure}`)
  // k6's thresholds read a bare number as milliseconds; so does this
  const limitUs = Number(number) * UNITS_US[/** @type {keyof typeof UNITS_US} */ (unit ?? 'ms')]
  if (!(limitUs > 0)) throw new UsageError(`--objective ${compact}: the limit must be above 0`)
  return { text: compact, type: type ?? null, figure: lag ? 'lag' : 'latency', quantile, op: /** @type {'<' | '<='} */ (op), limitUs }
}

/**
 * Every --objective given (repeatable, or comma-separated): all must hold.
 * @param {unknown} value   a string, a list of them, or undefined
 * @param {readonly string[]} types
 * @returns {Objective[]}
 */
export function parseObjectives (value, types) {
  const given = (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap(v => String(v).split(',')).filter(v => v.trim() !== '')
  if (given.length === 0) throw new UsageError('--objective: give what must hold, e.g. --objective \'p99<10ms\' or --objective \'lag_p99<50ms\'')
  return given.map(text => parseObjective(text, types))
}

/**
 * Whether a measured figure keeps the objective; a figure nothing was
 * measured for (no request of the type ended) does not.
 * @param {Objective} objective
 * @param {number | null} valueUs
 */
export function keeps (objective, valueUs) {
  if (valueUs === null) return false
  return objective.op === '<' ? valueUs < objective.limitUs : valueUs <= objective.limitUs
}

/**
 * The objectives as one phrase: p99<10ms and lag_p99<50ms.
 * @param {Objective[]} objectives
 */
export function describeObjectives (objectives) {
  return objectives.map(o => o.text).join(' and ')
}
