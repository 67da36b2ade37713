import { InputError } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'
import { MAX_CONCURRENCY } from '../config/run-settings.js'
import { checkSetting } from '../config/run-setting-checks.js'
import { checkAction, ACTIONS } from '../sidecar/actions.js'
import { MAX_TIMER_S, parseOffset } from '../helpers/durations.js'
import { parseCondition } from '../sidecar/conditions.js'
import { parseCapacityStep } from '../capacity/plan-step.js'
import { object } from './plan-fields.js'
import { fieldNames, STEP_FIELDS } from './plan-table.js'

// A variant's steps as a plan gives them (variants[i].steps), and the
// sidecar actions that a step or the prepare phase runs. The fields each
// kind of step takes are plan-table.js's.

/**
 * @typedef {object} Step
 * @property {'load' | 'action' | 'wait' | 'concurrency' | 'capacity'} kind
 * @property {number} [seconds]                 load: how long
 * @property {number} [concurrency]             load (optional) and concurrency: absolute
 * @property {number} [ramp]                    load (optional): the clients to reach, in a straight line over the step
 * @property {number} [factor]                  concurrency: relative (x2)
 * @property {import('../sidecar/actions.js').ActionSpec} [action]
 * @property {'action' | import('../sidecar/conditions.js').Condition} [until]   wait
 * @property {number} [timeoutS]                wait
 * @property {import('../capacity/plan-step.js').CapacityStepSpec} [capacity]  capacity: the search
 *   (lib/capacity/plan-step.js)
 * @property {string} label                     variants[0].steps[2]
 */

const ACTION_SPEC_FIELDS = fieldNames('action')

const STEP_KINDS = Object.keys(STEP_FIELDS)
// every field some kind of step takes: a key that is none of them is an unknown step
const STEP_FIELD_NAMES = [...new Set(Object.values(STEP_FIELDS).flatMap(fields => Object.keys(fields)))]

/**
 * @param {unknown} value
 * @param {string} label
 * @returns {Step}
 */
export function parseStep(value, label) {
  const step = object(value, label)
  const kind = stepKind(step, label)
  switch (kind) {
    case 'load':
      return loadStep(step, label)
    case 'concurrency':
      return concurrencyStep(step, label)
    case 'action':
      return { kind, label, action: parseActionSpec(step.action, `${label}.action`) }
    case 'capacity':
      return { kind, label, capacity: parseCapacityStep(step, label) }
    default:
      return waitStep(step, label)
  }
}

/**
 * The one kind of a step, its fields all fields of that kind.
 * @param {Record<string, unknown>} step
 * @param {string} label
 * @returns {Step['kind']}
 */
