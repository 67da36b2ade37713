import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { InputError, InvalidWorkloadError } from '../errors.js'
import { printable } from '../helpers/quote.js'
import { checkOptionSpecs, optionValues } from './options.js'

/** @typedef {import('./contract.js').Workload} Workload */
/** @typedef {import('./contract.js').WorkloadModule} WorkloadModule */
/** @typedef {import('./contract.js').RequestFunction} RequestFunction */

// The largest number of request types a workload may declare: each one is a
// value of the `type` label on every per-type metric (and twice on the
// latency histogram), so the number of series stays bounded.
export const MAX_REQUEST_TYPES = 64
// Request type names go into --mix ("a=1,b=2"), metric labels and file
// names of reports: no separators, no spaces.
const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,62}$/
const HOOKS = ['configure', 'clients', 'pacing', 'ramp', 'statistics', 'maintain', 'setup', 'initClient']

/**
 * Checks what a module declares, reads its schema files, checks its options
 * and -D settings (configure), and returns the workload the generator runs.
 * Every problem is one line naming the source: bad input, exit 2.
 * @param {unknown} value    the module's default export
 * @param {string} source
 * @param {{ scripts?: boolean, defines?: Readonly<Record<string, string>>, options?: Record<string, unknown>,
 *     optionsWhere?: string, taken?: ReadonlySet<string>, seed?: number | null }} [given]
 *   options: the values given for the module's options (flags or a plan's options:); taken: the run command's own
 * option names; seed: the run's --seed (null: none)
 * @returns {Promise<Workload>}
 */
export async function checkWorkload(
  value,
  source,
  { scripts = false, defines = {}, options = {}, optionsWhere = '--', taken = new Set(), seed = null } = {}
) {
  const fail = (/** @type {string} */ problem) => new InvalidWorkloadError(`workload ${printable(source)}: ${problem}`)
  if (typeof value !== 'object' || value === null) {
    throw fail('the module has no default export object (export default { name, types, requests, … })')
  }
  const module = /** @type {Record<string, unknown>} */ (value)
  if (typeof module.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(module.name)) {
    throw fail('name: expected letters, digits, dots, dashes or underscores')
  }
  const { types, weights, expectedErrors, functions } = checkTypes(module, fail)
  const { ids, audit, idTable } = checkDeclarations(module, fail)
  const schemaSql = await sqlOf(module.schema, 'schema', fail)
  const dropSql = await sqlOf(module.drop, 'drop', fail)
  const optionSpecs = checkOptionSpecs(module.options, fail, taken)
  refuseUnknownOptions(module.name, optionSpecs, options, optionsWhere)
  const optionValuesGiven = optionValues(optionSpecs, options, optionsWhere)
  const hooks = /** @type {WorkloadModule} */ (/** @type {unknown} */ (module))
  const { config, clients, pacing, ramp, statistics } = await askModule(
    hooks,
    { options: optionValuesGiven, defines, seed },
    fail
  )
  const { setup, initClient, maintain } = hooks
  return {
    name: module.name,
    description: /** @type {string | undefined} */ (module.description) ?? '',
    source,
    types,
    weights,
    expectedErrors,
    requests: functions,
    schemaSql,
    dropSql,
    table: /** @type {string | undefined} */ (module.table) ?? idTable,
    idTable,
    idFingerprint: /** @type {string | undefined} */ (ids?.fingerprint) ?? null,
    auditTable: /** @type {string | undefined} */ (audit?.table) ?? null,
    fill: /** @type {string | undefined} */ (module.fill) ?? null,
    defines,
    optionSpecs,
    options: optionValuesGiven,
    config,
    clients,
    pacing,
    ramp,
    statistics,
    maintain: maintain ? async context => maintain(context) : null,
    maintainEveryS: /** @type {number | undefined} */ (module.maintainEvery) ?? 10,
    setup: async context => (setup ? setup(context) : undefined),
    initClient: async ctx => {
      if (initClient) await initClient(ctx)
    },
    scripts
  }
}

/**
 * The module's hooks, ids, audit, strings and maintenance period, checked.
 * @param {Record<string, unknown>} module
 * @param {(problem: string) => Error} fail
 */
