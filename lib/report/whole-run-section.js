import { statisticKind, statisticTitle } from './series-charts.js'
import { esc, fmtBytes, fmtFigure, fmtNumber, fmtPct, fmtRatio, fmtSeconds, fmtUs } from './html.js'

// The whole-run figures (whole-run.js) as tables: the variants side by
// side, a variant's repetitions, or one run. A row per figure, shown when
// some run has it.

/** @typedef {import('../results/whole-run.js').RunWhole} RunWhole */
/** @typedef {import('../results/whole-run.js').WholeSpread} WholeSpread */
/** @typedef {import('../results/arithmetic.js').Spread} Spread */
/** @typedef {(value: number | null | undefined) => string} Format */

/**
 * @typedef {object} FigureRow
 * @property {string} group
 * @property {string} label
 * @property {string[]} path    where the figure is, in a RunWhole and a WholeSpread alike
 * @property {Format} format
 */

const rate = /** @type {Format} */ (v => fmtNumber(v, 1))
const count = /** @type {Format} */ (v => fmtNumber(v))

/**
 * @param {any} object
 * @param {string[]} path
 */
function at(object, path) {
  let value = object
  for (const key of path) value = value?.[key]
  return value ?? null
}

/**
 * The rows of the figures any of the given runs or spreads has.
 * @param {Array<RunWhole | WholeSpread>} wholes
 * @returns {FigureRow[]}
 */
export function figureRows(wholes) {
  const types = [...new Set(wholes.flatMap(w => Object.keys(w.latency_p99_us_by_type)))]
  const statistics = [...new Set(wholes.flatMap(w => Object.keys(w.workload)))]
  const sources = [...new Set(wholes.map(w => w.autovacuum_source).filter(s => s !== null))]
  const counter = sources.find(s => s !== 'samples') ?? null
  /** @type {FigureRow[]} */
  const rows = [
    { group: 'Load', label: 'seconds counted', path: ['seconds'], format: fmtSeconds },
    { group: 'Load', label: 'requests/s', path: ['requests_per_s'], format: rate },
    ...(wholes.some(w => hasValue(at(w, ['failed_per_s'])) && nonZero(at(w, ['failed_per_s'])))
      ? [{ group: 'Load', label: 'failed requests/s', path: ['failed_per_s'], format: rate }]
      : []),
    { group: 'Load', label: 'rows written/s', path: ['rows_per_s'], format: rate },
    { group: 'Load', label: 'points written/s', path: ['points_per_s'], format: rate },
    ...(types.length === 1
      ? []
      : [{ group: 'Load', label: 'latency p99, all types', path: ['latency_p99_us'], format: fmtUs }]),
    ...types.map(type => ({
      group: 'Load',
      label: `latency p99, ${type}`,
      path: ['latency_p99_us_by_type', type],
      format: fmtUs
    })),
    { group: 'Load', label: 'start lag p99', path: ['start_lag_p99_us'], format: fmtUs },
    { group: 'Load', label: 'rows missing (audit)', path: ['rows_missing'], format: count },
    { group: 'Table', label: 'dead tuples, peak', path: ['dead_tuples_peak'], format: count },
    { group: 'Table', label: 'size at the end', path: ['table_bytes_end'], format: fmtBytes },
    { group: 'Table', label: 'size, peak', path: ['table_bytes_peak'], format: fmtBytes },
    { group: 'Table', label: 'partitions at the end', path: ['partitions_end'], format: count },
    { group: 'Table', label: 'xid age at the end', path: ['xid_age_end'], format: count },
    {
      group: 'Table',
      label: `autovacuum runs${counter ? ` (${statisticTitle(counter)})` : ' (seen in the samples)'}`,
      path: ['autovacuum_runs'],
      format: count
    },
    ...(counter
      ? [{ group: 'Table', label: 'autovacuums seen in the samples', path: ['autovacuums_seen'], format: count }]
      : []),
    { group: 'Table', label: 'fillfactor set', path: ['fillfactor'], format: count },
    { group: 'Retention', label: 'runs', path: ['retention', 'runs'], format: count },
    { group: 'Retention', label: 'failed', path: ['retention', 'failed'], format: count },
    { group: 'Retention', label: 'skipped (another running)', path: ['retention', 'skipped'], format: count },
    { group: 'Retention', label: 'rows removed', path: ['retention', 'rows_removed'], format: count },
    { group: 'Retention', label: 'partitions dropped', path: ['retention', 'partitions_dropped'], format: count },
    { group: 'Retention', label: 'bytes dropped', path: ['retention', 'bytes_dropped'], format: fmtBytes },
    { group: 'Retention', label: 'DELETE batches', path: ['retention', 'batches'], format: count },
    { group: 'Retention', label: 'time spent', path: ['retention', 'seconds'], format: fmtSeconds },
    { group: 'Retention', label: 'longest run', path: ['retention', 'max_seconds'], format: fmtSeconds },
    ...statistics.flatMap(name =>
      ['first', 'last', 'mean', 'max'].map(key => ({
        group: "The workload's statistics",
        label: `${statisticTitle(name)}, ${key}`,
        path: ['workload', name, key],
        format: statisticFormat(name)
      }))
    )
  ]
  return rows.filter(row => wholes.some(w => hasValue(at(w, row.path))))
}

/**
 * @param {unknown} value   a number or a Spread
 */
function hasValue(value) {
  if (typeof value === 'number') return Number.isFinite(value)
  return value !== null && typeof value === 'object' && 'mean' in value
}

