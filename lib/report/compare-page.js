import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { overviewChart, paletteColor } from './charts.js'
import { comparisonCharts } from './series-charts.js'
import { groupChanges } from '../analysis/explain.js'
import { describeCauses, describeChange } from '../analysis/wording.js'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'
import {
  chartGrid,
  esc,
  fmtBytes,
  fmtNumber,
  fmtSeconds,
  fmtUs,
  keyValueTable,
  metaList,
  pageHtml,
  xRange
} from './html.js'

// The page of `pgloadgen compare --html FILE`: the entries, the table of
// every figure with each entry's ratio to the baseline, its interval and
// verdict (from the comparison object that --json prints, never
// recomputed), and the report's charts with every entry's runs overlaid on
// shared axes (seconds from each run's start): throughput, p99 latency,
// and the table's figures where recorded. One self-contained file.

/** @typedef {import('../compare/compare.js').Comparison} Comparison */

/**
 * An entry's runs, as the charts take them (a variant and its repetitions).
 * @typedef {{ letter: string, name: string, runs: import('../results/read.js').RunData[] }} ChartEntry
 */

const NA = 'n/a'
const GROUP_TITLES = { load: 'Load', latency: 'Latency', failures: 'Failures, per run', server: 'Server' }

/**
 * @param {Comparison} comparison
 * @param {ChartEntry[]} entries   in the comparison's order
 * @returns {{ title: string, headerHtml: string, bodyHtml: string, charts: import('./chart-spec.js').ChartSpec[] }}
 */
export function comparePage(comparison, entries) {
  const variants = entries.map(e => ({ name: `${e.letter} ${e.name}`, repetitions: e.runs }))
  const overview = {
    ...overviewChart(variants, 'cmp'),
    title: 'Throughput of every entry, all request types',
    note: "dashed: repetitions after the first; bands: each run's action, in its entry's colour"
  }
  const charts = [overview, ...comparisonCharts(variants, 'cmp')]
  const range = xRange(charts)
  for (const chart of charts) Object.assign(chart, { xRange: range })
  const baseline = comparison.entries[0]
  const title = comparison.entries.map(e => `${e.letter} ${e.name}`).join(' vs ')
  const headerHtml = `<h1>${esc(title)}</h1>
${metaList([
  ['baseline', esc(`${baseline.letter} ${baseline.name}`)],
  ['entries', String(comparison.entries.length)],
  ['workload', esc([...new Set(comparison.entries.map(e => e.workload))].join(', '))],
  ['pgloadgen', esc(comparison.pgloadgen_version)]
])}
${comparison.forced ? '<p class="warning">--force: the entries ran different workloads.</p>' : ''}`
  const bodyHtml = `
<h2>Entries</h2>
${entriesTable(comparison)}
<h2>Figures, each against ${esc(baseline.letter)}</h2>
<p class="lead">Ratio: the entry's figure / ${esc(baseline.letter)}'s. Under it, the 95 % bootstrap interval of the
entry's repetitions in ${esc(baseline.letter)}'s units. A verdict only where Welch's 95 % interval of the
entry's repetitions against ${esc(baseline.letter)}'s excludes no difference; "no interval" with fewer than 3
repetitions. n/a: not recorded.</p>
${figuresTable(comparison)}
${changesTable(comparison)}
<h2>Over time</h2>
<p class="lead">Every entry's runs on shared axes, seconds from each run's start; a colour per entry, dashed lines for
repetitions after the first; bands: each run's action. Drag across a chart to zoom, double-click to zoom out.</p>
${chartGrid(charts)}
<details><summary>How the figures are made</summary>${keyValueTable(comparison.method)}</details>`
  return { title: `pgloadgen compare: ${title}`, headerHtml, bodyHtml, charts }
}

/**
 * Writes the page to file (whole, or not at all).
 * @param {string} file
 * @param {Comparison} comparison
 * @param {ChartEntry[]} entries
 */
export async function writeComparePage(file, comparison, entries) {
  const page = comparePage(comparison, entries)
  const footer = `Written by pgloadgen ${esc(PGLOADGEN_VERSION)} at ${esc(new Date().toISOString())}. Charts: uPlot (MIT licence), inlined.`
  const html = await pageHtml({ ...page, kind: 'comparison', footer })
  await mkdir(path.dirname(path.resolve(file)), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, html)
  await rename(temporary, file)
}

