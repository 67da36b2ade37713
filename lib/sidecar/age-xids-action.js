import { performance } from 'node:perf_hooks'
import { InputError, rephrased } from '../errors.js'
import { parseInteger } from '../config/number-flags.js'
import { errorMessage } from '../helpers/error-message.js'
import { quoteTable } from '../helpers/table-name.js'
import { ageXids, MAX_PARALLEL, parseXidCount } from '../lab/age-xids.js'
import { round } from '../helpers/numbers.js'

// age-xids as a sidecar, schedule or plan action: { action: age-xids,
// by: 5M, rate: 100000, parallel: 2, hold_lock: test_table }. Its start and
// end go to the event log; the end carries the figures (lib/lab/age-xids.js).

export const AGE_XIDS_FIELDS = ['by', 'to_age', 'rate', 'parallel', 'hold_lock']

/**
 * Checks an age-xids spec and gives its options; problems name the field.
 * @param {import('./action-contract.js').ActionSpec} spec
 * @param {string} field   where the spec is ('' for the command line)
 */
export function ageXidsOptions(spec, field) {
  // a plan's field, or the command's flag
  const at = (/** @type {string} */ name) => (field ? `${field}.${name}` : `--${name.replace('_', '-')}`)
  if (spec.by === undefined && spec.to_age === undefined) {
    throw new InputError(
      `${at('by')}: missing: age-xids needs the transaction IDs to spend (like 2M), or ${at('to_age')}`,
      { code: 'PGLG_MISSING_VALUE' }
    )
  }
  if (spec.by !== undefined && spec.to_age !== undefined) {
    throw new InputError(`${at('to_age')}: give ${at('by')} or ${at('to_age')}, not both`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  const by = spec.by === undefined ? undefined : parseXidCount(spec.by, at('by'))
  const toAge = spec.to_age === undefined ? undefined : parseXidCount(spec.to_age, at('to_age'))
  if (spec.table !== undefined && toAge === undefined) {
    throw new InputError(`${at('table')}: only with ${at('to_age')} (the table whose age it means)`, {
      code: 'PGLG_CONFLICTING_OPTIONS'
    })
  }
  const table = spec.table === undefined ? null : String(spec.table)
  if (table !== null) {
    try {
      quoteTable(table)
    } catch (err) {
      if (err instanceof InputError) throw rephrased(err, `${at('table')}: ${err.message}`)
      throw err
    }
  }
  const rate =
    spec.rate === undefined || spec.rate === null ? null : parseXidCount(spec.rate, at('rate'), { max: 10_000_000 })
  const parallel =
    spec.parallel === undefined ? 2 : parseInteger(spec.parallel, at('parallel'), { min: 1, max: MAX_PARALLEL })
  const holdLock = spec.hold_lock === undefined ? null : String(spec.hold_lock)
  if (holdLock !== null) {
    try {
      quoteTable(holdLock)
    } catch (err) {
      if (err instanceof InputError) throw rephrased(err, `${at('hold_lock')}: ${err.message}`)
      throw err
    }
  }
  return { by, toAge, table, rate, parallel, holdLock }
}

/**
 * Runs age-xids and records its start and end. A refusal (the role lacks a
 * right) is thrown as an InputError before the start event; a failure once
 * started is an outcome with ok false.
 * @param {import('./action-contract.js').ActionSpec} spec
 * @param {import('./action-contract.js').ActionContext} context
 * @param {(pid: number) => void} [onBackend]
 * @returns {Promise<import('./action-contract.js').ActionOutcome>}
 */
export async function runAgeXids(spec, { connectionString, events, log }, onBackend) {
  const options = ageXidsOptions(spec, '')
  const base = { action: 'age-xids', ...(options.holdLock && { table: options.holdLock }) }
  const started = performance.now()
  let recorded = false
  try {
    const result = await ageXids(connectionString, {
      ...options,
      onBackend: pid => {
        onBackend?.(pid)
        // the rights were checked by then: the start is recorded once, with the first backend
        if (!recorded) {
          recorded = true
          const spending =
            options.by !== undefined
              ? `${options.by} transaction IDs`
              : `transaction IDs until ${options.table ?? 'the database'} is ${options.toAge} old`
          const atRate = options.rate ? ` at ${options.rate}/s` : ''
          const holding = options.holdLock ? ` holding ${options.holdLock}'s SHARE UPDATE EXCLUSIVE lock` : ''
          log.info(`age-xids: spending ${spending}${atRate}${holding}`)
          events
            .record({
              kind: 'start',
              ...base,
              detail: {
                by: options.by ?? null,
                to_age: options.toAge ?? null,
                table: options.table,
                rate: options.rate,
                parallel: options.parallel,
                hold_lock: options.holdLock
              }
            })
            .catch(() => {})
        }
      },
      onProgress: (done, seconds) => log.info(`age-xids: ${done} spent (${Math.round(done / seconds)} XIDs/s)`)
    })
    const duration = round((performance.now() - started) / 1000, 3)
    await events.record({ kind: 'end', ...base, duration_s: duration, ok: true, detail: { ...result } })
    log.info(
      `age-xids: ${result.consumed} transaction IDs in ${result.seconds.toFixed(1)} s, ${result.xids_per_s} XIDs/s; database ${result.database} age ${result.age_before} → ${result.age_after}`
    )
    return { ok: true, duration_s: duration, detail: { ...result } }
  } catch (err) {
    if (err instanceof InputError) throw err
    const duration = round((performance.now() - started) / 1000, 3)
    const message = errorMessage(err)
    if (recorded) await events.record({ kind: 'end', ...base, duration_s: duration, ok: false, error: message })
    log.warn(`age-xids failed after ${duration.toFixed(1)} s: ${message}`, 'PGLG_W_ACTION_FAILED')
    return { ok: false, duration_s: duration, error: message }
  }
}
