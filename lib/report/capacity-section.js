import { MIN_SMOOTHING_S, series, smoothed } from './capacity-line.js'
import { CAPACITY_METHOD } from './capacity.js'
import { chartGrid, esc, fmtNumber, fmtSeconds, fmtUs, keyValueTable } from './html.js'
import { roundOrNull } from '../helpers/numbers.js'

// The page's capacity section: a sentence, a table row and a chart per
// paced run that has a capacity figure (capacity.js finds them).

/** @typedef {import('./capacity.js').RunCapacity} RunCapacity */
/** @typedef {import('./capacity.js').CapacityStats} CapacityStats */

/**
 * One sentence on a run's capacity, or on why there is none.
 * @param {RunCapacity} c
 */
export function capacitySentence(c) {
  const unit = `${c.unit}/s`
  const bound = `the bound of ${fmtUs(c.bound_us)} (the pacing interval)`
  switch (c.verdict) {
    case 'knee':
      return `The server stopped keeping up at about ${fmtNumber(c.capacity_per_s)} ${unit} delivered, with ${fmtNumber(c.clients_at_knee)} clients, ${fmtSeconds(c.knee_s)} into the run: the lag, ${fmtUs(c.lag_at_knee_us)} then, grew ${fmtNumber(c.lag_growth, 3)} s a second to ${fmtUs(c.lag_at_end_us)} at the end, past ${bound}. ${statsSentence(/** @type {CapacityStats} */ (c.stats))}`
    case 'kept_up':
      return `It kept up to the end, with up to ${fmtNumber(c.max_clients)} clients and at most ${fmtNumber(c.peak_per_s)} ${unit} delivered (the lag was ${fmtUs(c.lag_at_end_us)} at the end, within ${bound}): the capacity is above that.`
    case 'overloaded_throughout':
      return `It never kept up: the lag was above ${bound} from the start, with ${fmtNumber(c.after_knee_per_s)} ${unit} delivered: the capacity is below what the first clients asked for.`
    case 'inconclusive':
      return `The lag was above ${bound} at the end (${fmtUs(c.lag_at_end_us)}) but not clearly growing, or not for long enough: no verdict. It rose from ${fmtSeconds(c.knee_s)}, with ${fmtNumber(c.capacity_per_s)} ${unit} delivered before.`
    default:
      return 'No lag in the samples: no request ended in a recorded second.'
  }
}

/**
 * What the statistics showed at the knee, from those the lab records for
 * every workload and the workload's own (by their names: …dead_tuples,
 * …autovacuums…, …checkpoints…).
 * @param {CapacityStats} stats
 */
function statsSentence(stats) {
  const own = Object.entries(stats.workload)
  /** @param {RegExp} pattern */
  const find = pattern => own.find(([name]) => pattern.test(name))?.[1] ?? null
  /** @param {{ before: number | null, at_knee: number | null, at_end: number | null } | null} figure */
  const delta = figure =>
    figure && figure.before !== null && figure.at_knee !== null && figure.at_end !== null
      ? `${fmtNumber(figure.at_knee - figure.before)} in the window before the knee, ${fmtNumber(figure.at_end - figure.at_knee)} after it`
      : null
  const dead = find(/dead_tuples$/)?.at_knee ?? stats.dead_tuples
  const parts = [
    `dead tuples ${fmtNumber(dead)}`,
    stats.vacuum_running ? 'a vacuum of the table running' : 'no vacuum of the table running',
    ...(delta(find(/autovacuum/)) ? [`autovacuums ${delta(find(/autovacuum/))}`] : []),
    ...(delta(find(/checkpoints_total$/)) ? [`checkpoints ${delta(find(/checkpoints_total$/))}`] : []),
    ...(stats.generator_cpu_pct !== null ? [`the generator at ${fmtNumber(stats.generator_cpu_pct)} % of a core`] : [])
  ]
  return `Then: ${parts.join('; ')}.`
}

/**
 * The page's capacity section: a sentence, a table row and a chart per run
 * that has a capacity figure; nothing when none has.
 * @param {Array<{ label: string, run: import('../results/read.js').RunData, capacity: RunCapacity | null }>} runs
 * @param {string} prefix   unique per page
 * @returns {{ html: string, charts: import('./chart-spec.js').ChartSpec[] }}
 */