/**
 * @param {unknown} value   a number or a Spread
 */
function nonZero(value) {
  if (typeof value === 'number') return value !== 0
  const s = /** @type {Spread} */ (value)
  return s !== null && (s.min !== 0 || s.max !== 0)
}

/**
 * @param {string} name
 * @returns {Format}
 */
function statisticFormat(name) {
  const kind = statisticKind(name)
  return kind === 'share' ? fmtPct : kind === 'bytes' ? fmtBytes : fmtFigure
}

/**
 * The body of a figures table: a heading row per group.
 * @param {FigureRow[]} rows
 * @param {number} columns   besides the label
 * @param {(row: FigureRow) => string} cells
 */
function body(rows, columns, cells) {
  let group = ''
  const out = []
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group
      out.push(`<tr class="section"><th colspan="${columns + 1}">${esc(group)}</th></tr>`)
    }
    out.push(`<tr><td>${esc(row.label)}</td>${cells(row)}</tr>`)
  }
  return out.join('\n')
}

/**
 * The variants side by side: each figure's mean over the repetitions, its
 * range and spread, and its ratio to the first variant's.
 * @param {Array<{ name: string, whole_run: WholeSpread }>} variants
 */
export function wholeRunComparison(variants) {
  const rows = figureRows(variants.map(v => v.whole_run))
  if (rows.length === 0) return '<p class="lead">No figures: no samples were recorded.</p>'
  const first = variants[0]
  const cells = (/** @type {FigureRow} */ row) =>
    variants
      .map((v, i) => {
        const s = /** @type {Spread} */ (at(v.whole_run, row.path))
        if (!s) return '<td class="sep">–</td>'
        const base = i > 0 ? /** @type {Spread} */ (at(first.whole_run, row.path)) : null
        const notes = [
          ...(s.n > 1 && s.min !== s.max
            ? [`${row.format(s.min)} – ${row.format(s.max)} (spread ${fmtPct(s.spread)})`]
            : []),
          ...(base && base.mean !== 0 ? [`${fmtRatio(s.mean / base.mean)} ${esc(first.name)}`] : [])
        ]
        const range = notes.length ? `<span class="range">${notes.join(' · ')}</span>` : ''
        return `<td class="sep">${row.format(s.mean)}${range}</td>`
      })
      .join('')
  const heads = variants
    .map(v => `<th class="sep">${esc(v.name)} <span class="muted">(${v.whole_run.repetitions} rep.)</span></th>`)
    .join('')
  return `<div class="tablewrap"><table class="whole-run" id="whole-run">
<thead><tr><th>figure</th>${heads}</tr></thead>
<tbody>
${body(rows, variants.length, cells)}
</tbody></table></div>`
}

/**
 * A variant's repetitions, then their mean, min, max and spread.
 * @param {{ repetitions: Array<{ dir: string, whole_run: RunWhole }>, whole_run: WholeSpread }} variant
 * @param {string} id
 */
export function wholeRunRepetitions(variant, id) {
  const rows = figureRows([variant.whole_run])
  if (rows.length === 0) return ''
  const reps = variant.repetitions
  const cells = (/** @type {FigureRow} */ row) => {
    const s = /** @type {Spread} */ (at(variant.whole_run, row.path))
    const own = reps
      .map((r, i) => `<td class="${i === 0 ? 'sep' : ''}">${row.format(at(r.whole_run, row.path))}</td>`)
      .join('')
    return `${own}<td class="sep">${row.format(s?.mean)}</td><td>${row.format(s?.min)}</td><td>${row.format(s?.max)}</td><td>${fmtPct(s?.spread)}</td>`
  }
  const heads = reps
    .map((r, i) => `<th class="${i === 0 ? 'sep' : ''}">${esc(r.dir.split('/').pop() ?? r.dir)}</th>`)
    .join('')
  return `<div class="tablewrap"><table class="whole-run-reps" id="${esc(id)}">
<thead><tr><th>figure</th>${heads}<th class="sep">mean</th><th>min</th><th>max</th><th>spread</th></tr></thead>
<tbody>
${body(rows, reps.length + 4, cells)}
</tbody></table></div>`
}

/**
 * One run's figures; its workload's statistics in a table of their own,
 * a row each.
 * @param {RunWhole} whole
 */
export function wholeRunTable(whole) {
  const rows = figureRows([whole]).filter(row => row.path[0] !== 'workload')
  const statistics = Object.entries(whole.workload)
  const figures =
    rows.length === 0
      ? ''
      : `<div class="tablewrap"><table class="whole-run" id="whole-run">
<thead><tr><th>figure</th><th class="sep">this run</th></tr></thead>
<tbody>
${body(rows, 1, row => `<td class="sep">${row.format(at(whole, row.path))}</td>`)}
</tbody></table></div>`
  const own =
    statistics.length === 0
      ? ''
      : `<div class="tablewrap"><table class="whole-run-statistics" id="whole-run-statistics">
<thead><tr><th>the workload's statistic</th><th class="sep">first</th><th>last</th><th>mean</th><th>max</th></tr>
</thead>
<tbody>
${statistics
  .map(([name, f]) => {
    const format = statisticFormat(name)
    return `<tr><td title="${esc(name)}">${esc(statisticTitle(name))}</td><td class="sep">${format(f.first)}</td><td>${format(f.last)}</td><td>${format(f.mean)}</td><td>${format(f.max)}</td></tr>`
  })
  .join('\n')}
</tbody></table></div>`
  return `<div class="columns">${figures}${own}</div>`
}
