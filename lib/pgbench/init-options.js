import { printable } from '../helpers/quote.js'
// The options of `pgbench -i`, checked before anything connects, in
// pgbench's own words, and the errors of initialisation.

/** The steps pgbench runs when -I is not given. */
export const DEFAULT_INIT_STEPS = 'dtgvp'
// Every step letter pgbench knows; a space in -I is allowed and ignored.
const ALL_INIT_STEPS = 'dtgGvpf'

const INT_MAX = 2147483647

/** A bad initialisation option: one line, nothing has been sent to the server. */
export class InitOptionError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message)
    this.name = 'InitOptionError'
  }
}

/**
 * A step failed on the server or the connection did: the message names the
 * step and carries the server's own words, on one line.
 */
export class InitError extends Error {
  /**
   * @param {string} message
   * @param {{ cause?: unknown, code?: string }} [details]  code: the server's SQLSTATE, when it sent one
   */
  constructor(message, { cause, code } = {}) {
    super(message, { cause })
    this.name = 'InitError'
    this.code = code
  }
}

/**
 * @typedef {'none' | 'range' | 'hash'} PartitionMethod
 */

/**
 * Checked, complete initialisation options.
 * @typedef {object} InitOptions
 * @property {number} scale              branches; tellers are 10 ×, accounts 100000 × this
 * @property {number} fillfactor         10..100, on branches, tellers and accounts
 * @property {boolean} unlogged
 * @property {string} initSteps          the steps to run, in order, spaces and any 'v' dropped by noVacuum removed, 'f'
 *   appended by foreignKeys
 * @property {number} partitions         0: pgbench_accounts is not partitioned
 * @property {PartitionMethod} partitionMethod  'none' exactly when partitions is 0
 * @property {boolean} quiet             progress every 5 s instead of every 100000 rows
 * @property {string | null} tablespace       tables go there (CREATE TABLE … TABLESPACE)
 * @property {string | null} indexTablespace  primary keys go there
 */

/**
 * @typedef {object} InitOptionsInput
 * @property {number | string} [scale]        -s, an integer 1..2147483647 (default 1)
 * @property {number | string} [fillfactor]   -F, an integer 10..100 (default 100)
 * @property {boolean} [foreignKeys]          --foreign-keys: adds the 'f' step if missing
 * @property {boolean} [unlogged]             --unlogged-tables
 * @property {string} [initSteps]             -I, letters of dtgGvpf (default dtgvp)
 * @property {number | string} [partitions]   --partitions, 0..2147483647 (default 0)
 * @property {string} [partitionMethod]       --partition-method, range or hash (needs partitions > 0; default range)
 * @property {boolean} [noVacuum]             -n: drops every 'v' step
 * @property {boolean} [quiet]                -q
 * @property {string} [tablespace]            --tablespace
 * @property {string} [indexTablespace]       --index-tablespace
 */

/**
 * Validates the options as pgbench does when it parses its command line.
 * @param {InitOptionsInput} [input]
 * @returns {InitOptions}
 */
export function parseInitOptions(input = {}) {
  const scale = parseIntOption(input.scale, '-s/--scale', 1, INT_MAX, 1)
  const fillfactor = parseIntOption(input.fillfactor, '-F/--fillfactor', 10, 100, 100)
  let steps = input.initSteps === undefined ? DEFAULT_INIT_STEPS : checkInitSteps(input.initSteps)
  const partitions = parseIntOption(input.partitions, '--partitions', 0, INT_MAX, 0)
  let partitionMethod = parsePartitionMethod(input.partitionMethod)
  if (partitions === 0 && partitionMethod !== 'none') {
    throw new InitOptionError('--partition-method requires greater than zero --partitions')
  }
  if (partitions > 0 && partitionMethod === 'none') partitionMethod = 'range'
  if (input.noVacuum) steps = steps.replaceAll('v', '')
  if (input.foreignKeys && !steps.includes('f')) steps += 'f'
  return {
    scale,
    fillfactor,
    unlogged: Boolean(input.unlogged),
    initSteps: steps.replaceAll(' ', ''),
    partitions,
    partitionMethod,
    quiet: Boolean(input.quiet),
    tablespace: optionalName(input.tablespace, '--tablespace'),
    indexTablespace: optionalName(input.indexTablespace, '--index-tablespace')
  }
}

/**
 * An integer option as pgbench's option_parse_int reads it: base 10, an
 * optional sign, surrounding white space allowed, nothing else.
 * @param {number | string | undefined} value
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {number} fallback
 */
function parseIntOption(value, name, min, max, fallback) {
  if (value === undefined) return fallback
  const text = String(value)
  if (typeof value === 'number' ? !Number.isInteger(value) : !/^\s*[+-]?\d+\s*$/.test(text)) {
    throw new InitOptionError(`invalid value "${printable(text)}" for option ${name}`)
  }
  const number = Number(text.trim())
  if (number < min || number > max) throw new InitOptionError(`${name} must be in range ${min}..${max}`)
  return number
}

/**
 * @param {string} steps
 * @returns {string}
 */
function checkInitSteps(steps) {
  if (typeof steps !== 'string' || steps === '') throw new InitOptionError('no initialization steps specified')
  for (const step of steps) {
    if (step !== ' ' && !ALL_INIT_STEPS.includes(step)) {
      throw new InitOptionError(
        `unrecognized initialization step "${printable(step)}" (allowed step characters are: "${ALL_INIT_STEPS}")`
      )
    }
  }
  // pgbench would generate twice, the second run replacing the first; asking
  // for both is a mistake worth pointing out before a long load starts.
  if (steps.includes('g') && steps.includes('G')) {
    throw new InitOptionError(
      'initialization steps "g" (client-side) and "G" (server-side) generate the same data: give only one of them'
    )
  }
  return steps
}

/**
 * @param {string | undefined} method
 * @returns {PartitionMethod}
 */
function parsePartitionMethod(method) {
  if (method === undefined) return 'none'
  const lower = String(method).toLowerCase()
  if (lower === 'range' || lower === 'hash') return lower
  throw new InitOptionError(`invalid partition method, expecting "range" or "hash", got: "${printable(method)}"`)
}

/**
 * @param {string | undefined} name
 * @param {string} option
 */
function optionalName(name, option) {
  if (name === undefined) return null
  if (typeof name !== 'string' || name === '') throw new InitOptionError(`${option} needs a tablespace name`)
  return name
}
