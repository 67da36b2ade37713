import { mean } from '../results/arithmetic.js'
import { actionVacuumCost, runVacuumCosts } from '../results/vacuum-costs.js'
import { esc, fmtBytes, fmtFigure, fmtNumber, fmtSeconds } from './html.js'

// What each vacuum cost (lib/pgstats/vacuum-cost.js): on a run's page, one
// column per vacuum of the run; on an experiment's page, one column per
// variant, the mean over its repetitions of each run's action (its first
// vacuum with figures: the sidecar's, else the first autovacuum the server
// logged). A figure the server cannot give says why ("n/a (…)"), never 0.

/** @typedef {import('../results/vacuum-costs.js').VacuumCost} VacuumCost */
/** @typedef {import('../results/vacuum-costs.js').VacuumEntry} VacuumEntry */

/**
 * @typedef {object} Figure
 * @property {string} label
 * @property {string} key            its key in VacuumCost.unavailable
 * @property {(c: VacuumCost) => number | null | undefined} pick
 * @property {(v: number | null) => string} format
 * @property {string} means
 */

const count = (/** @type {number | null} */ v) => fmtFigure(v)

/** @type {Figure[]} */
export const FIGURES = [
  {
    label: 'heap pages',
    key: 'heap_pages',
    pick: c => c.heap_pages,
    format: count,
    means: "the table's pages after the vacuum"
  },
  {
    label: 'pages scanned',
    key: 'pages_scanned',
    pick: c => c.pages_scanned,
    format: count,
    means: 'heap pages the vacuum read (its report)'
  },
  {
    label: 'pages skipped',
    key: 'pages_skipped',
    pick: c => c.pages_skipped,
    format: count,
    means: 'heap pages the visibility map let it skip: all-visible (all-frozen when aggressive)'
  },
  {
    label: 'pages frozen',
    key: 'pages_frozen',
    pick: c => c.pages_frozen,
    format: count,
    means: 'heap pages on which it froze tuples (PostgreSQL 16+); on 15, the all-frozen pages the visibility map gained'
  },
  {
    label: 'pages with dead items removed',
    key: 'pages_with_dead_items_removed',
    pick: c => c.pages_with_dead_items_removed,
    format: count,
    means: 'heap pages whose dead item identifiers it removed'
  },
  {
    label: 'dead items removed',
    key: 'dead_items_removed',
    pick: c => c.dead_items_removed,
    format: count,
    means: 'dead item identifiers removed'
  },
  {
    label: 'index scans',
    key: 'index_scans',
    pick: c => c.index_scans,
    format: count,
    means: 'passes over the indexes (more than 1: the dead items did not fit in maintenance_work_mem)'
  },
  {
    label: 'WAL bytes',
    key: 'wal_bytes',
    pick: c => c.wal_bytes,
    format: fmtBytes,
    means: "WAL the vacuum itself wrote (its report's WAL usage)"
  },
  {
    label: 'full-page images',
    key: 'wal_fpi',
    pick: c => c.wal_fpi,
    format: count,
    means: 'full-page images in that WAL: the first change of a page after a checkpoint'
  },
  {
    label: 'WAL records',
    key: 'wal_records',
    pick: c => c.wal_records,
    format: count,
    means: 'WAL records the vacuum wrote'
  },
  {
    label: 'server WAL meanwhile',
    key: 'server_wal',
    pick: c => c.server_wal?.bytes,
    format: fmtBytes,
    means: "pg_stat_wal's wal_bytes before and after: the whole server, the load included"
  },
  {
    label: 'vacuum reads (pg_stat_io)',
    key: 'io',
    pick: c => c.io?.reads,
    format: count,
    means: 'pg_stat_io, context vacuum, of the backend type that ran it: blocks read into its ring (PostgreSQL 16+)'
  },
  {
    label: 'vacuum writes (pg_stat_io)',
    key: 'io',
    pick: c => c.io?.writes,
    format: count,
    means: 'blocks it had to write out of its ring itself'
  },
  {
    label: 'vacuum extends (pg_stat_io)',
    key: 'io',
    pick: c => c.io?.extends,
    format: count,
    means: 'blocks it added to relations'
  },
  {
    label: 'all-visible before',
    key: 'vm',
    pick: c => c.vm_before?.all_visible,
    format: count,
    means: 'pg_visibility_map_summary: pages marked all-visible before the vacuum'
  },
  { label: 'all-visible after', key: 'vm', pick: c => c.vm_after?.all_visible, format: count, means: 'and after' },
  {
    label: 'all-frozen before',
    key: 'vm',
    pick: c => c.vm_before?.all_frozen,
    format: count,
    means: 'pages marked all-frozen before the vacuum'
  },
  { label: 'all-frozen after', key: 'vm', pick: c => c.vm_after?.all_frozen, format: count, means: 'and after' }
]

