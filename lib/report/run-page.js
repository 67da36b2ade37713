import path from 'node:path'
import { runCharts } from './charts.js'
import { runPhases, METHOD } from './phases.js'
import { redact } from './redact.js'
import { runCapacity } from './capacity.js'
import { capacitySection } from './capacity-section.js'
import { runWhole } from '../results/whole-run.js'
import { wholeRunTable } from './whole-run-section.js'
import { runVacuumCostSection } from './vacuum-cost-section.js'
import { runWraparoundSection } from './wraparound-section.js'
import { forecastSection } from './forecast-section.js'
import { zfsSection } from './zfs-section.js'
import { changesSection } from './changes-section.js'
import {
  chartGrid,
  esc,
  fmtNumber,
  fmtRatio,
  fmtSeconds,
  fmtTime,
  fmtUs,
  keyValueTable,
  metaList,
  ratioClass,
  xRange
} from './html.js'

// The report of one run directory: what ran, the action's effect, the charts,
// the events, the settings.

/**
 * @param {import('../results/read.js').RunData} run
 * @returns {{ title: string, headerHtml: string, bodyHtml: string, charts: import('./chart-spec.js').ChartSpec[] }}
 */
export function runPage(run) {
  const info = redact(run.info)
  const name = info.label || `${info.workload ?? 'load'} on ${info.table ?? 'its table'}`
  const charts = runCharts(run, 'run')
  const capacity = capacitySection([{ label: name, run, capacity: runCapacity(run) }], 'capacity')
  const zfs = zfsSection(run, 'zfs')
  const range = xRange([...charts, ...capacity.charts, ...zfs.charts])
  for (const chart of [...charts, ...capacity.charts, ...zfs.charts]) Object.assign(chart, { xRange: range })
  const phases = runPhases(run)
  const t0Note =
    info.t0 && info.t0 !== info.started_at
      ? `seconds from ${fmtTime(info.t0)} (t0)`
      : 'seconds from the start of the run'
  const headerHtml = `<h1>${esc(name)}</h1>
${runMeta(run, info)}`
  const settings =
    info.settings && Object.keys(info.settings).length
      ? keyValueTable(info.settings)
      : '<p class="lead">No server settings recorded.</p>'
  const bodyHtml = `
${changesSection(run)}
<h2>Effect of the action</h2>
${phasesTable(phases)}
${runVacuumCostSection(run)}
${runWraparoundSection(run)}
${forecastSection(run)}
<h2>The whole run</h2>
<p class="lead">Rates and latencies over every second of the load but the first and paused ones; the table's figures
and the workload's statistics from every sample; what retention removed, from its events.</p>
${wholeRunTable(runWhole(run))}
${capacity.html}
<h2>Over time</h2>
<p class="lead">Time axis: ${esc(t0Note)}. Shaded bands: actions from start to end (and pauses); dashed lines: other
events; red lines: where the run changed. Drag across a chart to zoom, double-click to zoom out.</p>
${chartGrid(charts)}
${zfs.html}
${totalsSection(run.summary)}
${eventsSection(run)}
<h2>Server settings and flags</h2>
<div class="columns">
${settings}
${info.args ? keyValueTable(cleanArgs(info.args)) : ''}
</div>`
  return {
    title: `pgloadgen run: ${name}`,
    headerHtml,
    bodyHtml,
    charts: [...charts, ...capacity.charts, ...zfs.charts]
  }
}

/**
 * @param {import('../results/read.js').RunData} run
 * @param {import('../results/read.js').RunInfo} info  redacted
 */
