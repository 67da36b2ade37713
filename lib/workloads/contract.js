import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { UsageError } from '../errors.js'

// The largest number of request types a workload may declare: each one is a
// value of the `type` label on every per-type metric (and twice on the
// latency histogram), so the number of series stays bounded.
export const MAX_REQUEST_TYPES = 64
// Request type names go into --mix ("a=1,b=2"), metric labels and file
// names of reports: no separators, no spaces.
const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,62}$/

/**
 * What a workload module exports (as its default export): its schema, its
 * request types and default mix, and one function per request type. See
 * README "Workload modules".
 * @typedef {object} WorkloadModule
 * @property {string} name
 * @property {string} [description]
 * @property {string | URL} [schema]   SQL that creates what is missing (idempotent), or a file: URL of it
 * @property {string | URL} [drop]     SQL that drops everything the schema creates (for --reset)
 * @property {string} [table]          the table the lab watches: recorded samples, plans' table_size
 * @property {{ table: string }} [ids] the table has a dense bigint `id` from a sequence: enables ctx.ids and the acknowledged-insert check
 * @property {string} [fill]           the mix that grows the table, for an experiment's prepare phase
 * @property {RequestTypeSpec[]} types
 * @property {Record<string, RequestFunction>} requests
 * @property {(defines: Readonly<Record<string, string>>) => unknown} [configure]  at start, before any connection: checks -D settings (throw to refuse them) and returns ctx.config
 * @property {(context: SetupContext) => unknown} [setup]       once per run, after the schema; what it returns is ctx.shared
 * @property {(ctx: ClientContext) => unknown} [initClient]    once per client, before its first request
 */

/**
 * @typedef {object} RequestTypeSpec
 * @property {string} name
 * @property {number} weight          default weight in the mix
 * @property {string} [expectedError] SQLSTATE of failures that are expected (an error probe): counted, never unexpected
 */

/**
 * A request: resolves when done; false means it found nothing to work on
 * (counted as not_found, not as a failure); a rejection is a failure.
 * @typedef {(db: import('./db.js').Db, ctx: ClientContext) => Promise<boolean | void>} RequestFunction
 */

/**
 * @typedef {object} SetupContext
 * @property {(text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>} sql  runs a statement on the setup connection, returns its rows
 * @property {Readonly<Record<string, string>>} defines   -D NAME=VALUE
 * @property {unknown} config      what configure() returned
 * @property {number} concurrency   the clients the run starts with
 * @property {import('../log.js').Logger} log
 */

/**
 * @typedef {object} ClientContext
 * @property {number} clientId      0 for the first client, 1 for the next, …
 * @property {unknown} config       what configure() returned
 * @property {unknown} shared       what setup() returned
 * @property {Record<string, any>} state   this client's own, kept across reconnects
 * @property {Readonly<Record<string, string>>} defines
 * @property {import('../generator/run-state.js').RunState} ids   the dense-id bookkeeping (only with `ids`)
 */

/**
 * A workload as the generator uses it: checked, with its types in order.
 * @typedef {object} Workload
 * @property {string} name
 * @property {string} description
 * @property {string} source                where it came from: "built-in", a file, or the scripts
 * @property {string[]} types
 * @property {number[]} weights             default weights, by type index
 * @property {Array<string | null>} expectedErrors  by type index
 * @property {RequestFunction[]} requests   by type index
 * @property {string | null} schemaSql
 * @property {string | null} dropSql
 * @property {string | null} table
 * @property {string | null} idTable
 * @property {string | null} fill
 * @property {Readonly<Record<string, string>>} defines  -D settings it was configured with
 * @property {unknown} config              what configure() returned
 * @property {(context: SetupContext) => Promise<unknown>} setup
 * @property {(ctx: ClientContext) => Promise<void>} initClient
 * @property {boolean} scripts              made of pgbench scripts
 */