function checkDeclarations(module, fail) {
  for (const key of HOOKS) {
    if (module[key] !== undefined && typeof module[key] !== 'function') throw fail(`${key}: expected a function`)
  }
  const ids = /** @type {{ table?: unknown, fingerprint?: unknown } | undefined} */ (module.ids)
  if (ids !== undefined && typeof ids?.table !== 'string') throw fail('ids: expected { table: "…" }')
  if (ids?.fingerprint !== undefined && (typeof ids.fingerprint !== 'string' || ids.fingerprint.trim() === '')) {
    throw fail("ids.fingerprint: expected an SQL expression over the table's row")
  }
  const audit = /** @type {{ table?: unknown } | undefined} */ (module.audit)
  if (audit !== undefined && typeof audit?.table !== 'string') throw fail('audit: expected { table: "…" }')
  const idTable = /** @type {string | undefined} */ (ids?.table) ?? null
  for (const key of ['table', 'fill', 'description']) {
    if (module[key] !== undefined && typeof module[key] !== 'string') throw fail(`${key}: expected a string`)
  }
  if (module.maintainEvery !== undefined && !(typeof module.maintainEvery === 'number' && module.maintainEvery > 0)) {
    throw fail('maintainEvery: expected seconds above 0')
  }
  return { ids, audit, idTable }
}

/**
 * Refuses a value given for an option the module does not declare.
 * @param {string} name   the workload's
 * @param {Record<string, import('./options.js').OptionSpec>} optionSpecs
 * @param {Record<string, unknown>} options
 * @param {string} optionsWhere
 */
function refuseUnknownOptions(name, optionSpecs, options, optionsWhere) {
  const unknown = Object.keys(options).filter(name => !Object.hasOwn(optionSpecs, name))
  if (unknown.length > 0) {
    throw new InputError(
      `${optionsWhere}${printable(unknown[0], 40)}: the ${name} workload has no such option${Object.keys(optionSpecs).length ? ` (its options: ${Object.keys(optionSpecs).join(', ')})` : ''}`,
      { code: 'PGLG_UNKNOWN_OPTION' }
    )
  }
}

/**
 * The module's configuration (configure), then what it says of its clients,
 * pacing, ramp and statistics; a hook that throws refuses the workload.
 * @param {WorkloadModule} hooks
 * @param {{ options: Record<string, unknown>, defines: Readonly<Record<string, string>>, seed: number | null }} given
 * @param {(problem: string) => Error} fail
 */
async function askModule(hooks, given, fail) {
  /** @template T @param {string} what @param {() => T} fn @returns {Promise<T>} */
  // a module refuses its options with a plain Error, as the contract says: here it becomes a coded one
  const refuse = async (what, fn) => {
    try {
      return await fn()
    } catch (err) {
      throw fail(`${what}${String(/** @type {Error} */ (err)?.message ?? err).split('\n')[0]}`)
    }
  }
  const config = hooks.configure
    ? await refuse('', () => /** @type {NonNullable<WorkloadModule['configure']>} */ (hooks.configure)(given))
    : undefined
  const clients = hooks.clients
    ? await refuse('clients: ', () =>
        positive(
          /** @type {NonNullable<WorkloadModule['clients']>} */ (hooks.clients)(config),
          'expected a whole number above 0',
          Number.isInteger
        )
      )
    : null
  const pacing = hooks.pacing
    ? await refuse('pacing: ', () =>
        checkPacing(/** @type {NonNullable<WorkloadModule['pacing']>} */ (hooks.pacing)(config))
      )
    : null
  const ramp = hooks.ramp
    ? await refuse('ramp: ', () => checkRamp(/** @type {NonNullable<WorkloadModule['ramp']>} */ (hooks.ramp)(config)))
    : null
  const statistics = hooks.statistics
    ? await refuse('statistics: ', () =>
        checkStatistics(/** @type {NonNullable<WorkloadModule['statistics']>} */ (hooks.statistics)(config))
      )
    : []
  return { config, clients, pacing, ramp, statistics }
}

/**
 * @param {Record<string, unknown>} module
 * @param {(problem: string) => Error} fail
 */
