import { readFile } from 'node:fs/promises'
import path from 'node:path'
import YAML from 'yaml'
import { InvalidPlanError, InputError, reclassified } from '../errors.js'
import { printable, quote, shown } from '../helpers/quote.js'
import { formatMix, mixOf } from '../config/mix.js'
import { chooseWorkload } from '../workloads/choose.js'
import { MAX_CONCURRENCY } from '../config/run-settings.js'
import { checkSetting, parseRunSettings } from '../config/run-setting-checks.js'
import { parseInitOptions, InitOptionError } from '../pgbench/init.js'
import { checkAction, ACTIONS } from '../sidecar/actions.js'
import { parseOffset } from '../helpers/durations.js'
import { parseCondition } from '../sidecar/conditions.js'
import { parseQuantity } from '../helpers/durations.js'
import { checkSnapshotName } from '../snapshot/names.js'
import { MAX_TIMER_S } from '../helpers/durations.js'
import { effectiveServer, expandMatrix, MAX_VARIANTS, parsePlanServer, parseVariantServer } from './plan-server.js'
import { object, string, wrap } from './plan-fields.js'
import { checkCapacityWorkload, parseCapacityStep } from '../capacity/plan-step.js'
import { fieldNames, STEP_FIELDS } from './plan-table.js'

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

/**
 * @typedef {object} Plan
 * @property {string} name
 * @property {import('./plan-server.js').EmbeddedPlanServer | import('./plan-server.js').UrlPlanServer} server
 * @property {import('../workloads/contract.js').Workload} workload
 * @property {'prepared' | 'extended' | 'simple'} protocol
 * @property {string} mix
 * @property {number} concurrency
 * @property {number} statsIntervalS
 * @property {number | null} requestTimeoutS  request_timeout (null: off)
 * @property {number | null} warmupS   warmup: the first seconds of each variant's load, kept out of its summary (null:
 *   none)
 * @property {number | null} seed   the clients' random numbers and the workload's data (null: random)
 * @property {{ init: import('../pgbench/init-options.js').InitOptions | null, rows: number | null,
 *     tableBytes: number | null, seconds: number | null, concurrency: number, mix: string, actions:
 * import('../sidecar/actions.js').ActionSpec[], snapshot: string }} prepare
 * @property {Array<{ name: string, steps: Step[], workload: import('../workloads/contract.js').Workload | null,
 *     server: import('./plan-server.js').EffectiveServer | null }>} variants
 *   workload: a variant's own, when it gives options of its own; server: the embedded server it runs on (null: the
 * plan's URL)
 * @property {number} repetitions
 */

// the fewest repetitions a confidence interval of a variant's ratios is computed from
export const DEFAULT_REPETITIONS = 3

