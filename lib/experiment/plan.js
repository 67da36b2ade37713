import { readFile } from 'node:fs/promises'
import path from 'node:path'
import YAML from 'yaml'
import { InvalidPlanError, InputError, reclassified } from '../errors.js'
import { printable, quote } from '../helpers/quote.js'
import { chooseWorkload } from '../workloads/choose.js'
import { parseRunSettings } from '../config/run-setting-checks.js'
import { settingDefault } from '../config/run-settings.js'
import { buildRunSpec } from '../lab/run-spec.js'
import { effectiveServer, expandMatrix, MAX_VARIANTS, parsePlanServer, parseVariantServer } from './plan-server.js'
import { object, positiveInteger, string } from './plan-fields.js'
import { checkCapacityWorkload } from '../capacity/plan-step.js'
import { fieldNames } from './plan-table.js'
import { parseStep } from './plan-steps.js'
import { parsePrepare } from './plan-prepare.js'
import { parseExpect, parseQuestion } from './plan-question.js'

/** @typedef {import('./plan-steps.js').Step} Step */

/**
 * @typedef {object} Plan
 * @property {string} name
 * @property {import('./plan-server.js').EmbeddedPlanServer | import('./plan-server.js').UrlPlanServer} server
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {Readonly<import('../lab/run-spec.js').RunSpec>} load  a variant's load, from the plan's settings
 *   (concurrency, mix, protocol, stats_interval, request_timeout, warmup, seed); each phase's is this one with its
 *   own clients, mix and directory (phase-session.js)
 * @property {{ init: import('../pgbench/init-options.js').InitOptions | null, rows: number | null,
 *     batches: number, batchActions: import('../sidecar/actions.js').ActionSpec[],
 *     tableBytes: number | null, seconds: number | null, concurrency: number, mix: string, actions:
 * import('../sidecar/actions.js').ActionSpec[], snapshot: string }} prepare
 *   batches: rows loaded in that many equal parts, batchActions run after each
 * @property {Array<{ name: string, steps: Step[], workload: import('../workloads/contract.js').Workload | null,
 *     server: import('./plan-server.js').EffectiveServer | null }>} variants
 *   workload: a variant's own, when it gives options of its own; server: the embedded server it runs on (null: the
 * plan's URL)
 * @property {number} repetitions
 * @property {string | null} question   the question the plan asks (null: none stated)
 * @property {import('./plan-question.js').Expectation[]} expect  the effects it expects
 */

// the fewest repetitions a confidence interval of a variant's ratios is computed from
export const DEFAULT_REPETITIONS = 3

// The fields each part of a plan takes are plan-table.js's; the run's
// settings (concurrency, mix, protocol, stats_interval, seed) among them are
// config/run-settings.js's.
const TOP = new Set(fieldNames('plan'))
const VARIANT_FIELDS = fieldNames('variants[i]')

/**
 * Reads and validates a plan. Every problem names its field; nothing runs
 * until the whole plan is valid.
 * @param {string} file
 * @returns {Promise<Plan>}
 */
export async function loadPlan(file) {
  try {
    return await readPlanFile(file)
  } catch (err) {
    throw reclassified(err, InvalidPlanError)
  }
}

/** @param {string} file */
async function readPlanFile(file) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new InputError(`cannot read plan ${file}`, { code: 'PGLG_UNREADABLE_FILE', cause: err })
  }
  let data
  try {
    // logLevel error: a YAML warning would be a second line on stderr
    data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text, { logLevel: 'error' })
  } catch (err) {
    throw new InputError(
      `plan ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ` +
        printable(String(/** @type {Error} */ (err)?.message).split('\n')[0]),
      { code: 'PGLG_UNREADABLE_FILE', cause: err }
    )
  }
  return parsePlan(data, { baseDir: path.dirname(path.resolve(file)) })
}

/**
 * @param {unknown} data
 * @param {{ baseDir: string }} options  where the plan's relative paths (a module, scripts) start
 * @returns {Promise<Plan>}
 */
export async function parsePlan(data, { baseDir }) {
  try {
    return await planOf(data, baseDir)
  } catch (err) {
    throw reclassified(err, InvalidPlanError)
  }
}

/**
 * @param {unknown} data
 * @param {string} baseDir
 * @returns {Promise<Plan>}
 */