/** @param {Comparison} comparison */
function entriesTable(comparison) {
  const rows = comparison.entries.map(
    (e, i) =>
      `<tr><td><span class="swatch" style="display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;background:${paletteColor(i)}"></span>${esc(e.letter)}</td><td style="text-align:left">${esc(e.name)}</td><td style="text-align:left">${esc(e.kind)}</td><td style="text-align:left">${esc(e.workload)}</td><td>${e.repetitions}</td><td>${fmtSeconds(e.elapsed_s.reduce((a, b) => a + b, 0))}</td><td style="text-align:left" class="muted">${esc(e.path)}</td></tr>`
  )
  return `<div class="tablewrap"><table class="entries">
<thead><tr><th></th><th style="text-align:left">name</th><th style="text-align:left">kind</th>
<th style="text-align:left">workload</th><th>repetitions</th><th>load</th>
<th style="text-align:left">directory</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>`
}

/** @param {Comparison} comparison */
function figuresTable(comparison) {
  const [baseline, ...others] = comparison.entries
  const otherHeads = others
    .map(
      e => `<th class="sep">${esc(e.letter)}</th><th>${esc(e.letter)} / ${esc(baseline.letter)}</th><th>verdict</th>`
    )
    .join('')
  const head = `<tr><th>figure</th><th>${esc(baseline.letter)}</th>${otherHeads}</tr>`
  const width = 2 + others.length * 3
  const rows = []
  let group = ''
  for (const figure of comparison.figures) {
    if (figure.group !== group) {
      group = figure.group
      rows.push(`<tr class="section"><th colspan="${width}">${esc(GROUP_TITLES[figure.group])}</th></tr>`)
    }
    const cells = others.map(e => {
      const c = comparison.comparisons.find(x => x.entry === e.letter)?.figures[figure.key]
      const a = baseline.figures[figure.key]
      const b = e.figures[figure.key]
      const ratio =
        a === null || b === null ? NA : c?.ratio === null || c === undefined ? '–' : `${c.ratio.toFixed(2)}×`
      const interval = c?.interval
        ? `<span class="range">${c.interval[0].toFixed(2)} – ${c.interval[1].toFixed(2)}</span>`
        : ''
      const verdict = c?.verdict ?? NA
      const cls = verdict === 'worse' ? 'worse' : verdict === 'better' ? 'better' : 'muted'
      return `<td class="sep">${formatFigure(figure, b)}</td><td>${ratio}${interval}</td><td class="${cls}">${esc(verdict)}</td>`
    })
    rows.push(
      `<tr><td>${esc(figure.label)}</td><td>${formatFigure(figure, baseline.figures[figure.key])}</td>${cells.join('')}</tr>`
    )
  }
  return `<div class="tablewrap"><table class="compare">
<thead>${head}</thead>
<tbody>${rows.join('\n')}</tbody></table></div>`
}

/**
 * @param {import('../compare/figures.js').Figure} figure
 * @param {number | null | undefined} value
 */
function formatFigure(figure, value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NA
  switch (figure.unit) {
    case 'us':
      return fmtUs(value)
    case 'rate':
      return fmtNumber(value, 1)
    case 'bytes':
      return fmtBytes(value)
    case 'seconds':
      return fmtSeconds(value)
    default:
      return fmtNumber(value, Number.isInteger(value) ? 0 : 1)
  }
}

/**
 * What changed within each entry's runs, and what the lab saw then
 * (each run's summary.json changes).
 * @param {import('../compare/compare.js').Comparison} comparison
 */
function changesTable(comparison) {
  if (comparison.entries.every(e => e.changes === null)) return ''
  const rows = comparison.entries.flatMap(entry => {
    if (entry.changes === null) {
      return [
        `<tr><td>${esc(entry.letter)}</td><td></td><td></td><td style="text-align:left" class="muted">not recorded</td><td></td></tr>`
      ]
    }
    if (entry.changes.length === 0) {
      return [
        `<tr><td>${esc(entry.letter)}</td><td></td><td></td><td style="text-align:left" class="muted">nothing: steady</td><td></td></tr>`
      ]
    }
    const reps = [...new Set(entry.changes.map(c => c.repetition))]
    return reps.flatMap(rep =>
      groupChanges(entry.changes?.filter(c => c.repetition === rep) ?? []).map(
        group =>
          `<tr><td>${esc(entry.letter)}</td><td>${rep}</td><td>${fmtSeconds(group.at_s)}</td><td style="text-align:left">${group.changes.map(c => esc(describeChange(c))).join('<br>')}</td><td style="text-align:left">${esc(describeCauses(group.causes, 5))}</td></tr>`
      )
    )
  })
  return `<h2>What changed within the runs</h2>
<p class="lead">Seconds from each run's start of load; the causes are what the lab saw within a few seconds of each
change (docs/change-points.md).</p>
<div class="tablewrap"><table>
<thead><tr><th>entry</th><th>rep</th><th>time</th><th style="text-align:left">what changed</th>
<th style="text-align:left">what the lab saw then</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>`
}