// The fields each part of a plan takes are plan-table.js's; the run's
// settings (concurrency, mix, protocol, stats_interval, seed) among them are
// config/run-settings.js's.
const TOP = new Set(fieldNames('plan'))
const VARIANT_FIELDS = fieldNames('variants[i]')
const PREPARE_FIELDS = fieldNames('prepare')
const PGBENCH_INIT_FIELDS = fieldNames('prepare.pgbench_init')
const ACTION_SPEC_FIELDS = fieldNames('action')

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
    throw new InputError(`cannot read plan ${file}`, { cause: err })
  }
  let data
  try {
    // logLevel error: a YAML warning would be a second line on stderr
    data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text, { logLevel: 'error' })
  } catch (err) {
    throw new InputError(
      `plan ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ` +
        printable(String(/** @type {Error} */ (err)?.message).split('\n')[0]),
      { cause: err }
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
  for (const key of Object.keys(plan)) if (!TOP.has(key)) throw new InputError(`${printable(key, 40)}: unknown field`)
  const name = string(plan.name, 'name')
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new InputError('name: letters, digits, dots, dashes and underscores only')
  }
  const { protocol, seed } = parseRunSettings('plan', plan, { only: ['protocol', 'seed'] })
  const planOptions = plan.options === undefined ? {} : object(plan.options, 'options')
  /**
   * The plan's workload with its options, a variant's own options over them.
   * @param {Record<string, unknown>} options
   * @param {string} where
   */
  const workloadWith = (options, where) =>
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
  const workload = await workloadWith(planOptions, 'options.')
  const settings = parseRunSettings('plan', plan, {
    only: ['mix', 'concurrency', 'statsInterval', 'requestTimeout', 'warmup'],
    types: workload.types,
    defaults: workload.clients === null ? {} : { concurrency: workload.clients }
  })
  const mix =
    plan.mix === undefined ? formatMix(mixOf(workload.types, workload.weights)) : /** @type {string} */ (plan.mix)
  const concurrency = /** @type {number} */ (settings.concurrency)
  if (workload.clients !== null && concurrency !== workload.clients) {
    throw new InputError(
      `concurrency: the ${workload.name} workload sets its clients itself (${workload.clients}); leave concurrency out`
    )
  }
  const statsIntervalS = /** @type {number} */ (settings.statsInterval)
  if (plan.prepare === undefined) {
    throw new InputError('prepare: missing: variants roll back to the snapshot the prepare phase takes')
  }
  if (!Array.isArray(plan.variants) || plan.variants.length === 0) {
    throw new InputError('variants: expected a non-empty list')
  }
  const server = parsePlanServer(plan.server)
  const combos = expandMatrix(plan.matrix)
  if (combos.length > 1 && server.kind === 'url') {
    throw new InputError('matrix: only with the embedded server (pgloadgen does not change a server it did not start)')
  }
  if (plan.variants.length * combos.length > MAX_VARIANTS) {
    throw new InputError(
      `matrix: ${plan.variants.length} variants × ${combos.length} combinations is more than ${MAX_VARIANTS} variants`
    )
  }
  const names = new Set()
  const variants = []
  for (const [i, v] of plan.variants.entries()) {
    const variant = object(v, `variants[${i}]`)
    for (const key of Object.keys(variant)) {
      if (!VARIANT_FIELDS.includes(key)) throw new InputError(`variants[${i}].${printable(key, 40)}: unknown field`)
    }
    const variantName = string(variant.name, `variants[${i}].name`)
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(variantName)) {
      throw new InputError(`variants[${i}].name: letters, digits, dots, dashes and underscores only`)
    }
    if (!Array.isArray(variant.steps) || variant.steps.length === 0) {
      throw new InputError(`variants[${i}].steps: expected a non-empty list`)
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
        `variants[${i}].server: only with the embedded server (pgloadgen does not change a server it did not start)`
      )
    }
    for (const combo of combos) {
      const fullName = variantName + combo.suffix
      if (names.has(fullName)) throw new InputError(`variants[${i}].name: ${quote(fullName)} is used twice`)
      names.add(fullName)
      for (const key of /** @type {const} */ (['version', 'profile'])) {
        if (ownServer?.[key] !== undefined && combo.server[key] !== undefined) {
          throw new InputError(`variants[${i}].server.${key}: the matrix sets it too`)
        }
      }
      const field = combos.length > 1 ? `variants[${i}] (${fullName}).server` : `variants[${i}].server`
      const merged = { ...ownServer, ...combo.server, settings: { ...ownServer?.settings, ...combo.server.settings } }
      variants.push({
        name: fullName,
        steps,
        workload: own,
        server: server.kind === 'url' ? null : await effectiveServer(server, merged, field)
      })
    }
  }
  return {
    name,
    server,
    workload,
    protocol,
    mix,
    concurrency,
    statsIntervalS,
    requestTimeoutS: /** @type {number | null} */ (settings.requestTimeout),
    warmupS: /** @type {number | null} */ (settings.warmup) || null,
    seed: /** @type {number | null} */ (seed),
    prepare: parsePrepare(plan.prepare, concurrency, workload),
    variants,
    // 3 at least for a confidence interval (results/bootstrap-interval.js); fewer only when asked
    repetitions: plan.repetitions === undefined ? DEFAULT_REPETITIONS : positiveInteger(plan.repetitions, 'repetitions')
  }
}

/**
 * @param {unknown} value
 * @param {number} concurrency
 * @param {import('../workloads/contract.js').Workload} workload
 */