/**
 * A cell: the figure, or n/a with the reason.
 * @param {Figure} figure
 * @param {(number | null)[]} values   one per repetition (or one)
 * @param {Record<string, string>[]} unavailable
 */
function cell(figure, values, unavailable) {
  const value = mean(values)
  const reason =
    unavailable
      .map(
        u =>
          u[figure.key] ??
          (figure.key === 'io' || figure.key === 'vm' || figure.key === 'server_wal' ? null : (u.report ?? u.counters))
      )
      .find(Boolean) ?? null
  if (value === null) return `<span class="muted">n/a${reason ? ` (${esc(reason)})` : ''}</span>`
  const text = figure.format(value)
  return reason ? `${text} <span class="muted">(${esc(reason)})</span>` : text
}

/**
 * The phases' durations, in one line.
 * @param {(Record<string, number> | null)[]} phases
 * @param {(string | undefined)[]} reasons
 */
function phasesCell(phases, reasons) {
  const known = phases.filter(p => p !== null)
  if (known.length === 0) {
    return `<span class="muted">n/a (${esc(reasons.find(Boolean) ?? 'no poll of the progress view saw it')})</span>`
  }
  const keys = [...new Set(known.flatMap(p => Object.keys(/** @type {Record<string, number>} */ (p))))]
  return keys
    .map(
      k =>
        `${esc(k.replace(/_s$/, '').replace(/_/g, ' '))} ${fmtSeconds(mean(known.map(p => /** @type {Record<string, number>} */ (p)[k] ?? 0)))}`
    )
    .join(', ')
}

/**
 * A table with one column per group of vacuums (each column: the mean of its group).
 * @param {{ heading: string, entries: VacuumEntry[] }[]} columns
 */
function costTable(columns) {
  const head = columns.map(c => `<th>${esc(c.heading)}</th>`).join('')
  const rows = FIGURES.map(
    figure =>
      `<tr><td title="${esc(figure.means)}">${esc(figure.label)}</td>${columns
        .map(
          c =>
            `<td>${cell(
              figure,
              c.entries.map(e => figure.pick(e.cost) ?? null),
              c.entries.map(e => e.cost.unavailable ?? {})
            )}</td>`
        )
        .join('')}</tr>`
  )
  const durations = columns.map(c => `<td>${fmtSeconds(mean(c.entries.map(e => e.duration_s)))}</td>`).join('')
  const duration = `<tr><td>duration</td>${durations}</tr>`
  const sources = columns
    .map(c => `<td>${esc([...new Set(c.entries.map(e => e.cost.source ?? 'no report'))].join(', '))}</td>`)
    .join('')
  const source = `<tr><td>figures from</td>${sources}</tr>`
  const phasesTitle = "time in each phase of pg_stat_progress_vacuum, to the follower's polling interval"
  const phases = `<tr><td title="${phasesTitle}">phases</td>${columns
    .map(
      c =>
        `<td>${phasesCell(
          c.entries.map(e => e.cost.phases ?? null),
          c.entries.map(e => e.cost.unavailable?.phases)
        )}</td>`
    )
    .join('')}</tr>`
  return `<div class="tablewrap"><table class="vacuum-cost">
<thead><tr><th></th>${head}</tr></thead>
<tbody>${duration}${rows.join('')}${phases}${source}</tbody></table></div>`
}

