import { InputError } from '../errors.js'
import { parseOffset } from '../helpers/durations.js'
import { quote, shown } from '../helpers/quote.js'

// A workload's own command-line options (`--hosts 100 --batch-size 5000`),
// declared by its module: their spelling, type, default and bounds. The CLI
// adds them to `run` once it knows the workload; a plan gives them under
// `options:`. Values are checked here, before anything connects.

/**
 * @typedef {object} OptionSpec
 * @property {'integer' | 'number' | 'duration' | 'string' | 'boolean' | 'choice'} type
 *   duration: seconds, given as 90, 90s, 15m, 1h30m, 500ms
 * @property {string} describe
 * @property {unknown} [default]
 * @property {number} [min]
 * @property {number} [max]
 * @property {string[]} [choices]    for choice
 */

const TYPES = ['integer', 'number', 'duration', 'string', 'boolean', 'choice']
const OPTION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/

/**
 * Checks a module's option declarations.
 * @param {unknown} declared
 * @param {(problem: string) => Error} fail
 * @param {ReadonlySet<string>} taken   names the run command uses already
 * @returns {Record<string, OptionSpec>}
 */
export function checkOptionSpecs(declared, fail, taken) {
  if (declared === undefined) return {}
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw fail('options: expected an object of option declarations')
  }
  /** @type {Record<string, OptionSpec>} */
  const specs = {}
  for (const [name, value] of Object.entries(declared)) {
    const spec = /** @type {Partial<OptionSpec>} */ (value)
    if (!OPTION_NAME.test(name)) {
      throw fail(`options.${name}: an option's name is lower-case words joined by dashes, like batch-size`)
    }
    if (taken.has(name) || taken.has(camelCase(name))) {
      throw fail(`options.${name}: pgloadgen run has an option of that name already`)
    }
    if (!TYPES.includes(/** @type {string} */ (spec?.type))) {
      throw fail(`options.${name}.type: one of ${TYPES.join(', ')}`)
    }
    if (typeof spec.describe !== 'string' || spec.describe === '') {
      throw fail(`options.${name}.describe: say what the option does`)
    }
    if (spec.type === 'choice' && (!Array.isArray(spec.choices) || spec.choices.length === 0)) {
      throw fail(`options.${name}.choices: a choice needs its choices`)
    }
    specs[name] = /** @type {OptionSpec} */ (spec)
    if (spec.default !== undefined) parseOptionValue(name, specs[name], spec.default, fail)
  }
  return specs
}

/**
 * The values of a workload's options: given (by their dashed or camelCase
 * names), else their defaults. Keys of the result are camelCase.
 * @param {Record<string, OptionSpec>} specs
 * @param {Record<string, unknown>} given
 * @param {string} where   how the options were given, for errors ("--" or "options.")
 * @returns {Record<string, unknown>}
 */
export function optionValues(specs, given, where = '--') {
  /** @type {Record<string, unknown>} */
  const values = {}
  for (const [name, spec] of Object.entries(specs)) {
    const raw = given[name] ?? given[camelCase(name)]
    const value = raw === undefined ? spec.default : raw
    values[camelCase(name)] =
      value === undefined
        ? undefined
        : parseOptionValue(
            name,
            spec,
            value,
            problem => new InputError(`${where}${name}: ${problem}`, { code: 'PGLG_INVALID_VALUE' })
          )
  }
  return values
}

/**
 * @param {string} name
 * @param {OptionSpec} spec
 * @param {unknown} value
 * @param {(problem: string) => Error} fail
 */
function parseOptionValue(name, spec, value, fail) {
  // flags give text (or true/false), a plan JSON or YAML scalars; a list or
  // an object (a flag given twice, a plan's nested value) is none of them
  if (typeof value === 'object' && value !== null) throw fail(`expected one value, got ${shown(value)}`)
  switch (spec.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value
      if (value === 'true' || value === 'false') return value === 'true'
      throw fail(`expected true or false, got ${quote(value)}`)
    case 'string':
      return String(value)
    case 'choice':
      if (!spec.choices?.includes(String(value))) throw fail(`one of ${spec.choices?.join(', ')}, got ${quote(value)}`)
      return String(value)
    case 'duration': {
      let seconds
      try {
        seconds = parseOffset(value, name)
      } catch {
        throw fail(`expected a duration like 10s, 15m or 1h, got ${quote(value)}`)
      }
      return inRange(seconds, spec, fail, quote(value).slice(1, -1))
    }
    default: {
      const text = String(value).trim()
      const number = Number(text)
      if (text === '' || !Number.isFinite(number)) throw fail(`expected a number, got ${quote(value)}`)
      // beyond 2^53 a whole number is not exact any more
      if (spec.type === 'integer' && !Number.isSafeInteger(number)) {
        throw fail(`expected a whole number, got ${quote(value)}`)
      }
      return inRange(number, spec, fail, quote(text).slice(1, -1))
    }
  }
}

/**
 * @param {number} n
 * @param {OptionSpec} spec
 * @param {(problem: string) => Error} fail
 * @param {string} given
 */
function inRange(n, spec, fail, given) {
  if (spec.min !== undefined && n < spec.min) throw fail(`must be at least ${spec.min}, got ${given}`)
  if (spec.max !== undefined && n > spec.max) throw fail(`must be at most ${spec.max}, got ${given}`)
  return n
}

/** @param {string} name  batch-size → batchSize */
export function camelCase(name) {
  return name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase())
}
