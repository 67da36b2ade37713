import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
import { writeReport } from '../report/render.js'
import { summaryJson } from '../summary/summary-json.js'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'
import { readInstanceRuns } from './read-runs.js'
import { mergeSummaries } from './merge-summary.js'
import { mergeSamples } from './merge-samples.js'

// `pgloadgen merge DIR…`: the run directories of a load's instances become
// one run directory (summary.json, run.json, samples.ndjson, events.ndjson)
// and its report, as if one generator had run the whole load.

/**
 * @param {string[]} dirs
 * @param {string} out
 * @param {import('../log.js').Logger} log
 * @returns {Promise<{ summary: ReturnType<typeof mergeSummaries>, report: string }>}
 */
export async function mergeRuns(dirs, out, log) {
  const runs = await readInstanceRuns(dirs)
  await checkOut(out, runs)
  const summary = mergeSummaries(runs)
  if (summary.merged.missing.length > 0) {
    log.warn(
      `instances ${summary.merged.missing.map(i => `${i}/${summary.merged.parts}`).join(', ')} are missing: the merge covers part of the load`,
      'PGLG_W_PARTIAL_MERGE'
    )
  }
  // the time axis starts at the common start moment when there is one
  const originMs = Date.parse(String(summary.start_at ?? summary.started_at))
  const samples = mergeSamples(runs, originMs)
  await mkdir(out, { recursive: true })
  await writeFile(path.join(out, 'summary.json'), summaryJson(summary))
  await writeFile(path.join(out, 'run.json'), JSON.stringify(mergedInfo(runs, summary), null, 2) + '\n')
  await writeFile(path.join(out, 'samples.ndjson'), samples.map(s => JSON.stringify(s) + '\n').join(''))
  await writeFile(
    path.join(out, 'events.ndjson'),
    mergedEvents(runs)
      .map(e => JSON.stringify(e) + '\n')
      .join('')
  )
  const { report } = await writeReport(out)
  return { summary, report }
}

/**
 * The output may not be one of the inputs, nor another run's directory.
 * @param {string} out
 * @param {import('./read-runs.js').InstanceRun[]} runs
 */
async function checkOut(out, runs) {
  const real = await realpath(out).catch(() => null)
  if (real === null) return
  for (const r of runs) {
    if (real === (await realpath(r.run.dir))) {
      throw new InputError(`merge: --out ${out} is one of the directories merged`, { code: 'PGLG_UNUSABLE_OUT_DIR' })
    }
  }
  const info = await readFile(path.join(out, 'run.json'), 'utf8').then(
    text => JSON.parse(text),
    () => null
  )
  if (info !== null && !Array.isArray(info?.merged_from)) {
    throw new InputError(`merge: --out ${out} holds a run of its own: give a new directory`, {
      code: 'PGLG_UNUSABLE_OUT_DIR'
    })
  }
}

/**
 * run.json of the merged run: the first instance's, with the whole load's
 * times and concurrency.
 * @param {import('./read-runs.js').InstanceRun[]} runs
 * @param {ReturnType<typeof mergeSummaries>} summary
 */
function mergedInfo(runs, summary) {
  // an instance's own flags, share and time axis do not describe the whole load
  const first = /** @type {Record<string, unknown>} */ ({ ...runs[0].run.info })
  for (const key of ['args', 'instance', 'total_concurrency', 't0']) delete first[key]
  const names = runs.map(r => r.instance?.name ?? path.basename(r.run.dir))
  return {
    ...first,
    pgloadgen_version: PGLOADGEN_VERSION,
    started_at: summary.started_at,
    ended_at: summary.ended_at,
    concurrency: summary.concurrency,
    ...(summary.start_at !== null && { t0: summary.start_at }),
    label: `${runs.length} instances merged (${names.join(', ')})`,
    merged_from: runs.map(r => ({
      dir: path.resolve(r.run.dir),
      instance: r.instance?.name ?? null,
      started_at: new Date(r.startedMs).toISOString()
    }))
  }
}

/**
 * Every instance's events, in time order, each saying whose it is.
 * @param {import('./read-runs.js').InstanceRun[]} runs
 */
function mergedEvents(runs) {
  return runs
    .flatMap(r =>
      r.run.events.map(e => ({
        ...e,
        detail: { ...(e.detail ?? {}), instance: r.instance?.name ?? path.basename(r.run.dir) }
      }))
    )
    .sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))
}
