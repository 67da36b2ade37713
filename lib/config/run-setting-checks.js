import os from 'node:os'
import path from 'node:path'
import { InputError } from '../errors.js'
import { parseMix } from './mix.js'
import { parseThresholds } from './thresholds.js'
import { quote, shown } from '../helpers/quote.js'
import { DURATION_UNITS } from './number-flags.js'
import { parseStages } from './stages.js'
import { MAX_RUN_S } from './number-flags.js'
import { MAX_CONCURRENCY, RUN_SETTINGS } from './run-settings.js'

// The checking of a run's settings against their table (run-settings.js):
// a flag's value (cli/), a plan's field (experiment/plan.js) and the body
// of POST /concurrency (http/control.js) all go through checkSetting, so
// one rule has one wording, wherever the value comes from:
//
//   --concurrency must be a whole number from 1 to 10000, got "0"
//   variants[1].steps[0].concurrency must be a whole number from 1 to 10000, got 0
//   concurrency must be a whole number from 1 to 10000, got 0     (the API's 400)
//
// A flag's value is text, parsed; a plan's or the API's is a JSON or YAML
// value, whose type must already be right (8, not "8").

/** @typedef {import('./run-settings.js').SettingSpec} SettingSpec */
/** @typedef {import('./run-settings.js').SettingName} SettingName */

/**
 * Where a value was given: 'flag' (a command line's text), 'api' (a control
 * API body), or the path of a plan's field (variants[1].steps[0].concurrency).
 * @typedef {'flag' | 'api' | string} Where
 */

/**
 * How a refusal names the setting where it was given.
 * @param {SettingSpec} spec
 * @param {Where} where
 */
function labelOf(spec, where) {
  if (where === 'flag') return spec.flagLabel ?? `--${spec.flag}`
  if (where === 'api') return /** @type {string} */ (spec.api)
  return where
}

/**
 * The choices in words: "a, b or c".
 * @param {readonly string[]} choices
 */
function inWords(choices) {
  return choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`
}

/**
 * Checks one setting's value as given there, and returns it as the run
 * uses it; a refusal is one line naming it as it was given.
 * @param {SettingName} name
 * @param {unknown} value
 * @param {Where} where
 * @param {{ types?: readonly string[],
 *     openLoop?: boolean } & import('./thresholds.js').ThresholdContext} [context]  mix and thresholds: the workload's
 * request types; thresholds: the run's loop and whether it audits writes; stages: whether they are rates
 * @returns {any}
 */
export function checkSetting(name, value, where, context = {}) {
  const spec = RUN_SETTINGS[name]
  const label = labelOf(spec, where)
  const text = where === 'flag'
  /** @param {string} problem */
  const refuse = problem =>
    new InputError(`${label} ${problem}, got ${text ? quote(value, 40) : shown(value, 40)}`, {
      code: 'PGLG_INVALID_NUMBER'
    })
  switch (spec.type) {
    case 'integer': {
      if (spec.auto && value === 'auto') return os.availableParallelism()
      const bounds =
        spec.max === Number.MAX_SAFE_INTEGER ? `of at least ${spec.min}` : `from ${spec.min} to ${spec.max}`
      const problem = `must be a whole number ${bounds}${spec.auto ? ', or auto' : ''}`
      let n
      if (text) {
        const trimmed = String(value).trim()
        if (!/^-?\d+$/.test(trimmed)) throw refuse(problem)
        n = Number(trimmed)
      } else {
        if (!Number.isInteger(value)) throw refuse(problem)
        n = /** @type {number} */ (value)
      }
      if (!(n >= /** @type {number} */ (spec.min) && n <= /** @type {number} */ (spec.max))) throw refuse(problem)
      return n
    }
    case 'number': {
      const n = text ? Number(value) : value
      if ((text && String(value).trim() === '') || typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
        throw refuse('must be a positive number')
      }
      return n
    }
    case 'duration': {
      if (spec.off && value === 'off') return null
      let seconds
      if (!text && typeof value === 'number') {
        seconds = value
      } else {
        const match =
          typeof value === 'string' || text ? /^(\d+(?:\.\d+)?)\s*(ms|[smhd]?)$/.exec(String(value).trim()) : null
        if (!match) throw refuse(`must be a duration in seconds (or with ms, s, m, h, d)${spec.off ? ', or off' : ''}`)
        seconds = Number(match[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ (match[2])]
      }
      if (!(seconds >= /** @type {number} */ (spec.min) && seconds <= /** @type {number} */ (spec.max))) {
        throw refuse(`must be between ${spec.min} and ${spec.max} seconds${spec.off ? ', or off' : ''}`)
      }
      return seconds
    }
    case 'choice':
      if (!(/** @type {readonly unknown[]} */ (spec.choices).includes(value))) {
        throw refuse(`must be ${inWords(/** @type {readonly string[]} */ (spec.choices))}`)
      }
      return value
    case 'mix':
      if (typeof value !== 'string' || value.trim() === '') {
        throw refuse('must be request types and weights, like insert_row=60,read_row=40')
      }
      return context.types ? parseMix(value, context.types, label) : value
    case 'thresholds':
      // a list, each refused in its own words (config/thresholds.js)
      return parseThresholds(value, { ...context, label })
    case 'boolean':
      if (typeof value !== 'boolean') throw refuse('must be true or false')
      return value
    case 'path':
      if (typeof value !== 'string' || value.trim() === '') throw refuse('must be the path of a directory')
      return path.resolve(value)
    case 'stages':
      // a closed loop's targets are clients; an open loop's, requests/s
      return parseStages(value, {
        whole: !context.openLoop,
        max: context.openLoop ? Infinity : MAX_CONCURRENCY,
        maxSeconds: MAX_RUN_S,
        refuse
      })
  }
}

/**
 * The settings a command line or a plan gives, each checked, by setting
 * name; those not given are left out: their defaults are applied once, when
 * the run specification is built (lib/lab/run-spec.js). A plan's fields are
 * read at prefix (prepare.) when given. A mix is checked against
 * context.types when given, else kept as text.
 * @param {'flag' | 'plan'} source
 * @param {Record<string, unknown>} values   yargs' arguments (camelCase), or the plan's object
 * @param {{ prefix?: string, types?: readonly string[], only?: readonly SettingName[] }} [options]
 * @returns {Partial<Record<SettingName, any>>}
 */
export function parseRunSettings(source, values, { prefix = '', types, only } = {}) {
  /** @type {Partial<Record<SettingName, any>>} */
  const settings = {}
  for (const name of only ?? /** @type {SettingName[]} */ (Object.keys(RUN_SETTINGS))) {
    const spec = RUN_SETTINGS[name]
    const key = source === 'flag' ? spec.flag && camelCase(spec.flag) : spec.plan
    if (!key || values[key] === undefined) continue
    settings[name] = checkSetting(name, values[key], source === 'flag' ? 'flag' : `${prefix}${key}`, { types })
  }
  return settings
}

/**
 * kebab-case to camelCase, as yargs names a flag's value.
 * @param {string} name
 */
function camelCase(name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}
