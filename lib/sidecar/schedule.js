import { readFile } from 'node:fs/promises'
import YAML from 'yaml'
import { InvalidPlanError, InputError, reclassified } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'
import { ACTIONS, ACTION_FIELDS, checkAction } from './actions.js'
import { RETENTION_ACTIONS, RETENTION_FIELDS } from './retention-spec.js'
import { parseOffset, MAX_TIMER_S } from '../helpers/durations.js'
import { parseCondition } from './conditions.js'

/**
 * @typedef {object} Rule
 * @property {import('./actions.js').ActionSpec} spec
 * @property {'after' | 'at' | 'every' | 'when'} trigger
 * @property {number} [afterS]
 * @property {Date} [at]
 * @property {number} [everyS]
 * @property {import('./conditions.js').Condition} [condition]
 * @property {boolean} once        fire at most once
 * @property {number} cooldownS    for repeating conditions: quiet time after an action ends
 * @property {string} label        for logs: actions[3]
 */

const TRIGGERS = ['after', 'at', 'every', 'when']
const KNOWN_FIELDS = new Set(['action', ...ACTION_FIELDS, ...RETENTION_FIELDS, ...TRIGGERS, 'once', 'cooldown'])

/**
 * Reads and validates a schedule file (JSON or YAML). Every problem names
 * its field, and nothing runs until the whole file is valid.
 * @param {string} file
 * @param {Date} [now]
 * @returns {Promise<Rule[]>}
 */
export async function loadSchedule(file, now = new Date()) {
  try {
    return await readScheduleFile(file, now)
  } catch (err) {
    throw reclassified(err, InvalidPlanError)
  }
}

/**
 * @param {string} file
 * @param {Date} now
 */
async function readScheduleFile(file, now) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new InputError(`cannot read schedule file ${file}`, { code: 'PGLG_UNREADABLE_FILE', cause: err })
  }
  let data
  try {
    // logLevel error: a YAML warning would be a second line on stderr
    data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text, { logLevel: 'error' })
  } catch (err) {
    throw new InputError(
      `schedule ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ` +
        printable(String(/** @type {Error} */ (err)?.message).split('\n')[0]),
      { code: 'PGLG_UNREADABLE_FILE', cause: err }
    )
  }
  return parseSchedule(data, now)
}

/**
 * @param {unknown} data
 * @param {Date} now
 * @returns {Rule[]}
 */
export function parseSchedule(data, now) {
  try {
    return rulesOf(data, now)
  } catch (err) {
    throw reclassified(err, InvalidPlanError)
  }
}

/**
 * @param {unknown} data
 * @param {Date} now
 * @returns {Rule[]}
 */
function rulesOf(data, now) {
  const list = Array.isArray(data) ? data : /** @type {{ actions?: unknown }} */ (data)?.actions
  if (!Array.isArray(list) || list.length === 0) {
    throw new InputError('schedule: expected a non-empty list "actions"', { code: 'PGLG_MISSING_VALUE' })
  }
  return Array.from(list, (item, index) => parseRule(item, `actions[${index}]`, now))
}

/**
 * @param {unknown} item
 * @param {string} label
 * @param {Date} now
 * @returns {Rule}
 */
function parseRule(item, label, now) {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new InputError(`${label}: expected an object`, { code: 'PGLG_INVALID_VALUE' })
  }
  const raw = /** @type {Record<string, unknown>} */ (item)
  for (const key of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(key)) {
      throw new InputError(`${label}.${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
    }
  }
  if (!ACTIONS.includes(/** @type {any} */ (raw.action))) {
    const maintenance = ACTIONS.filter(a => !RETENTION_ACTIONS.includes(/** @type {any} */ (a)))
    throw new InputError(
      `${label}.action: expected one of ${maintenance.join(', ')}, got ${shown(raw.action)} (retention, with yes: true: ${RETENTION_ACTIONS.join(', ')})`,
      { code: 'PGLG_INVALID_CHOICE' }
    )
  }
  for (const flag of ['freeze', 'full', 'analyze', 'verbose', 'once']) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean') {
      throw new InputError(`${label}.${flag}: expected true or false`, { code: 'PGLG_INVALID_VALUE' })
    }
  }
  if (raw.table !== undefined && typeof raw.table !== 'string') {
    throw new InputError(`${label}.table: expected a table name`, { code: 'PGLG_INVALID_NAME' })
  }
  const spec = /** @type {import('./actions.js').ActionSpec} */ ({ action: raw.action })
  for (const key of [...ACTION_FIELDS, ...RETENTION_FIELDS]) {
    if (raw[key] !== undefined) /** @type {Record<string, unknown>} */ (spec)[key] = raw[key]
  }
  checkAction(spec, label)
  const triggers = TRIGGERS.filter(t => raw[t] !== undefined)
  if (triggers.length !== 1) {
    throw new InputError(
      `${label}: give exactly one of ${TRIGGERS.join(', ')}${triggers.length ? ` (got ${triggers.join(', ')})` : ''}`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  const trigger = /** @type {Rule['trigger']} */ (triggers[0])
  const rule = {
    spec,
    trigger,
    label,
    once: raw.once !== false,
    cooldownS: raw.cooldown === undefined ? 60 : parseOffset(raw.cooldown, `${label}.cooldown`)
  }
  switch (trigger) {
    case 'after':
      return { ...rule, afterS: timer(parseOffset(raw.after, `${label}.after`), `${label}.after`), once: true }
    case 'every': {
      const everyS = timer(parseOffset(raw.every, `${label}.every`), `${label}.every`)
      if (!(everyS > 0)) throw new InputError(`${label}.every: must be more than 0`, { code: 'PGLG_INVALID_NUMBER' })
      return { ...rule, everyS, once: false }
    }
    case 'at':
      return { ...rule, at: parseAt(raw.at, `${label}.at`, now), once: true }
    default:
      if (typeof raw.when !== 'string') {
        throw new InputError(
          `${label}.when: expected a condition like "dead_fraction(test_table) > 0.2", got ${shown(raw.when)}`,
          { code: 'PGLG_INVALID_EXPRESSION' }
        )
      }
      return { ...rule, condition: parseCondition(raw.when, `${label}.when`) }
  }
}

/**
 * Seconds a timer waits, within what setTimeout can wait.
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

/**
 * An ISO date-time, or HH:MM[:SS] meaning the next such wall-clock time.
 * @param {unknown} value
 * @param {string} field
 * @param {Date} now
 */
function parseAt(value, field, now) {
  if (typeof value !== 'string' && !(value instanceof Date)) {
    throw new InputError(`${field}: not a date-time or HH:MM: ${shown(value)}`, { code: 'PGLG_INVALID_VALUE' })
  }
  const text = value instanceof Date ? value.toISOString() : value.trim()
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text)
  if (clock) {
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)]
    if (h > 23 || m > 59 || s > 59) {
      throw new InputError(`${field}: not a time of day: ${quote(text)}`, { code: 'PGLG_INVALID_VALUE' })
    }
    const at = new Date(now)
    at.setHours(h, m, s, 0)
    if (at <= now) at.setDate(at.getDate() + 1)
    return at
  }
  const at = value instanceof Date ? value : new Date(text)
  if (Number.isNaN(at.getTime())) {
    throw new InputError(`${field}: not a date-time or HH:MM: ${quote(text)}`, { code: 'PGLG_INVALID_VALUE' })
  }
  return at
}