function checkTypes(module, fail) {
  if (!Array.isArray(module.types) || module.types.length === 0) {
    throw fail('declares no request type (types: [{ name, weight }, …])')
  }
  if (module.types.length > MAX_REQUEST_TYPES) {
    throw fail(`declares ${module.types.length} request types; at most ${MAX_REQUEST_TYPES} are allowed`)
  }
  const requests = /** @type {Record<string, unknown>} */ (module.requests ?? {})
  /** @type {string[]} */
  const types = []
  const weights = []
  const expectedErrors = []
  const functions = []
  for (const [i, spec] of module.types.entries()) {
    const name = spec?.name
    if (typeof name !== 'string' || !TYPE_NAME.test(name)) {
      throw fail(`types[${i}].name: expected a name of letters, digits, _ . - (got ${JSON.stringify(name)})`)
    }
    if (types.includes(name)) throw fail(`request type "${name}" is declared twice`)
    const weight = spec.weight ?? 1
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw fail(`types[${i}].weight: expected a number of 0 or more`)
    }
    if (spec.expectedError !== undefined && !/^[0-9A-Z]{5}$/.test(spec.expectedError)) {
      throw fail(`types[${i}].expectedError: expected a SQLSTATE such as 42883`)
    }
    if (typeof requests[name] !== 'function') {
      throw fail(`requests.${name}: missing (every request type needs a function)`)
    }
    types.push(name)
    weights.push(weight)
    expectedErrors.push(spec.expectedError ?? null)
    functions.push(/** @type {RequestFunction} */ (requests[name]))
  }
  if (!weights.some(w => w > 0)) throw fail('every request type has weight 0')
  return { types, weights, expectedErrors, functions }
}

/**
 * @param {unknown} value
 * @param {string} problem
 * @param {(n: number) => boolean} [also]
 */
function positive(value, problem, also = () => true) {
  if (typeof value !== 'number' || !(value > 0) || !also(value)) throw new Error(problem)
  return value
}

/**
 * @param {unknown} value
 * @returns {import('./contract.js').Pacing | null}
 */
function checkPacing(value) {
  if (value === null || value === undefined) return null
  const pacing = /** @type {import('./contract.js').Pacing} */ (value)
  positive(pacing.intervalS, 'intervalS: expected seconds above 0')
  if (pacing.offsetS !== undefined && typeof pacing.offsetS !== 'function') {
    throw new Error('offsetS: expected a function of the client id')
  }
  return pacing
}

/**
 * @param {unknown} value
 * @returns {import('./contract.js').Ramp | null}
 */
function checkRamp(value) {
  if (value === null || value === undefined) return null
  const ramp = /** @type {import('./contract.js').Ramp} */ (value)
  positive(ramp.everyS, 'everyS: expected seconds above 0')
  if (
    ramp.jitterS !== undefined &&
    !(typeof ramp.jitterS === 'number' && ramp.jitterS >= 0 && ramp.jitterS < ramp.everyS)
  ) {
    throw new Error('jitterS: expected seconds from 0 to below everyS')
  }
  return ramp
}

/**
 * @param {unknown} value
 * @returns {import('./contract.js').WorkloadStatistic[]}
 */
function checkStatistics(value) {
  if (!Array.isArray(value)) throw new Error('expected a list of { name, help, sql }')
  for (const [i, statistic] of value.entries()) {
    if (typeof statistic?.name !== 'string' || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(statistic.name)) {
      throw new Error(`[${i}].name: a Prometheus metric name`)
    }
    if (typeof statistic.help !== 'string' || typeof statistic.sql !== 'string') {
      throw new Error(`[${i}]: help and sql are text`)
    }
  }
  return value
}

/**
 * SQL given inline, or a file: URL to read it from.
 * @param {unknown} value
 * @param {string} key
 * @param {(problem: string) => Error} fail
 * @returns {Promise<string | null>}
 */
async function sqlOf(value, key, fail) {
  if (value === undefined || value === null) return null
  if (typeof value === 'string') return /** @type {string} */ (value)
  if (value instanceof URL) {
    try {
      return await readFile(fileURLToPath(value), 'utf8')
    } catch (err) {
      throw fail(`${key}: cannot read ${value.pathname}: ${/** @type {Error} */ (err).message}`)
    }
  }
  throw fail(`${key}: expected SQL text or a file: URL`)
}