function parsePrepare(value, concurrency, workload) {
  const prepare = object(value, 'prepare')
  for (const key of Object.keys(prepare)) {
    if (!PREPARE_FIELDS.includes(key)) throw new InputError(`prepare.${printable(key, 40)}: unknown field`)
  }
  // pgbench's tables, created and filled before the load (pgloadgen init's options).
  const init = prepare.pgbench_init === undefined ? null : parsePgbenchInit(prepare.pgbench_init)
  const rows = prepare.rows === undefined ? null : positiveInteger(prepare.rows, 'prepare.rows')
  const tableBytes =
    prepare.table_size === undefined ? null : parseQuantity(String(prepare.table_size), 'prepare.table_size')
  const seconds = prepare.duration === undefined ? null : parseOffset(prepare.duration, 'prepare.duration')
  if (rows === null && tableBytes === null && seconds === null) {
    throw new InputError('prepare: give rows, table_size or duration: when to take the snapshot')
  }
  if ((rows !== null || tableBytes !== null) && workload.table === null) {
    throw new InputError(
      `prepare: rows and table_size measure the workload's table, and ${workload.name} declares none; give duration`
    )
  }
  // By default the prepare phase grows the table with the workload's own
  // filling mix (insert_row=1 for manta and timeseries), else its default mix.
  const mix =
    prepare.mix === undefined
      ? (workload.fill ?? formatMix(mixOf(workload.types, workload.weights)))
      : /** @type {string} */ (prepare.mix)
  if (prepare.mix !== undefined) checkSetting('mix', prepare.mix, 'prepare.mix', { types: workload.types })
  if (prepare.actions !== undefined && !Array.isArray(prepare.actions)) {
    throw new InputError('prepare.actions: expected a list of actions')
  }
  // Run after the load and before the snapshot: a VACUUM here gives every
  // variant a table whose pages are all-visible, as days of autovacuum do.
  const actions = Array.from(prepare.actions ?? [], (/** @type {unknown} */ a, /** @type {number} */ i) =>
    parseActionSpec(a, `prepare.actions[${i}]`)
  )
  return {
    init,
    rows,
    tableBytes,
    seconds,
    concurrency:
      prepare.concurrency === undefined
        ? concurrency
        : checkSetting('concurrency', prepare.concurrency, 'prepare.concurrency'),
    mix,
    actions,
    snapshot:
      prepare.snapshot === undefined ? 'prepared' : wrap('prepare.snapshot', () => checkSnapshotName(prepare.snapshot))
  }
}

/**
 * prepare.pgbench_init: { scale, fillfactor, foreign_keys, unlogged, init_steps, partitions, partition_method }
 * @param {unknown} value
 */
function parsePgbenchInit(value) {
  const init = object(value, 'prepare.pgbench_init')
  const known = PGBENCH_INIT_FIELDS
  for (const key of Object.keys(init))
    if (!known.includes(key))
      throw new InputError(`prepare.pgbench_init.${printable(key, 40)}: unknown field (known: ${known.join(', ')})`)
  try {
    return parseInitOptions({
      scale: /** @type {any} */ (init.scale),
      fillfactor: /** @type {any} */ (init.fillfactor),
      foreignKeys: init.foreign_keys === true,
      unlogged: init.unlogged === true,
      initSteps: /** @type {any} */ (init.init_steps),
      partitions: /** @type {any} */ (init.partitions),
      partitionMethod: /** @type {any} */ (init.partition_method)
    })
  } catch (err) {
    if (err instanceof InitOptionError) throw new InputError(`prepare.pgbench_init: ${err.message}`, { cause: err })
    throw err
  }
}

const STEP_KINDS = Object.keys(STEP_FIELDS)
// every field some kind of step takes: a key that is none of them is an unknown step
const STEP_FIELD_NAMES = [...new Set(Object.values(STEP_FIELDS).flatMap(fields => Object.keys(fields)))]

/**
 * @param {unknown} value
 * @param {string} label
 * @returns {Step}
 */