export function runMeta(run, info) {
  const started = Date.parse(info.started_at ?? '')
  const ended = Date.parse(info.ended_at ?? '')
  /** @type {[string, string][]} */
  const items = [
    ['directory', esc(path.basename(path.resolve(run.dir)))],
    ['pgloadgen', esc(info.pgloadgen_version ?? '?')],
    ['PostgreSQL', esc(info.postgres_version ?? '?')],
    ['started', fmtTime(info.started_at)],
    ['ended', fmtTime(info.ended_at)],
    ['duration', Number.isFinite(ended - started) ? fmtSeconds((ended - started) / 1000) : '–'],
    ['workload', esc(info.workload ?? '?')],
    ['table', esc(info.table ?? '?')],
    ['concurrency', esc(info.concurrency ?? '?')],
    ['mode', esc(info.mode ?? '?')],
    .../** @type {[string, string][]} */ (
      [
        ['target', info.target],
        ['mix', info.mix],
        ['label', info.label]
      ]
        .filter(([, v]) => typeof v === 'string' && v !== '')
        .map(([k, v]) => [k, esc(v)])
    )
  ]
  return metaList(items)
}

/**
 * The before / during / after table of one run.
 * @param {import('./phases.js').RunPhases} phases
 */
function phasesTable(phases) {
  if (!phases.action) {
    return '<p class="lead">No vacuum, analyze, checkpoint or retention run in this run\'s events, and no vacuum of the table in its statistics: nothing to compare before and after.</p>'
  }
  const a = phases.action
  const seen = a.source === 'samples' ? ' (seen in the PostgreSQL statistics, to the resolution of their polls)' : ''
  const until = a.completed
    ? `to ${fmtSeconds(a.end_s)} (${fmtSeconds(a.duration_s)})`
    : `until the end of the load (not ended, ${fmtSeconds(a.duration_s)} so far)`
  const failed = a.ok === false ? ', failed' : ''
  const name = esc(a.name.replace(/[_-]/g, ' '))
  const lead = `<p class="lead">${name}${seen} from ${fmtSeconds(a.start_s)} ${until}${failed}.
Before: ${phases.samples.before} s, during: ${phases.samples.during} s, after: ${phases.samples.after} s of samples.
${esc(METHOD.latency_us)}.</p>`
  /**
   * @param {string} label
   * @param {import('./phases.js').Phased} figures
   * @param {(v: number | null) => string} format
   * @param {number | null} ratio
   * @param {boolean} higherIsWorse
   */
  const row = (label, figures, format, ratio, higherIsWorse) =>
    `<tr><td>${esc(label)}</td><td>${format(figures.before)}</td><td>${format(figures.during)}</td><td>${format(figures.after)}</td><td class="sep ${ratioClass(ratio, higherIsWorse)}">${fmtRatio(ratio)}</td></tr>`
  const p50Ratio = figureRatio(phases.latency_us.p50.during, phases.latency_us.p50.before)
  return `${lead}<div class="tablewrap"><table class="phases">
<thead><tr><th></th><th>before</th><th>during</th><th>after</th><th class="sep">during / before</th></tr></thead>
<tbody>
${row('throughput (req/s)', phases.throughput, v => fmtNumber(v, 1), phases.degradation_ratio, false)}
${row('latency p50', phases.latency_us.p50, fmtUs, p50Ratio, true)}
${row('latency p99', phases.latency_us.p99, fmtUs, phases.p99_ratio, true)}
</tbody></table></div>`
}

/**
 * @param {number | null} a
 * @param {number | null} b
 */
function figureRatio(a, b) {
  return a === null || b === null || b === 0 ? null : a / b
}

/**
 * The run's totals from summary.json, per request type.
 * @param {Record<string, any> | null} summary
 */