async function planOf(data, baseDir) {
  const plan = object(data, 'plan')
  const name = planName(plan)
  const given = parseRunSettings('plan', plan, { only: ['protocol', 'seed'] })
  const planOptions = plan.options === undefined ? {} : object(plan.options, 'options')
  const seed = /** @type {number | null} */ (given.seed ?? settingDefault('seed', given))
  const protocol = /** @type {import('../config/protocol.js').Protocol} */ (
    given.protocol ?? settingDefault('protocol', given)
  )
  const workloadWith = workloadMaker(plan, { seed, protocol, baseDir })
  const workload = await workloadWith(planOptions, 'options.')
  const load = planLoad(plan, { ...given, workload, baseDir })
  const { server, combos } = serverAndMatrix(plan)
  /** @type {Set<string>} */
  const names = new Set()
  const variants = []
  for (const [i, v] of /** @type {unknown[]} */ (plan.variants).entries()) {
    const variant = await parseVariant(v, i, { planOptions, workload, workloadWith, server })
    for (const combo of combos) variants.push(await expandedVariant(variant, combo, { i, combos, server, names }))
  }
  return {
    name,
    server,
    workload,
    load,
    prepare: parsePrepare(plan.prepare, load.concurrency, workload),
    variants,
    // 3 at least for a confidence interval (results/bootstrap-interval.js); fewer only when asked
    repetitions:
      plan.repetitions === undefined ? DEFAULT_REPETITIONS : positiveInteger(plan.repetitions, 'repetitions'),
    question: parseQuestion(plan.question),
    expect: parseExpect(
      plan.expect,
      variants.map(v => v.name)
    )
  }
}

/**
 * The plan's fields all known, and its name.
 * @param {Record<string, unknown>} plan
 */