const LEAD =
  "From the vacuum's own report (VACUUM VERBOSE for the sidecar's vacuums, the server log for autovacuums): pages, index scans, the WAL it wrote; around it: the visibility map (pg_visibility), pg_stat_io's vacuum context and the server's WAL (pg_stat_wal, the whole server). Point at a figure's name for its meaning."

/**
 * The run page's section: every vacuum of the run with figures.
 * @param {import('../results/read.js').RunData} run
 */
export function runVacuumCostSection(run) {
  const entries = runVacuumCosts(run).slice(0, 12)
  if (entries.length === 0) return ''
  const columns = entries.map(e => {
    const of = e.table ? ` of ${e.table}` : ''
    const at = e.ts ? ` at ${fmtSeconds((Date.parse(e.ts) - run.t0) / 1000)}` : ''
    return { heading: `${e.action.replace(/_/g, ' ')}${of}${at}`, entries: [e] }
  })
  return `<h2 id="vacuum-cost">What each vacuum cost</h2>
<p class="lead">${esc(LEAD)}</p>
${costTable(columns)}`
}

/**
 * Per variant, the mean over its repetitions of each run's action's cost;
 * the repetitions' figures too. Null when no run has any.
 * @param {import('../results/read.js').ExperimentData} experiment
 */
export function experimentVacuumCosts(experiment) {
  const variants = experiment.variants.map(variant => {
    const entries = variant.repetitions.map(actionVacuumCost)
    const known = /** @type {VacuumEntry[]} */ (entries.filter(e => e !== null))
    /** @type {Record<string, number | null>} */
    const means = {}
    for (const figure of FIGURES) {
      const key = figure.label
        .replace(/[^a-z0-9]+/gi, '_')
        .replace(/_$/, '')
        .toLowerCase()
      const values = known.map(e => figure.pick(e.cost) ?? null)
      const m = mean(values)
      means[key] = m === null ? null : Math.round(m * 10) / 10
    }
    /** @type {Record<string, string>} */
    const unavailable = Object.assign({}, ...known.map(e => e.cost.unavailable ?? {}))
    return {
      name: variant.name,
      repetitions: entries.map(e => e && { action: e.action, duration_s: e.duration_s, cost: e.cost }),
      mean: known.length ? means : null,
      unavailable,
      entries: known
    }
  })
  return variants.some(v => v.entries.length > 0) ? variants : null
}

/**
 * The experiment page's table: one column per variant.
 * @param {import('../results/read.js').ExperimentData} experiment
 */
export function experimentVacuumCostSection(experiment) {
  const variants = experimentVacuumCosts(experiment)
  if (!variants) return ''
  const columns = variants.map(v => ({
    heading: `${v.name} (${v.entries.length} of ${v.repetitions.length})`,
    entries: v.entries
  }))
  return `<h3 id="vacuum-cost" style="margin-top:16px">What each vacuum cost</h3>
<p class="lead">Each run's action (its first vacuum with figures), the mean over the repetitions that have them.
${esc(LEAD)}</p>
${costTable(columns)}
<p class="lead">${fmtNumber(variants.reduce((n, v) => n + v.entries.length, 0))} vacuums with figures.</p>`
}

/**
 * The experiment's summary.json with each variant's vacuum cost
 * (vacuum_cost: the repetitions' and their mean).
 * @template {{ variants: { name: string }[] }} S
 * @param {S} summary
 * @param {import('../results/read.js').ExperimentData} experiment
 * @returns {S}
 */
export function withVacuumCosts(summary, experiment) {
  const costs = experimentVacuumCosts(experiment)
  if (!costs) return summary
  return {
    ...summary,
    variants: summary.variants.map((variant, i) => ({
      ...variant,
      vacuum_cost: { mean: costs[i].mean, unavailable: costs[i].unavailable, repetitions: costs[i].repetitions }
    }))
  }
}
