import { overviewChart, paletteColor, prepareCharts, variantCharts } from './charts.js'
import { METHOD } from './phases.js'
import { redact } from './redact.js'
import { eventsSection } from './run-page.js'
import { changesSection } from './changes-section.js'
import { capacitySection } from './capacity-section.js'
import { comparisonCharts } from './series-charts.js'
import { WHOLE_RUN_METHOD } from '../results/whole-run.js'
import { wholeRunComparison, wholeRunRepetitions } from './whole-run-section.js'
import { experimentVacuumCostSection } from './vacuum-cost-section.js'
import { experimentWraparoundSection } from './wraparound-section.js'
import { serversSection } from './servers-section.js'
import { statisticsLead, statisticsNotes } from './statistics-section.js'
import { overviewTable, variantTable } from './around-action-tables.js'
import { answerSection } from './answer-section.js'
import { experimentAnswer } from './answer-lead.js'
import { chartGrid, esc, fmtSeconds, fmtTime, keyValueTable, metaList, xRange } from './html.js'

// The report of an experiment directory: the variants compared, then one
// panel group per variant on a time axis shared by all of them (seconds
// from the rollback), the prepare phase, the settings and the plan.

/** @typedef {ReturnType<typeof import('./phases.js').experimentSummary>} ExperimentSummary */
/** @typedef {import('./chart-spec.js').ChartSpec} ChartSpec */

/**
 * @param {import('../results/read.js').ExperimentData} experiment
 * @param {ExperimentSummary} summary
 * @returns {{ title: string, headerHtml: string, bodyHtml: string, charts: ChartSpec[] }}
 */
export function experimentPage(experiment, summary) {
  const info = redact(experiment.info)
  const plan = /** @type {Record<string, any>} */ (info.plan ?? {})
  const name = summary.name
  const charts = experimentCharts(experiment, summary)
  const { overview, perVariant, comparison, capacity, prepare } = charts
  const actionFirst = aboutOneAction(experiment, summary)
  const headerHtml = experimentHeader(experiment, summary, info, plan)
  const variantSections = experiment.variants.map((variant, i) =>
    variantSection(variant, i, { figures: summary.variants[i], plan, actionFirst, charts: perVariant[i] })
  )
  const aroundAction = aroundActionSection(experiment, summary, overview, actionFirst)
  const wholeRuns = wholeRunsSection(summary, comparison)
  const prepareSection = experiment.prepare
    ? `<section class="variant" id="prepare"><h2>Prepare</h2><p class="lead">The load that built the data set before the snapshot every variant rolls back to.</p>${chartGrid(prepare)}</section>`
    : ''
  const bodyHtml = `
${actionFirst ? aroundAction + wholeRuns : wholeRuns + aroundAction}
${capacity.html}
${variantSections.join('\n')}
${prepareSection}
<h2>How the figures are computed</h2>
<h3>Around the action</h3>
${keyValueTable(METHOD)}
<h3 style="margin-top:12px">Whole runs</h3>
${keyValueTable(WHOLE_RUN_METHOD)}
<h2>Server settings</h2>
${serversSection(summary.variants)}
<details><summary>The plan</summary><pre>${esc(JSON.stringify(plan, null, 2))}</pre></details>`
  return { title: `pgloadgen experiment: ${name}`, headerHtml, bodyHtml, charts: [...charts.shared, ...prepare] }
}

/**
 * The charts of the page: every variant's throughput, the variants over
 * time, each variant's, the capacity searches' on one shared time axis;
 * the prepare phase's on its own.
 * @param {import('../results/read.js').ExperimentData} experiment
 * @param {ExperimentSummary} summary
 */
function experimentCharts(experiment, summary) {
  const overview = experiment.variants.length > 0 ? overviewChart(experiment.variants, 'overview') : null
  const perVariant = experiment.variants.map((variant, i) => variantCharts(variant, `variant-${i}`))
  const comparison = experiment.variants.length > 0 ? comparisonCharts(experiment.variants, 'compare') : []
  const shared = [...(overview ? [overview] : []), ...comparison, ...perVariant.flat()]
  const capacity = capacitySection(
    experiment.variants.flatMap((variant, i) =>
      variant.repetitions.map((run, r) => ({
        label: `${variant.name} ${summary.variants[i].repetitions[r].dir.split('/').pop()}`,
        run,
        capacity: summary.variants[i].repetitions[r].capacity
      }))
    ),
    'capacity'
  )
  shared.push(...capacity.charts)
  const range = xRange(shared)
  for (const chart of shared) Object.assign(chart, { xRange: range })
  const prepare = experiment.prepare ? prepareCharts(experiment.prepare, 'prepare') : []
  const prepareRange = xRange(prepare)
  for (const chart of prepare) Object.assign(chart, { xRange: prepareRange, sync: 'prepare' })
  return { overview, perVariant, comparison, shared, capacity, prepare }
}

