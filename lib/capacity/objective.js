import { InputError } from '../errors.js'
import { FIGURES, parseThreshold } from '../config/thresholds.js'

// What a capacity search must keep: a latency or schedule-lag percentile
// below a limit, as `p99<10ms`, `insert_row:p95<2ms` or `lag_p99<50ms`.
// Written as run's --threshold (lib/config/thresholds.js parses both), but
// only what a step of a search can measure and must stay under: upper
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

/**
 * One objective, checked against the workload's request types.
 * @param {string} text
 * @param {readonly string[] | undefined} types   undefined: not checked yet (a plan's step, before its workload is
 *   known)
 * @returns {Objective}
 */
export function parseObjective(text, types) {
  const threshold = parseThreshold(text, { types, mode: 'open' }, '--objective')
  const spec = FIGURES[threshold.figure]
  const compact = threshold.expr.replace(/\s+/g, '')
  const quantile = spec.quantile ?? (threshold.figure.endsWith('max') ? 1 : null)
  if (spec.kind !== 'latency' || quantile === null) {
    throw new InputError(
      `--objective ${compact}: a step is judged on a latency or lag percentile, or max (p99<10ms, lag_p99<50ms), not on ${threshold.figure}`,
      { code: 'PGLG_INVALID_EXPRESSION' }
    )
  }
  if (threshold.op !== '<' && threshold.op !== '<=') {
    throw new InputError(
      `--objective ${compact}: an objective is an upper bound (< or <=): the search looks for the highest rate that stays under it`,
      { code: 'PGLG_INVALID_EXPRESSION' }
    )
  }
  return {
    text: compact,
    type: threshold.type,
    figure: threshold.figure.startsWith('lag_') ? 'lag' : 'latency',
    quantile,
    op: threshold.op,
    limitUs: /** @type {number} */ (threshold.limit)
  }
}

/**
 * Every --objective given (repeatable, or comma-separated): all must hold.
 * @param {unknown} value   a string, a list of them, or undefined
 * @param {readonly string[] | undefined} types
 * @returns {Objective[]}
 */
export function parseObjectives(value, types) {
  const given = (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap(v => String(v).split(','))
    .filter(v => v.trim() !== '')
  if (given.length === 0) {
    throw new InputError(
      "--objective: give what must hold, e.g. --objective 'p99<10ms' or --objective 'lag_p99<50ms'",
      { code: 'PGLG_INVALID_EXPRESSION' }
    )
  }
  return given.map(text => parseObjective(text, types))
}

/**
 * Whether a measured figure keeps the objective; a figure nothing was
 * measured for (no request of the type ended) does not.
 * @param {Objective} objective
 * @param {number | null} valueUs
 */
export function keeps(objective, valueUs) {
  if (valueUs === null) return false
  return objective.op === '<' ? valueUs < objective.limitUs : valueUs <= objective.limitUs
}

/**
 * The objectives as one phrase: p99<10ms and lag_p99<50ms.
 * @param {Objective[]} objectives
 */
export function describeObjectives(objectives) {
  return objectives.map(o => o.text).join(' and ')
}