export function capacitySection(runs, prefix) {
  const found =
    /** @type {Array<{ label: string, run: import('../results/read.js').RunData, capacity: RunCapacity }>} */ (
      runs.filter(r => r.capacity !== null)
    )
  if (found.length === 0) return { html: '', charts: [] }
  const charts = found.map((r, i) => capacityChart(r.run, r.capacity, `${prefix}-${i}`, r.label))
  const rows = found.map(
    ({ label, capacity: c }) => `<tr><td>${esc(label)}</td><td>${esc(c.verdict.replace(/_/g, ' '))}</td>
<td class="sep">${fmtNumber(c.capacity_per_s)}</td><td>${fmtSeconds(c.knee_s)}</td>
<td>${fmtNumber(c.clients_at_knee)}</td>
<td class="sep">${fmtUs(c.lag_at_knee_us)}</td><td>${fmtUs(c.lag_at_end_us)}</td><td>${fmtNumber(c.lag_growth, 3)}</td>
<td class="sep">${fmtNumber(c.peak_per_s)}</td><td>${fmtNumber(c.after_knee_per_s)}</td></tr>`
  )
  const statistics = found
    .filter(r => r.capacity.stats && Object.keys(r.capacity.stats.workload).length > 0)
    .map(({ label, capacity: c }) => {
      const figures = Object.entries(/** @type {CapacityStats} */ (c.stats).workload).map(
        ([name, f]) =>
          `<tr><td>${esc(name.replace(/^pgloadgen_workload_/, ''))}</td><td>${fmtNumber(f.before)}</td><td>${fmtNumber(f.at_knee)}</td><td>${fmtNumber(f.at_end)}</td></tr>`
      )
      return `<h3>${esc(label)}</h3><div class="tablewrap"><table><thead><tr><th>statistic</th><th>${esc(fmtSeconds(c.window_s))} before the knee</th><th>at the knee</th><th>at the end</th></tr></thead><tbody>${figures.join('')}</tbody></table></div>`
    })
  const unit = found[0].capacity.unit
  const lag =
    found[0].capacity.lag_kind === 'start'
      ? 'Lag: how late each request started (p99 per second).'
      : 'Lag: how late each request ended, from when it was due (p99 per second).'
  const sentences = found
    .map(r => `<p class="lead"><strong>${esc(r.label)}</strong>: ${esc(capacitySentence(r.capacity))}</p>`)
    .join('\n')
  const statisticsHtml = statistics.length
    ? `<details><summary>The workload's statistics around the knee</summary>${statistics.join('')}</details>`
    : ''
  const html = `<h2>Capacity</h2>
<p class="lead">Where the lag of the paced requests stopped being bounded by their interval and grew to the end of the
load, and the ${esc(unit)} per second delivered just before. ${esc(lag)}</p>
${sentences}
<div class="tablewrap"><table>
<thead><tr class="group"><th colspan="2"></th><th colspan="3">knee</th><th colspan="3">lag</th>
<th colspan="2">${esc(unit)}/s delivered</th></tr>
<tr><th>run</th><th>verdict</th><th class="sep">capacity (${esc(unit)}/s)</th><th>at</th><th>clients</th>
<th class="sep">at the knee</th><th>at the end</th><th>growth (s/s)</th>
<th class="sep">peak</th><th>after the knee</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>
${chartGrid(charts)}
${statisticsHtml}
<details><summary>How the capacity is found</summary>${keyValueTable(CAPACITY_METHOD)}</details>`
  return { html, charts }
}

/**
 * The lag against its bound, the delivered rate on the right, the knee.
 * @param {import('../results/read.js').RunData} run
 * @param {RunCapacity} c
 * @param {string} id
 * @param {string} label
 * @returns {import('./chart-spec.js').ChartSpec}
 */
function capacityChart(run, c, id, label) {
  const line = series(run, c.unit)
  const x = line.map(p => roundOrNull(p.x, 3))
  const smooth = smoothed(line, Math.max(MIN_SMOOTHING_S, c.bound_us / 1e6))
  return {
    id,
    title: `Lag and ${c.unit} delivered: ${label}`,
    note: 'log scale; dashed: the bound (the pacing interval)',
    format: 'us',
    log: true,
    rightFormat: 'rate',
    series: [
      { label: 'lag p99', color: '#f08c00', x, y: line.map(p => roundOrNull(p.lag, 0)), width: 1 },
      { label: 'smoothed lag', color: '#c2255c', x, y: smooth.map(v => roundOrNull(v, 0)), width: 2 },
      { label: 'bound', color: '#495057', x, y: line.map(() => c.bound_us), width: 1, dash: [6, 3] },
      {
        label: `${c.unit}/s (right axis)`,
        color: '#1c7ed6',
        x,
        y: line.map(p => roundOrNull(p.delivered / p.dt, 0)),
        axis: 1,
        width: 1.25
      }
    ],
    events:
      c.knee_s === null
        ? []
        : [{ from: c.knee_s, to: null, label: `knee: ${fmtNumber(c.capacity_per_s)} ${c.unit}/s`, color: '#e8590c' }]
  }
}