function totalsSection(summary) {
  if (!summary || typeof summary.requests !== 'object') return ''
  const rows = Object.entries(/** @type {Record<string, any>} */ (summary.requests))
    .filter(([, r]) => r && (r.done > 0 || r.failed > 0))
    .map(
      ([type, r]) =>
        `<tr><td>${esc(type)}</td><td>${fmtNumber(r.done)}</td><td>${fmtNumber(r.failed)}</td><td>${fmtNumber(r.rate, 1)}</td><td>${fmtUs(r.latency_us?.p50)}</td><td>${fmtUs(r.latency_us?.p99)}</td><td>${fmtUs(r.latency_us?.max)}</td></tr>`
    )
  const all = summary.latency_us ?? {}
  const requests = Object.values(/** @type {Record<string, any>} */ (summary.requests))
  const done = requests.reduce((n, r) => n + (r?.done ?? 0), 0)
  const failed = requests.reduce((n, r) => n + (r?.failed ?? 0), 0)
  return `<h2>Totals</h2>
<p class="lead">From the run's summary: ${fmtNumber(summary.elapsed_s, 1)} s of load,
${fmtNumber(summary.throughput, 1)} requests/s on average, ${fmtNumber(summary.reconnects)} reconnects,
${fmtNumber(summary.unexpected_failures)} unexpected failures.</p>
<div class="tablewrap"><table>
<thead><tr><th>request type</th><th>done</th><th>failed</th><th>per second</th><th>p50</th><th>p99</th><th>max</th></tr>
</thead>
<tbody>${rows.join('')}
<tr class="agg first"><td>all</td><td>${fmtNumber(done)}</td><td>${fmtNumber(failed)}</td>
<td>${fmtNumber(summary.throughput, 1)}</td><td>${fmtUs(all.p50)}</td><td>${fmtUs(all.p99)}</td>
<td>${fmtUs(all.max)}</td></tr>
</tbody></table></div>`
}

/**
 * @param {import('../results/read.js').RunData} run
 * @param {{ heading?: boolean }} [options]
 */
export function eventsSection(run, { heading = true } = {}) {
  if (run.events.length === 0) return heading ? '<h2>Events</h2><p class="lead">No events recorded.</p>' : ''
  const LIMIT = 300
  const rows = run.events.slice(0, LIMIT).map(e => {
    const detail = /** @type {Record<string, any>} */ (redact(e.detail ?? {}))
    const shown =
      e.kind === 'point' && 'phase' in detail
        ? `phase: ${detail.phase}`
        : Object.entries(detail)
            .filter(([k]) => k !== 'sql')
            .map(([k, v]) => `${k}: ${detailValue(v)}`)
            .join(', ') ||
          (detail.sql ?? '')
    const outcome = e.kind === 'end' ? (e.ok === false ? `failed: ${e.error ?? ''}` : 'ok') : ''
    const duration = e.duration_s === undefined ? '' : fmtSeconds(e.duration_s)
    const outcomeClass = e.ok === false ? 'worse' : ''
    return `<tr><td>${fmtSeconds((Date.parse(e.ts) - run.t0) / 1000)}</td><td>${esc(e.kind)}</td><td>${esc(e.action)}</td><td>${esc(e.table ?? '')}</td><td>${duration}</td><td class="${outcomeClass}">${esc(outcome)}</td><td class="muted" style="text-align:left">${esc(shown)}</td></tr>`
  })
  const more =
    run.events.length > LIMIT ? `<p class="lead">… and ${run.events.length - LIMIT} more in events.ndjson.</p>` : ''
  return `${heading ? '<h2>Events</h2>' : ''}<div class="tablewrap"><table>
<thead><tr><th>time</th><th>kind</th><th>action</th><th>table</th><th>duration</th><th>outcome</th>
<th style="text-align:left">detail</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>${more}`
}

/**
 * A value of an event's detail as the events table shows it: a list of
 * named things (the partitions a retention run dropped) by their names.
 * @param {unknown} value
 */
function detailValue(value) {
  if (Array.isArray(value) && value.every(v => v && typeof v === 'object' && typeof v.name === 'string')) {
    return value.map(v => v.name).join(' ')
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/**
 * The flags as given: yargs' internals and the camelCase twins of
 * kebab-case flags left out.
 * @param {Record<string, unknown>} args
 */
function cleanArgs(args) {
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const [key, value] of Object.entries(args)) {
    if (key === '_' || key === '$0' || value === undefined) continue
    if (/[A-Z]/.test(key) && key.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`) in args) continue
    if (key.length === 1 && Object.keys(args).some(k => k.length > 1 && args[k] === value)) continue
    out[key] = value
  }
  return out
}