function parseStep(value, label) {
  const step = object(value, label)
  // a load step may give its concurrency too: then concurrency is its field, not a step
  const kinds = STEP_KINDS.filter(
    k => step[k] !== undefined && !(k === 'concurrency' && (step.load !== undefined || step.capacity !== undefined))
  )
  if (step.ramp !== undefined && step.load === undefined) {
    throw new InputError(`${label}.ramp: a field of a load step, which it ramps over (load: 2m, ramp: 32)`)
  }
  if (kinds.length !== 1) {
    const unknown = Object.keys(step).find(k => !STEP_KINDS.includes(k) && !STEP_FIELD_NAMES.includes(k))
    if (unknown && kinds.length === 0) {
      throw new InputError(`${label}: unknown step ${quote(unknown)} (steps: ${STEP_KINDS.join(', ')})`)
    }
    throw new InputError(`${label}: give exactly one of ${STEP_KINDS.join(', ')}`)
  }
  const kind = /** @type {Step['kind']} */ (kinds[0])
  const allowed = Object.keys(STEP_FIELDS[kind])
  for (const key of Object.keys(step))
    if (!allowed.includes(key)) throw new InputError(`${label}.${printable(key, 40)}: not a field of a ${kind} step`)
  switch (kind) {
    case 'load':
      // a ramp starts from the clients there are: a concurrency to start from is a step of its own
      if (step.ramp !== undefined && step.concurrency !== undefined) {
        throw new InputError(
          `${label}: give concurrency or ramp, not both (a ramp starts from the clients running; ` +
            `put a concurrency step before it)`
        )
      }
      return {
        kind,
        label,
        seconds: timer(parseOffset(step.load, `${label}.load`), `${label}.load`),
        ...(step.concurrency !== undefined && {
          concurrency: checkSetting('concurrency', step.concurrency, `${label}.concurrency`)
        }),
        ...(step.ramp !== undefined && { ramp: checkSetting('concurrency', step.ramp, `${label}.ramp`) })
      }
    case 'concurrency': {
      const text = String(step.concurrency)
      const factor = /^x(\d+(?:\.\d+)?)$/.exec(text)
      if (factor) {
        const n = Number(factor[1])
        if (!(n > 0 && n <= MAX_CONCURRENCY)) {
          throw new InputError(
            `${label}.concurrency: a factor above 0 and at most ${MAX_CONCURRENCY}, like x2 or x0.5, got ${quote(text)}`
          )
        }
        return { kind, label, factor: n }
      }
      return { kind, label, concurrency: checkSetting('concurrency', step.concurrency, `${label}.concurrency`) }
    }
    case 'action':
      return { kind, label, action: parseActionSpec(step.action, `${label}.action`) }
    case 'capacity':
      return { kind, label, capacity: parseCapacityStep(step, label) }
    default: {
      if (typeof step.wait !== 'string') {
        throw new InputError(
          `${label}.wait: action, or a condition like "dead_fraction(test_table) < 0.05", got ${shown(step.wait)}`
        )
      }
      const until = step.wait === 'action' ? 'action' : parseCondition(step.wait, `${label}.wait`)
      return {
        kind,
        label,
        until,
        timeoutS:
          step.timeout === undefined ? 3600 : timer(parseOffset(step.timeout, `${label}.timeout`), `${label}.timeout`)
      }
    }
  }
}

/**
 * A sidecar action as a plan gives it: { action: vacuum, table: T, freeze: true },
 * or retention: { action: delete, table: T, older_than: 10m, yes: true }.
 * @param {unknown} value
 * @param {string} field
 * @returns {import('../sidecar/actions.js').ActionSpec}
 */
function parseActionSpec(value, field) {
  const raw = object(value, field)
  for (const key of Object.keys(raw)) {
    if (!ACTION_SPEC_FIELDS.includes(key)) throw new InputError(`${field}.${printable(key, 40)}: unknown field`)
  }
  if (!ACTIONS.includes(/** @type {any} */ (raw.action)))
    throw new InputError(`${field}.action: one of ${ACTIONS.join(', ')}`)
  const spec = /** @type {import('../sidecar/actions.js').ActionSpec} */ (raw)
  checkAction(spec, field)
  return spec
}

/**
 * @param {unknown} value
 * @param {string} field
 * @returns {string[]}
 */
function stringList(value, field) {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some(item => typeof item !== 'string' || item === '')) {
    throw new InputError(`${field}: expected a list of strings`)
  }
  return value
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {number} [max]
 */
function positiveInteger(value, field, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || /** @type {number} */ (value) < 1)
    throw new InputError(`${field}: expected a whole number above 0, got ${shown(value)}`)
  if (/** @type {number} */ (value) > max) throw new InputError(`${field}: at most ${max}, got ${shown(value)}`)
  return /** @type {number} */ (value)
}

/**
 * Seconds a step waits with a timer, within what setTimeout can wait.
 * @param {number} seconds
 * @param {string} field
 */
function timer(seconds, field) {
  if (seconds > MAX_TIMER_S) {
    throw new InputError(`${field}: at most ${MAX_TIMER_S} seconds (about 24 days), got ${seconds}`)
  }
  return seconds
}