/**
 * The page's title, the plan's description, the answer and the facts of
 * the experiment.
 * @param {import('../results/read.js').ExperimentData} experiment
 * @param {ExperimentSummary} summary
 * @param {Record<string, any>} info   run.json, redacted
 * @param {Record<string, any>} plan
 */
function experimentHeader(experiment, summary, info, plan) {
  const name = summary.name
  const runs = experiment.variants.flatMap(v => v.repetitions)
  const firstRun = runs[0] ?? experiment.prepare
  const started = Date.parse(info.started_at ?? '')
  const ended = Date.parse(info.ended_at ?? '')
  const repCounts = experiment.variants.map(v => v.repetitions.length)
  const interrupted = experiment.info.interrupted
    ? '<p class="warning">Interrupted: the experiment was stopped before all its repetitions ran.</p>'
    : ''
  return `<h1>${esc(name)}</h1>
${plan.description ? `<p class="lead">${esc(plan.description)}</p>` : ''}
${interrupted}
${answerSection(experimentAnswer(plan, summary))}
${metaList([
  ['pgloadgen', esc(info.pgloadgen_version ?? '?')],
  ['PostgreSQL', esc(info.postgres_version ?? '?')],
  ['started', fmtTime(info.started_at)],
  ['ended', fmtTime(info.ended_at)],
  ['duration', Number.isFinite(ended - started) ? fmtSeconds((ended - started) / 1000) : '–'],
  ['variants', String(experiment.variants.length)],
  ['repetitions', repCounts.length ? esc([...new Set(repCounts)].join(' / ')) : '0'],
  ['workload', esc(firstRun?.info.workload ?? plan.workload?.name ?? plan.workload ?? '?')],
  ['table', esc(firstRun?.info.table ?? '?')]
])}`
}

/**
 * One variant: its steps, its table, its whole-run figures, its charts,
 * what changed and the events of each repetition.
 * @param {import('../results/read.js').VariantData} variant
 * @param {number} i
 * @param {{ figures: ExperimentSummary['variants'][number], plan: Record<string, any>, actionFirst: boolean,
 *     charts: ChartSpec[] }} context
 */
function variantSection(variant, i, { figures, plan, actionFirst, charts }) {
  const steps = planVariant(plan, variant.name)
  const recorded = variant.repetitions.length > 0
  const table = recorded ? variantTable(figures) : '<p class="lead">No repetition of this variant was recorded.</p>'
  const wholeRun = recorded
    ? `<details${actionFirst ? '' : ' open'}><summary>Whole-run figures of each repetition</summary>${wholeRunRepetitions(figures, `whole-run-${i}`)}</details>`
    : ''
  const changes = variant.repetitions
    .map((run, r) => {
      const heading = `<h3 style="margin-top:12px">What changed in ${esc(figures.repetitions[r].dir)}</h3>`
      return changesSection(run, { heading })
    })
    .join('')
  const events = variant.repetitions
    .map(
      (run, r) =>
        `<h3 style="margin-top:12px">${esc(figures.repetitions[r].dir)}</h3>${eventsSection(run, { heading: false })}`
    )
    .join('')
  return `<section class="variant" id="variant-${i}">
<h2><span class="swatch" style="background:${paletteColor(i)}"></span>${esc(variant.name)}</h2>
${steps?.description ? `<p class="lead">${esc(steps.description)}</p>` : ''}
${steps?.steps ? `<p class="lead">Steps: ${esc(describeSteps(steps.steps))}</p>` : ''}
${table}
${wholeRun}
${chartGrid(charts)}
${changes}
<details><summary>Events of each repetition</summary>
${events}
</details>
</section>`
}

/**
 * The variants compared around the action: the table, the vacuums' cost,
 * the wraparound, the statistics and every variant's throughput.
 * @param {import('../results/read.js').ExperimentData} experiment
 * @param {ExperimentSummary} summary
 * @param {ChartSpec | null} overview
 * @param {boolean} actionFirst
 */
function aroundActionSection(experiment, summary, overview, actionFirst) {
  const whichAction = actionFirst
    ? ''
    : " The action: each run's first vacuum, else analyze or checkpoint, else retention run, else autovacuum (see below)."
  return `
<h2 id="around-action">Variants compared${actionFirst ? '' : ' around the first action'}</h2>
<p class="lead">Means over the repetitions; under each ratio, its confidence interval and min – max. Spread: (max − min)
/ mean. Throughput in requests/s, all request types. Red: more than 10 % worse during the action than before
it.${whichAction}</p>
<p class="lead">${esc(statisticsLead())}</p>
${overviewTable(summary)}
${experimentVacuumCostSection(experiment)}
${experimentWraparoundSection(experiment)}
${statisticsNotes(summary)}
${overview ? chartGrid([overview]) : ''}`
}

