import { readFile, readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'

// Reads what the recorder and the experiment runner wrote: run directories
// (run.json, samples.ndjson, events.ndjson, summary.json) and experiment
// directories (experiment.json, prepare/, variants/<name>/rep-<n>/).

/** @typedef {import('../recorder/records.js').RequestFigures} RequestFigures */
/** @typedef {import('../recorder/records.js').VacuumFigures} VacuumFigures */
/** @typedef {import('../recorder/records.js').PgFigures} PgFigures */
/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/records.js').ServerFigures} ServerFigures */
/** @typedef {import('../recorder/records.js').LabEvent} LabEvent */

/**
 * @typedef {object} RunInfo
 * @property {string} [pgloadgen_version]
 * @property {string | null} [postgres_version]
 * @property {string} [started_at]
 * @property {string} [ended_at]
 * @property {string} [workload]
 * @property {string} [table]
 * @property {number} [concurrency]
 * @property {string} [mode]
 * @property {Record<string, unknown>} [args]
 * @property {Record<string, string>} [settings]
 * @property {string} [label]
 * @property {string} [target]      the server's URL, without secrets
 * @property {string} [mix]
 * @property {string[]} [types]    the workload's request types, in its order
 * @property {string} [t0]
 */

/**
 * @typedef {object} RunData
 * @property {string} dir
 * @property {RunInfo} info
 * @property {Sample[]} samples    in time order
 * @property {LabEvent[]} events   in time order
 * @property {Record<string, any> | null} summary
 * @property {number} t0           epoch ms of the time axis' zero
 */

/**
 * @typedef {object} ExperimentInfo
 * @property {string} [name]
 * @property {Record<string, any>} [plan]
 * @property {string} [started_at]
 * @property {string} [ended_at]
 * @property {string} [pgloadgen_version]
 * @property {string | null} [postgres_version]
 * @property {boolean} [interrupted]
 */

/**
 * @typedef {object} VariantData
 * @property {string} name
 * @property {RunData[]} repetitions   in repetition order
 */

/**
 * @typedef {object} ExperimentData
 * @property {string} dir
 * @property {ExperimentInfo} info
 * @property {RunData | null} prepare
 * @property {VariantData[]} variants
 */

/**
 * What DIR holds: an experiment (experiment.json) or a run (run.json).
 * @param {string} dir
 * @returns {Promise<'experiment' | 'run'>}
 */
export async function directoryKind(dir) {
  const info = await stat(dir).catch(() => null)
  if (!info) throw new InputError(`no such directory: ${dir}`, { code: 'PGLG_INVALID_RUN_DIR' })
  if (!info.isDirectory()) throw new InputError(`not a directory: ${dir}`, { code: 'PGLG_INVALID_RUN_DIR' })
  if (await exists(path.join(dir, 'experiment.json'))) return 'experiment'
  if (await exists(path.join(dir, 'run.json'))) return 'run'
  throw new InputError(`${dir} is neither a run directory (run.json) nor an experiment directory (experiment.json)`, {
    code: 'PGLG_INVALID_RUN_DIR'
  })
}

/**
 * @param {string} dir
 * @returns {Promise<RunData>}
 */
export async function readRun(dir) {
  const info = /** @type {RunInfo} */ (await readJson(path.join(dir, 'run.json')))
  const samples = /** @type {Sample[]} */ (await readNdjson(path.join(dir, 'samples.ndjson')))
    .filter(s => s && typeof s.t === 'string' && Number.isFinite(Date.parse(s.t)))
    .sort((a, b) => Date.parse(a.t) - Date.parse(b.t))
  const events = /** @type {LabEvent[]} */ (await readNdjson(path.join(dir, 'events.ndjson')))
    .filter(e => e && typeof e.ts === 'string' && Number.isFinite(Date.parse(e.ts)) && typeof e.action === 'string')
    .sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))
  const summaryFile = path.join(dir, 'summary.json')
  const summary = (await exists(summaryFile)) ? await readJson(summaryFile) : null
  const t0 = firstTime(info.t0, info.started_at, samples[0]?.t, events[0]?.ts) ?? 0
  return { dir, info, samples, events, summary, t0 }
}

/**
 * @param {string} dir
 * @returns {Promise<ExperimentData>}
 */
export async function readExperiment(dir) {
  const info = /** @type {ExperimentInfo} */ (await readJson(path.join(dir, 'experiment.json')))
  const prepareDir = path.join(dir, 'prepare')
  const prepare = (await exists(path.join(prepareDir, 'run.json'))) ? await readRun(prepareDir) : null
  const variantsDir = path.join(dir, 'variants')
  const names = (await exists(variantsDir)) ? await subdirectories(variantsDir) : []
  // The plan's order when the plan lists its variants; others after, by name.
  const planned = Array.isArray(info.plan?.variants)
    ? info.plan.variants.map((/** @type {any} */ v) => String(v?.name))
    : []
  names.sort((a, b) => rank(planned, a) - rank(planned, b) || a.localeCompare(b))
  /** @type {VariantData[]} */
  const variants = []
  for (const name of names) {
    const reps = (await subdirectories(path.join(variantsDir, name)))
      .filter(rep => /^rep-\d+$/.test(rep))
      .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
    /** @type {RunData[]} */
    const repetitions = []
    for (const rep of reps) {
      const repDir = path.join(variantsDir, name, rep)
      if (await exists(path.join(repDir, 'run.json'))) repetitions.push(await readRun(repDir))
    }
    variants.push({ name, repetitions })
  }
  return { dir, info, prepare, variants }
}

/**
 * @param {string[]} order
 * @param {string} name
 */
function rank(order, name) {
  const i = order.indexOf(name)
  return i === -1 ? order.length : i
}

/** @param {(string | undefined)[]} candidates */
function firstTime(...candidates) {
  for (const c of candidates) {
    const ms = typeof c === 'string' ? Date.parse(c) : NaN
    if (Number.isFinite(ms)) return ms
  }
  return null
}

/** @param {string} file */
async function exists(file) {
  return stat(file).then(
    () => true,
    () => false
  )
}

/** @param {string} dir */
async function subdirectories(dir) {
  const entries = await readdir(dir, { withFileTypes: true })
  return entries.filter(e => e.isDirectory()).map(e => e.name)
}

/**
 * @param {string} file
 * @returns {Promise<any>}
 */
async function readJson(file) {
  const text = await readFile(file, 'utf8').catch(err => {
    throw new InputError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`, {
      code: 'PGLG_INVALID_RUN_DIR',
      cause: err
    })
  })
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new InputError(`${file} is not valid JSON: ${/** @type {Error} */ (err).message}`, {
      code: 'PGLG_INVALID_RUN_DIR',
      cause: err
    })
  }
}

/**
 * The objects of an NDJSON file; a missing file is empty, and a line that
 * does not parse (the last one, cut by a crash) is skipped.
 * @param {string} file
 * @returns {Promise<any[]>}
 */
async function readNdjson(file) {
  const text = await readFile(file, 'utf8').catch(err => {
    if (err.code === 'ENOENT') return ''
    throw new InputError(`cannot read ${file}: ${err.message}`, { code: 'PGLG_INVALID_RUN_DIR', cause: err })
  })
  const out = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line))
    } catch {
      // a torn line: the rest of the file still counts
    }
  }
  return out
}