function planName(plan) {
  for (const key of Object.keys(plan))
    if (!TOP.has(key)) throw new InputError(`${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
  const name = string(plan.name, 'name')
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new InputError('name: letters, digits, dots, dashes and underscores only', { code: 'PGLG_INVALID_NAME' })
  }
  return name
}

/**
 * A maker of the plan's workload with its options, a variant's own options
 * over them.
 * @param {Record<string, unknown>} plan
 * @param {{ seed: number | null | undefined, protocol: import('../config/protocol.js').Protocol,
 *     baseDir: string }} context
 */
function workloadMaker(plan, { seed, protocol, baseDir }) {
  /**
   * @param {Record<string, unknown>} options
   * @param {string} where
   */
  return (options, where) =>
    chooseWorkload({
      workload: plan.workload === undefined ? undefined : string(plan.workload, 'workload'),
      files: stringList(plan.scripts, 'scripts'),
      builtins: stringList(plan.builtins, 'builtins'),
      defines: Object.entries(plan.defines === undefined ? {} : object(plan.defines, 'defines')).map(
        ([key, value]) => `${key}=${value}`
      ),
      scale: plan.scale === undefined ? null : positiveInteger(plan.scale, 'scale'),
      randomSeed: undefined,
      seed,
      protocol,
      options,
      optionsWhere: where,
      baseDir
    })
}

/**
 * A variant's load, from the plan's settings. Every load of a plan is
 * recorded (each phase in a directory of its own, phase-session.js), so its
 * specification is built as a recorded run's, from the plan's directory. A
 * workload that sets its clients itself refuses another number.
 * @param {Record<string, unknown>} plan
 * @param {import('../lab/run-spec.js').RunSpecGiven & { baseDir: string }} given  protocol and seed, checked
 */
function planLoad(plan, { baseDir, ...given }) {
  const { workload } = given
  const settings = parseRunSettings('plan', plan, {
    only: ['mix', 'concurrency', 'statsIntervalS', 'requestTimeoutS', 'warmupS'],
    types: workload.types
  })
  if (workload.clients !== null && settings.concurrency !== undefined && settings.concurrency !== workload.clients) {
    throw new InputError(
      `concurrency: the ${workload.name} workload sets its clients itself (${workload.clients}); leave concurrency out`,
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  return buildRunSpec({ ...given, ...settings, warmupS: settings.warmupS || null, recordDir: baseDir })
}

/**
 * The prepare phase and the variants given, the server, and the matrix's
 * combinations of servers.
 * @param {Record<string, unknown>} plan
 */
function serverAndMatrix(plan) {
  if (plan.prepare === undefined) {
    throw new InputError('prepare: missing: variants roll back to the snapshot the prepare phase takes', {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  if (!Array.isArray(plan.variants) || plan.variants.length === 0) {
    throw new InputError('variants: expected a non-empty list', { code: 'PGLG_MISSING_VALUE' })
  }
  const server = parsePlanServer(plan.server)
  const combos = expandMatrix(plan.matrix)
  if (combos.length > 1 && server.kind === 'url') {
    throw new InputError(
      'matrix: only with the embedded server (pgloadgen does not change a server it did not start)',
      { code: 'PGLG_EMBEDDED_ONLY' }
    )
  }
  if (/** @type {unknown[]} */ (plan.variants).length * combos.length > MAX_VARIANTS) {
    throw new InputError(
      `matrix: ${plan.variants.length} variants × ${combos.length} combinations is more than ${MAX_VARIANTS} variants`,
      { code: 'PGLG_INVALID_NUMBER' }
    )
  }
  return { server, combos }
}

/**
 * One variant as the plan gives it: its name, its workload when it has
 * options of its own, its steps and its server.
 * @param {unknown} v
 * @param {number} i
 * @param {{ planOptions: Record<string, unknown>, workload: import('../workloads/contract.js').Workload,
 *     workloadWith: ReturnType<typeof workloadMaker>, server: ReturnType<typeof parsePlanServer> }} context
 */
async function parseVariant(v, i, { planOptions, workload, workloadWith, server }) {
  const variant = object(v, `variants[${i}]`)
  for (const key of Object.keys(variant)) {
    if (!VARIANT_FIELDS.includes(key)) {
      throw new InputError(`variants[${i}].${printable(key, 40)}: unknown field`, { code: 'PGLG_UNKNOWN_OPTION' })
    }
  }
  const variantName = string(variant.name, `variants[${i}].name`)
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(variantName)) {
    throw new InputError(`variants[${i}].name: letters, digits, dots, dashes and underscores only`, {
      code: 'PGLG_INVALID_NAME'
    })
  }
  if (!Array.isArray(variant.steps) || variant.steps.length === 0) {
    throw new InputError(`variants[${i}].steps: expected a non-empty list`, { code: 'PGLG_MISSING_VALUE' })
  }
  // A variant with options of its own runs the workload made with them,
  // on tables made afresh (the snapshot's have the plan's shape).
  const own =
    variant.options === undefined
      ? null
      : await workloadWith(
          { ...planOptions, ...object(variant.options, `variants[${i}].options`) },
          `variants[${i}].options.`
        )
  const steps = Array.from(variant.steps, (s, j) => parseStep(s, `variants[${i}].steps[${j}]`))
  for (const step of steps) if (step.capacity) checkCapacityWorkload(step.capacity, own ?? workload, step.label)
  const ownServer = parseVariantServer(variant.server, `variants[${i}].server`)
  if (ownServer && server.kind === 'url') {
    throw new InputError(
      `variants[${i}].server: only with the embedded server (pgloadgen does not change a server it did not start)`,
      { code: 'PGLG_EMBEDDED_ONLY' }
    )
  }
  return { variantName, own, steps, ownServer }
}

/**
 * A variant on one combination of the matrix: its full name (used once),
 * and its server, the matrix's settings over the variant's.
 * @param {Awaited<ReturnType<typeof parseVariant>>} variant
 * @param {ReturnType<typeof expandMatrix>[number]} combo
 * @param {{ i: number, combos: ReturnType<typeof expandMatrix>, server: ReturnType<typeof parsePlanServer>,
 *     names: Set<string> }} context
 */
async function expandedVariant({ variantName, own, steps, ownServer }, combo, { i, combos, server, names }) {
  const fullName = variantName + combo.suffix
  if (names.has(fullName)) {
    throw new InputError(`variants[${i}].name: ${quote(fullName)} is used twice`, { code: 'PGLG_INVALID_NAME' })
  }
  names.add(fullName)
  for (const key of /** @type {const} */ (['version', 'profile'])) {
    if (ownServer?.[key] !== undefined && combo.server[key] !== undefined) {
      throw new InputError(`variants[${i}].server.${key}: the matrix sets it too`, {
        code: 'PGLG_CONFLICTING_OPTIONS'
      })
    }
  }
  const field = combos.length > 1 ? `variants[${i}] (${fullName}).server` : `variants[${i}].server`
  const merged = { ...ownServer, ...combo.server, settings: { ...ownServer?.settings, ...combo.server.settings } }
  return {
    name: fullName,
    steps,
    workload: own,
    server: server.kind === 'url' ? null : await effectiveServer(server, merged, field)
  }
}

/**
 * @param {unknown} value
 * @param {string} field
 * @returns {string[]}
 */
function stringList(value, field) {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some(item => typeof item !== 'string' || item === '')) {
    throw new InputError(`${field}: expected a list of strings`, { code: 'PGLG_INVALID_VALUE' })
  }
  return value
}