/**
 * Checks what a module declares and returns the workload the generator
 * runs, its schema files read. Every problem is one line naming the source.
 * @param {unknown} value    the module's default export
 * @param {string} source
 * @param {{ scripts?: boolean, defines?: Readonly<Record<string, string>> }} [options]
 * @returns {Promise<Workload>}
 */
export async function checkWorkload (value, source, { scripts = false, defines = {} } = {}) {
  const fail = (/** @type {string} */ problem) => new UsageError(`workload ${source}: ${problem}`)
  if (typeof value !== 'object' || value === null) throw fail('the module has no default export object (export default { name, types, requests, … })')
  const module = /** @type {Record<string, unknown>} */ (value)
  if (typeof module.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(module.name)) throw fail('name: expected letters, digits, dots, dashes or underscores')
  if (!Array.isArray(module.types) || module.types.length === 0) throw fail('declares no request type (types: [{ name, weight }, …])')
  if (module.types.length > MAX_REQUEST_TYPES) throw fail(`declares ${module.types.length} request types; at most ${MAX_REQUEST_TYPES} are allowed`)
  const requests = /** @type {Record<string, unknown>} */ (module.requests ?? {})
  /** @type {string[]} */
  const types = []
  const weights = []
  const expectedErrors = []
  const functions = []
  for (const [i, spec] of module.types.entries()) {
    const name = spec?.name
    if (typeof name !== 'string' || !TYPE_NAME.test(name)) throw fail(`types[${i}].name: expected a name of letters, digits, _ . - (got ${JSON.stringify(name)})`)
    if (types.includes(name)) throw fail(`request type "${name}" is declared twice`)
    const weight = spec.weight ?? 1
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) throw fail(`types[${i}].weight: expected a number of 0 or more`)
    if (spec.expectedError !== undefined && !/^[0-9A-Z]{5}$/.test(spec.expectedError)) throw fail(`types[${i}].expectedError: expected a SQLSTATE such as 42883`)
    if (typeof requests[name] !== 'function') throw fail(`requests.${name}: missing (every request type needs a function)`)
    types.push(name)
    weights.push(weight)
    expectedErrors.push(spec.expectedError ?? null)
    functions.push(/** @type {RequestFunction} */ (requests[name]))
  }
  if (!weights.some(w => w > 0)) throw fail('every request type has weight 0')
  for (const key of ['configure', 'setup', 'initClient']) {
    if (module[key] !== undefined && typeof module[key] !== 'function') throw fail(`${key}: expected a function`)
  }
  const ids = /** @type {{ table?: unknown } | undefined} */ (module.ids)
  if (ids !== undefined && typeof ids?.table !== 'string') throw fail('ids: expected { table: "…" }')
  const idTable = /** @type {string | undefined} */ (ids?.table) ?? null
  for (const key of ['table', 'fill', 'description']) {
    if (module[key] !== undefined && typeof module[key] !== 'string') throw fail(`${key}: expected a string`)
  }
  const schemaSql = await sqlOf(module.schema, 'schema', fail)
  const dropSql = await sqlOf(module.drop, 'drop', fail)
  const configure = /** @type {WorkloadModule['configure']} */ (module.configure)
  let config
  try {
    config = configure ? await configure(defines) : undefined
  } catch (err) {
    throw fail(String(/** @type {Error} */ (err)?.message ?? err).split('\n')[0])
  }
  const setup = /** @type {WorkloadModule['setup']} */ (module.setup)
  const initClient = /** @type {WorkloadModule['initClient']} */ (module.initClient)
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
    fill: /** @type {string | undefined} */ (module.fill) ?? null,
    defines,
    config,
    setup: async (context) => setup ? setup(context) : undefined,
    initClient: async (ctx) => { if (initClient) await initClient(ctx) },
    scripts
  }
}

/**
 * SQL given inline, or a file: URL to read it from.
 * @param {unknown} value
 * @param {string} key
 * @param {(problem: string) => Error} fail
 * @returns {Promise<string | null>}
 */
async function sqlOf (value, key, fail) {
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