function stepKind(step, label) {
  // a load step may give its concurrency too: then concurrency is its field, not a step
  const kinds = STEP_KINDS.filter(
    k => step[k] !== undefined && !(k === 'concurrency' && (step.load !== undefined || step.capacity !== undefined))
  )
  if (step.ramp !== undefined && step.load === undefined) {
    throw new InputError(`${label}.ramp: a field of a load step, which it ramps over (load: 2m, ramp: 32)`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  if (kinds.length !== 1) {
    const unknown = Object.keys(step).find(k => !STEP_KINDS.includes(k) && !STEP_FIELD_NAMES.includes(k))
    if (unknown && kinds.length === 0) {
      throw new InputError(`${label}: unknown step ${quote(unknown)} (steps: ${STEP_KINDS.join(', ')})`, {
        code: 'PGLG_INVALID_CHOICE'
      })
    }
    throw new InputError(`${label}: give exactly one of ${STEP_KINDS.join(', ')}`, { code: 'PGLG_CONFLICTING_OPTIONS' })
  }
  const kind = /** @type {Step['kind']} */ (kinds[0])
  const allowed = Object.keys(STEP_FIELDS[kind])
  for (const key of Object.keys(step))
    if (!allowed.includes(key)) {
      throw new InputError(`${label}.${printable(key, 40)}: not a field of a ${kind} step`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
  return kind
}

/**
 * @param {Record<string, unknown>} step
 * @param {string} label
 * @returns {Step}
 */
function loadStep(step, label) {
  // a ramp starts from the clients there are: a concurrency to start from is a step of its own
  if (step.ramp !== undefined && step.concurrency !== undefined) {
    throw new InputError(
      `${label}: give concurrency or ramp, not both (a ramp starts from the clients running; put a concurrency step before it)`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  return {
    kind: 'load',
    label,
    seconds: timer(parseOffset(step.load, `${label}.load`), `${label}.load`),
    ...(step.concurrency !== undefined && {
      concurrency: checkSetting('concurrency', step.concurrency, `${label}.concurrency`)
    }),
    ...(step.ramp !== undefined && { ramp: checkSetting('concurrency', step.ramp, `${label}.ramp`) })
  }
}

/**
 * A number of clients, or a factor of the clients running (x2, x0.5).
 * @param {Record<string, unknown>} step
 * @param {string} label
 * @returns {Step}
 */
function concurrencyStep(step, label) {
  const text = String(step.concurrency)
  const factor = /^x(\d+(?:\.\d+)?)$/.exec(text)
  if (factor) {
    const n = Number(factor[1])
    if (!(n > 0 && n <= MAX_CONCURRENCY)) {
      throw new InputError(
        `${label}.concurrency: a factor above 0 and at most ${MAX_CONCURRENCY}, like x2 or x0.5, got ${quote(text)}`,
        { code: 'PGLG_INVALID_NUMBER' }
      )
    }
    return { kind: 'concurrency', label, factor: n }
  }
  return {
    kind: 'concurrency',
    label,
    concurrency: checkSetting('concurrency', step.concurrency, `${label}.concurrency`)
  }
}

/**
 * A wait for the actions running, or for a condition on the stats.
 * @param {Record<string, unknown>} step
 * @param {string} label
 * @returns {Step}
 */
function waitStep(step, label) {
  if (typeof step.wait !== 'string') {
    throw new InputError(
      `${label}.wait: action, or a condition like "dead_fraction(test_table) < 0.05", got ${shown(step.wait)}`,
      { code: 'PGLG_INVALID_EXPRESSION' }
    )
  }
  const until = step.wait === 'action' ? 'action' : parseCondition(step.wait, `${label}.wait`)
  return {
    kind: 'wait',
    label,
    until,
    timeoutS:
      step.timeout === undefined ? 3600 : timer(parseOffset(step.timeout, `${label}.timeout`), `${label}.timeout`)
  }
}

/**
 * A sidecar action as a plan gives it: { action: vacuum, table: T, freeze: true },
 * or retention: { action: delete, table: T, older_than: 10m, yes: true }.
 * @param {unknown} value
 * @param {string} field
 * @returns {import('../sidecar/actions.js').ActionSpec}
 */
export function parseActionSpec(value, field) {
  const raw = object(value, field)
  for (const key of Object.keys(raw)) {
    if (!ACTION_SPEC_FIELDS.includes(key)) {
      throw new InputError(`${field}.${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
    }
  }
  if (!ACTIONS.includes(/** @type {any} */ (raw.action))) {
    throw new InputError(`${field}.action: one of ${ACTIONS.join(', ')}`, { code: 'PGLG_INVALID_CHOICE' })
  }
  const spec = /** @type {import('../sidecar/actions.js').ActionSpec} */ (raw)
  checkAction(spec, field)
  return spec
}

/**
 * Seconds a step waits with a timer, within what setTimeout can wait.
 * @param {number} seconds
 * @param {string} field
 */
function timer(seconds, field) {
  if (seconds > MAX_TIMER_S) {
    throw new InputError(`${field}: at most ${MAX_TIMER_S} seconds (about 24 days), got ${seconds}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return seconds
}
