import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
import { readRun } from '../results/read.js'
import { histogramFromJson } from '../summary/histogram-field.js'

// The run directories a merge reads (what `pgloadgen run --record DIR`
// wrote: run.json, samples.ndjson, events.ndjson, summary.json), checked to
// be parts of one load before anything is added up. Every refusal is one
// line (InputError, exit 2).

/**
 * @typedef {object} InstanceRun
 * @property {import('../results/read.js').RunData} run
 * @property {Record<string, any>} summary
 * @property {{ index: number, parts: number, name: string } | null} instance
 * @property {number} startedMs   when its load started (epoch ms)
 * @property {number} endedMs
 */

/**
 * Reads and checks the directories; returns them in instance order (those
 * without an instance after, in the order given).
 * @param {string[]} dirs
 * @returns {Promise<InstanceRun[]>}
 */
export async function readInstanceRuns(dirs) {
  if (dirs.length === 0) {
    throw new InputError('merge: give the run directories of the instances (pgloadgen run --record DIR)', {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  /** @type {Map<string, string>} */
  const seen = new Map()
  /** @type {InstanceRun[]} */
  const runs = []
  for (const dir of dirs) {
    const info = await stat(dir).catch(() => null)
    if (!info) throw new InputError(`merge: no such directory: ${dir}`, { code: 'PGLG_INVALID_RUN_DIR' })
    if (!info.isDirectory()) throw new InputError(`merge: not a directory: ${dir}`, { code: 'PGLG_INVALID_RUN_DIR' })
    const real = await realpath(dir)
    if (seen.has(real)) throw new InputError(`merge: ${dir} is given twice`, { code: 'PGLG_INVALID_RUN_DIR' })
    seen.set(real, dir)
    if (!(await stat(path.join(dir, 'summary.json')).catch(() => null))) {
      throw new InputError(
        `merge: ${dir} has no summary.json: give the directories of ended runs (pgloadgen run --record DIR)`,
        { code: 'PGLG_INVALID_RUN_DIR' }
      )
    }
    if (!(await stat(path.join(dir, 'run.json')).catch(() => null))) {
      throw new InputError(`merge: ${dir} has no run.json: not a run directory (pgloadgen run --record DIR)`, {
        code: 'PGLG_INVALID_RUN_DIR'
      })
    }
    const run = await readRun(dir)
    runs.push(checkedRun(dir, run))
  }
  checkTogether(runs)
  return runs.sort((a, b) => (a.instance?.index ?? Infinity) - (b.instance?.index ?? Infinity))
}

/**
 * @param {string} dir
 * @param {import('../results/read.js').RunData} run
 * @returns {InstanceRun}
 */
function checkedRun(dir, run) {
  const summary = /** @type {Record<string, any>} */ (run.summary)
  if (!summary || typeof summary !== 'object' || typeof summary.workload !== 'string') {
    throw new InputError(`merge: ${dir}/summary.json is not a run's summary`, { code: 'PGLG_INVALID_RUN_DIR' })
  }
  const histograms = summary.histograms
  if (!histograms || typeof histograms.scheme !== 'string') {
    throw new InputError(
      `merge: ${dir}/summary.json keeps no raw histograms (written by an older pgloadgen): its percentiles cannot be merged exactly`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  try {
    histogramFromJson(histograms.latency, 'latency')
    for (const [type, h] of Object.entries(histograms.latency_by_type ?? {})) histogramFromJson(h, `latency of ${type}`)
    if (histograms.schedule_lag) histogramFromJson(histograms.schedule_lag, 'schedule lag')
  } catch (err) {
    throw new InputError(`merge: ${dir}/summary.json: histograms: ` + /** @type {Error} */ (err).message, {
      code: 'PGLG_INVALID_RUN_DIR',
      cause: err
    })
  }
  const instance =
    summary.instance && Number.isInteger(summary.instance.index) && Number.isInteger(summary.instance.parts)
      ? {
          index: summary.instance.index,
          parts: summary.instance.parts,
          name: `${summary.instance.index}/${summary.instance.parts}`
        }
      : null
  const startedMs = Date.parse(summary.started_at ?? run.info.started_at ?? '')
  const endedMs = Date.parse(summary.ended_at ?? '') || startedMs + 1000 * Number(summary.elapsed_s)
  if (!Number.isFinite(startedMs) || !Number.isFinite(endedMs)) {
    throw new InputError(`merge: ${dir}/summary.json says not when its load started and ended`, {
      code: 'PGLG_INVALID_RUN_DIR'
    })
  }
  return { run, summary, instance, startedMs, endedMs }
}

/**
 * The runs must be parts of one load: one workload, histograms of one
 * bucket layout, one kind of latency, and no instance twice.
 * @param {InstanceRun[]} runs
 */
function checkTogether(runs) {
  const first = runs[0]
  const dirOf = (/** @type {InstanceRun} */ r) => r.run.dir
  for (const r of runs.slice(1)) {
    if (r.summary.workload !== first.summary.workload) {
      throw new InputError(
        `merge: ${dirOf(first)} ran the ${first.summary.workload} workload, ${dirOf(r)} ${r.summary.workload}: only runs of one workload merge`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
    if (r.summary.histograms.scheme !== first.summary.histograms.scheme) {
      throw new InputError(
        `merge: ${dirOf(first)} and ${dirOf(r)} have histograms of different bucket schemes (${first.summary.histograms.scheme}, ${r.summary.histograms.scheme})`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
    if (r.summary.latency_kind !== first.summary.latency_kind) {
      throw new InputError(
        `merge: ${dirOf(first)} measured ${first.summary.latency_kind} latencies, ${dirOf(r)} ${r.summary.latency_kind}: they do not add up`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
  }
  /** @type {Map<number, InstanceRun>} */
  const byIndex = new Map()
  for (const r of runs) {
    if (!r.instance) continue
    const other = runs.find(o => o.instance && o.instance.parts !== r.instance?.parts)
    if (other) {
      throw new InputError(
        `merge: ${dirOf(r)} is instance ${r.instance.name}, ${dirOf(other)} instance ${other.instance?.name}: parts of different splits`,
        { code: 'PGLG_MISMATCHED_RUNS' }
      )
    }
    const twin = byIndex.get(r.instance.index)
    if (twin) {
      throw new InputError(`merge: ${dirOf(twin)} and ${dirOf(r)} are both instance ${r.instance.name}`, {
        code: 'PGLG_MISMATCHED_RUNS'
      })
    }
    byIndex.set(r.instance.index, r)
  }
}
