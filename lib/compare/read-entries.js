import path from 'node:path'
import { InputError } from '../errors.js'
import { readRun } from '../results/read.js'
import { histogramFromJson } from '../summary/histogram-field.js'
import { resolveEntryPath } from './entry-paths.js'

// The entries of `pgloadgen compare`, read and checked before any figure
// is computed: at least two, each a recorded run or an experiment's
// variant whose repetitions all ended, every summary with raw histograms
// of one bucket layout (their percentiles are merged exactly), and all of
// one workload unless forced. Every refusal is one line (exit 2).

/**
 * @typedef {object} Entry
 * @property {string} letter       A, B, C …: A is the baseline
 * @property {import('./entry-paths.js').EntryPath} source
 * @property {string} name         the run directory's name, or EXPDIR:VARIANT
 * @property {string} workload
 * @property {import('../results/read.js').RunData[]} runs   its repetitions (one for a run)
 * @property {Record<string, any>[]} summaries              their summary.json, in the same order
 */

/**
 * @param {string[]} args
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<Entry[]>}
 */
export async function readEntries(args, { force = false } = {}) {
  if (args.length < 2) {
    throw new InputError(
      `compare: give at least two entries (run directories or EXPDIR:VARIANT), the first the baseline; got ${args.length}`,
      { code: 'PGLG_MISSING_VALUE' }
    )
  }
  const sources = []
  for (const arg of args) sources.push(await resolveEntryPath(arg))
  /** @type {Entry[]} */
  const entries = []
  for (const [i, source] of sources.entries()) {
    const runs = []
    for (const dir of source.runDirs) runs.push(await readRun(dir))
    const summaries = runs.map(run => checkedSummary(run))
    const workloads = [...new Set(runs.map((run, j) => String(summaries[j].workload ?? run.info.workload)))]
    if (workloads.length > 1 && !force) {
      throw new InputError(
        `compare: the repetitions of ${source.arg} ran different workloads (${workloads.join(', ')}); --force compares them anyway`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
    entries.push({
      letter: letterOf(i),
      source,
      name: entryName(source),
      workload: workloads.join(' | '),
      runs,
      summaries
    })
  }
  checkTogether(entries, force)
  return entries
}

/**
 * A, B … Z, then A2, B2 …
 * @param {number} i
 */
export function letterOf(i) {
  const letter = String.fromCharCode(65 + (i % 26))
  return i < 26 ? letter : `${letter}${Math.floor(i / 26) + 1}`
}

/** @param {import('./entry-paths.js').EntryPath} source */
function entryName(source) {
  if (source.kind === 'variant')
    return `${path.basename(path.resolve(/** @type {string} */ (source.experiment)))}:${source.variant}`
  return path.basename(path.resolve(source.dir))
}

/**
 * The run's summary, when it is a run's with histograms that read back.
 * @param {import('../results/read.js').RunData} run
 * @returns {Record<string, any>}
 */
function checkedSummary(run) {
  const summary = run.summary
  const where = path.join(run.dir, 'summary.json')
  if (!summary || typeof summary !== 'object' || typeof summary.requests !== 'object' || summary.requests === null) {
    throw new InputError(`compare: ${where} is not a run's summary`, { code: 'PGLG_INVALID_RUN_DIR' })
  }
  const histograms = summary.histograms
  if (!histograms || typeof histograms.scheme !== 'string') {
    throw new InputError(
      `compare: ${where} keeps no raw histograms (written by an older pgloadgen): its percentiles cannot be merged`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  try {
    histogramFromJson(histograms.latency, 'latency')
    for (const [type, h] of Object.entries(histograms.latency_by_type ?? {})) histogramFromJson(h, `latency of ${type}`)
  } catch (err) {
    throw new InputError(`compare: ${where}: histograms: ${/** @type {Error} */ (err).message}`, {
      code: 'PGLG_INVALID_RUN_DIR',
      cause: err
    })
  }
  return summary
}

/**
 * One bucket layout for every histogram; one workload unless forced.
 * @param {Entry[]} entries
 * @param {boolean} force
 */
function checkTogether(entries, force) {
  const [first, ...others] = entries
  const scheme = first.summaries[0].histograms.scheme
  for (const entry of entries) {
    for (const [j, summary] of entry.summaries.entries()) {
      if (summary.histograms.scheme !== scheme) {
        throw new InputError(
          `compare: ${entry.runs[j].dir} and ${first.runs[0].dir} have histograms of different bucket schemes (${summary.histograms.scheme}, ${scheme}): their percentiles do not compare`,
          { code: 'PGLG_MISMATCHED_RUNS' }
        )
      }
    }
  }
  if (force) return
  for (const other of others) {
    if (other.workload !== first.workload) {
      throw new InputError(
        `compare: ${first.source.arg} ran the ${first.workload} workload, ${other.source.arg} ${other.workload}: --force compares them anyway`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
  }
}
