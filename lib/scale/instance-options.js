import { InputError } from '../errors.js'
import { quote } from '../helpers/quote.js'
import { MAX_TIMER_S } from '../helpers/durations.js'
import { formatShare } from './share.js'

// --instance I/N and --start-at TIME of pgloadgen run: which part of the
// load this process runs, and the moment every part starts at.

// as many instances as a run may have clients: each needs one
export const MAX_INSTANCES = 10000

/**
 * "I/N": part I (0-based, as Kubernetes' JOB_COMPLETION_INDEX) of N.
 * @param {unknown} value
 * @returns {import('./share.js').Share}
 */
export function parseInstance(value) {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(value))
  if (!match) {
    throw new InputError(
      `--instance must be I/N, the 0-based index I of N instances (0/3, 1/3, 2/3), got ${quote(value)}`,
      { code: 'PGLG_INVALID_VALUE' }
    )
  }
  const index = Number(match[1])
  const parts = Number(match[2])
  if (!(parts >= 1 && parts <= MAX_INSTANCES)) {
    throw new InputError(`--instance ${match[1]}/${match[2]}: N must be from 1 to ${MAX_INSTANCES}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  if (!(index < parts)) {
    throw new InputError(
      `--instance ${match[1]}/${match[2]}: the index is 0-based and must be below N (0 to ${parts - 1})`,
      { code: 'PGLG_INVALID_NUMBER' }
    )
  }
  return { index, parts }
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

/**
 * The start moment, in epoch ms: ISO 8601 with its time zone
 * (2030-01-01T12:00:00Z, …+02:00), or seconds since the epoch (1893499200,
 * fractions allowed). A time without a zone is refused: instances on
 * machines in different zones would read it differently.
 * @param {unknown} value
 * @param {number} [now]  epoch ms; the moment may not be further than a timer waits
 */
export function parseStartAt(value, now = Date.now()) {
  const text = String(value).trim()
  const ms = /^\d+(\.\d+)?$/.test(text) ? epochSeconds(text, value) : isoMoment(text, value)
  if (ms - now > MAX_TIMER_S * 1000) {
    throw new InputError(`--start-at ${quote(value)} is more than ${Math.floor(MAX_TIMER_S / 86400)} days away`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  }
  return ms
}

/**
 * @param {string} text
 * @param {unknown} value
 */
function epochSeconds(text, value) {
  const seconds = Number(text)
  // 13 digits are milliseconds, a common slip: a start 50 000 years away
  if (seconds >= 1e11) {
    throw new InputError(
      `--start-at takes seconds since the epoch (or ISO 8601), got ${quote(value)}, which looks like milliseconds`,
      { code: 'PGLG_INVALID_VALUE' }
    )
  }
  return Math.round(seconds * 1000)
}

/**
 * @param {string} text
 * @param {unknown} value
 */
function isoMoment(text, value) {
  const m = ISO.exec(text)
  if (!m) {
    throw new InputError(
      `--start-at must be ISO 8601 with a time zone (2030-01-01T12:00:00Z, 2030-01-01T14:00:00+02:00) or seconds since the epoch, got ${quote(value)}`,
      { code: 'PGLG_INVALID_VALUE' }
    )
  }
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map(i => Number(m[i] ?? 0))
  const fraction = Number(`0.${m[7] ?? '0'}`)
  const offsetMin = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    Math.abs(offsetMin) > 18 * 60
  ) {
    throw new InputError(`--start-at ${quote(value)} is not a valid date and time`, { code: 'PGLG_INVALID_VALUE' })
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) + Math.round(fraction * 1000)
  return utc - offsetMin * 60000
}

/**
 * An instance that comes up after the start moment cannot start with the
 * others: it refuses rather than run a load shifted in time.
 * @param {number} startAtMs
 * @param {import('./share.js').Share | null} instance
 * @param {number} [now]
 */
export function checkNotLate(startAtMs, instance, now = Date.now()) {
  if (now <= startAtMs) return
  const who = instance ? `instance ${formatShare(instance)}` : 'this run'
  throw new InputError(
    `--start-at ${new Date(startAtMs).toISOString()} passed ${((now - startAtMs) / 1000).toFixed(3)} s ago: ${who} came up too late to start with the others`,
    { code: 'PGLG_INVALID_VALUE' }
  )
}