/**
 * The variants compared over whole runs, and over time.
 * @param {ExperimentSummary} summary
 * @param {ChartSpec[]} comparison
 */
function wholeRunsSection(summary, comparison) {
  const multipleExample = summary.variants.length > 1 ? ` (0.80× ${esc(summary.variants[0].name)})` : ''
  const overTime = comparison.length
    ? `<h3 style="margin-top:16px">Every variant over time</h3><p class="lead">A colour per variant, dashed: repetitions after the first; bands: each run's actions, in its variant's colour (point at a band for what it did).</p>${chartGrid(comparison)}`
    : ''
  return `
<h2 id="whole-runs">Whole runs compared</h2>
<p class="lead">Every second of each run, not only around an action. Each figure's mean over the repetitions; under it,
min – max and the spread ((max − min) / mean) when the repetitions differ, and for the other variants their mean as a
multiple of the first variant's${multipleExample}. Rates and latencies leave out each run's first second and paused
seconds; the table's figures and the workload's statistics are read from every sample. Each figure's definition is
under "How the figures are computed".</p>
${wholeRunComparison(summary.variants)}
${overTime}`
}

/**
 * Whether every run is one vacuum, analyze or checkpoint under load, with
 * load before it: then the comparison around it leads the page; else
 * (retention runs, a fillfactor change, a ramp, no action) the whole-run
 * comparison does.
 * @param {import('../results/read.js').ExperimentData} experiment
 * @param {ReturnType<typeof import('./phases.js').experimentSummary>} summary
 */
function aboutOneAction(experiment, summary) {
  const reps = summary.variants.flatMap(v => v.repetitions)
  const oneAction = experiment.variants
    .flatMap(v => v.repetitions)
    .every(run => run.events.filter(e => e.kind === 'start' && e.action !== 'rollback').length === 1)
  return (
    oneAction &&
    reps.every(
      r => r.action?.source === 'events' && /^(vacuum|analyze|checkpoint)/.test(r.action.name) && r.samples.before > 0
    )
  )
}

/**
 * @param {Record<string, any>} plan
 * @param {string} name
 * @returns {Record<string, any> | null}
 */
function planVariant(plan, name) {
  const variants = plan.variants
  if (Array.isArray(variants)) return variants.find(v => v && v.name === name) ?? null
  if (variants && typeof variants === 'object' && variants[name]) {
    return { name, ...(Array.isArray(variants[name]) ? { steps: variants[name] } : variants[name]) }
  }
  return null
}

/**
 * One line per plan: "load 60s at 8 → action vacuum freeze → wait …".
 * @param {unknown} steps
 */
function describeSteps(steps) {
  if (!Array.isArray(steps)) return JSON.stringify(steps)
  return steps
    .map(step => {
      if (!step || typeof step !== 'object') return String(step)
      if (typeof step.kind === 'string') return describeStep(step)
      return Object.entries(step)
        .map(([k, v]) =>
          typeof v === 'object' && v !== null
            ? `${k} ${Object.entries(v)
                .map(([a, b]) => `${a}=${typeof b === 'object' ? JSON.stringify(b) : b}`)
                .join(' ')}`
            : `${k} ${v}`
        )
        .join(', ')
    })
    .join(' → ')
}

/**
 * A step of a validated plan ({ kind, label, … }).
 * @param {Record<string, any>} step
 */
function describeStep(step) {
  const rest = Object.fromEntries(Object.entries(step).filter(([k]) => k !== 'kind' && k !== 'label'))
  const kind = step.kind
  if (kind === 'load' && typeof rest.seconds === 'number') {
    const { seconds, ...more } = rest
    return `load ${fmtSeconds(seconds)}${plainFields(more)}`
  }
  if (kind === 'action' && rest.action && typeof rest.action === 'object') {
    const { action, table, ...flags } = rest.action
    const on = Object.entries(flags)
      .filter(([, v]) => v === true)
      .map(([k]) => k)
    return `${action}${on.length ? ` (${on.join(', ')})` : ''}${table ? ` of ${table}` : ''}`
  }
  if (kind === 'wait') {
    const { until, timeoutS, ...more } = rest
    const atMost = typeof timeoutS === 'number' ? ` (at most ${fmtSeconds(timeoutS)})` : ''
    return `wait until ${typeof until === 'object' ? JSON.stringify(until) : until}${atMost}${plainFields(more)}`
  }
  return `${kind}${plainFields(rest)}`
}

/** @param {Record<string, unknown>} fields */
function plainFields(fields) {
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`)
  return parts.length ? ` ${parts.join(', ')}` : ''
}
