import { writeFile, rename } from 'node:fs/promises'
import path from 'node:path'
import { directoryKind, readExperiment, readRun } from '../results/read.js'
import { experimentSummary } from './phases.js'
import { runPage } from './run-page.js'
import { experimentPage } from './experiment-page.js'
import { withVacuumCosts } from './vacuum-cost-section.js'
import { withWraparound } from './wraparound-section.js'
import { esc, pageHtml } from './html.js'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'

/**
 * The report of a run or experiment directory, and for an experiment its
 * summary.json object.
 * @param {string} dir
 * @returns {Promise<{ kind: 'run' | 'experiment', html: string,
 *     summary: ReturnType<typeof experimentSummary> | null }>}
 */
export async function buildReport(dir) {
  const kind = await directoryKind(dir)
  const footer = `Written by pgloadgen ${esc(PGLOADGEN_VERSION)} at ${esc(new Date().toISOString())} from ${esc(path.basename(path.resolve(dir)))}/. Charts: uPlot (MIT licence), inlined.`
  if (kind === 'experiment') {
    const experiment = await readExperiment(dir)
    const summary = withWraparound(withVacuumCosts(experimentSummary(experiment), experiment), experiment)
    const page = experimentPage(experiment, summary)
    return { kind, html: await pageHtml({ ...page, kind: 'experiment', footer }), summary }
  }
  const run = await readRun(dir)
  const page = runPage(run)
  return { kind, html: await pageHtml({ ...page, kind: 'run', footer }), summary: null }
}

/**
 * The report of dir as one self-contained HTML page.
 * @param {string} dir
 * @returns {Promise<string>}
 */
export async function renderReport(dir) {
  return (await buildReport(dir)).html
}

/**
 * Writes dir/report.html, and for an experiment dir/summary.json.
 * @param {string} dir
 * @returns {Promise<{ kind: 'run' | 'experiment', report: string, summary: string | null }>}
 */
export async function writeReport(dir) {
  const { kind, html, summary } = await buildReport(dir)
  const report = path.join(dir, 'report.html')
  await writeAtomically(report, html)
  let summaryFile = null
  if (summary) {
    summaryFile = path.join(dir, 'summary.json')
    await writeAtomically(summaryFile, JSON.stringify(summary, null, 2) + '\n')
  }
  return { kind, report, summary: summaryFile }
}

/**
 * A reader never sees half a file.
 * @param {string} file
 * @param {string} text
 */
async function writeAtomically(file, text) {
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, text)
  await rename(temporary, file)
}
