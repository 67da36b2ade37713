import { explainRun, groupChanges } from '../analysis/explain.js'
import { loadStartMs } from '../analysis/observations.js'
import { describeCauses, describeChange, metricName, metricValue } from '../analysis/wording.js'
import { esc, fmtSeconds } from './html.js'

// When a run changed and why, in its report: the changes its summary.json
// holds (lib/analysis/explain.js; worked out again from the samples for a
// run recorded before summaries had them), as a timeline of each metric's
// segments with the causes at each change, and as marks on the charts.

const CHANGE_COLOR = '#d62728'

/**
 * The run's changes: its summary's, or found in its samples now.
 * @param {import('../results/read.js').RunData} run
 * @returns {import('../analysis/explain.js').Change[]}
 */
export function runChanges(run) {
  if (Array.isArray(run.summary?.changes)) return run.summary.changes
  if (run.samples.length === 0) return []
  return explainRun({
    samples: run.samples,
    events: run.events,
    statsIntervalS: Number(run.info.args?.statsInterval) || 1
  }).changes
}

/**
 * Seconds between the time axis' zero and the start of the load, which
 * the changes count from.
 * @param {import('../results/read.js').RunData} run
 */
function loadOffsetS(run) {
  // to a tenth of a second, as the changes are
  return run.samples.length === 0 ? 0 : Math.round((loadStartMs(run.samples) - run.t0) / 100) / 10
}

/**
 * A dashed red line on every chart at each moment the run changed.
 * @param {import('../results/read.js').RunData} run
 * @param {string} [prefix]   the variant's name, on pages of several runs
 * @returns {import('./chart-spec.js').EventMark[]}
 */
export function changeMarks(run, prefix = '') {
  const offset = loadOffsetS(run)
  return groupChanges(runChanges(run)).map(group => {
    const what = loadFirst(group.changes).map(describeChange).join(', ')
    return {
      from: Math.round((group.at_s + offset) * 1000) / 1000,
      to: null,
      label: short(`${prefix}changed: ${what} (${describeCauses(group.causes, 1)})`),
      color: CHANGE_COLOR,
      detail: describeCauses(group.causes, 5)
    }
  })
}

/**
 * A moment's changes with the load's own series (throughput, a p99) before
 * the conditions the lab saw: a chart's mark is cut short, and what moved
 * on the chart is what it marks.
 * @param {import('../analysis/explain.js').Change[]} changes
 */
function loadFirst(changes) {
  const condition = (/** @type {import('../analysis/explain.js').Change} */ c) => c.metric.startsWith('condition:')
  return [...changes.filter(c => !condition(c)), ...changes.filter(condition)]
}

/**
 * The "What changed" section: each moment with its causes, then each
 * metric's segments with their levels.
 * @param {import('../results/read.js').RunData} run
 * @param {{ heading?: string }} [options]
 */
export function changesSection(run, { heading = '<h2>What changed</h2>' } = {}) {
  const changes = runChanges(run)
  const offset = loadOffsetS(run)
  const method =
    '<p class="lead">Each per-second series is cut into segments where its level moved by at least a fifth (two fifths for a latency) for at least 10 s, by binary segmentation with a rank test corrected for autocorrelation; a cause is named when what the lab saw began, ended or changed within a few seconds of the change (see docs/change-points.md). Times are seconds from the time axis\' zero.</p>'
  if (changes.length === 0) {
    const nothing = run.samples.length
      ? '<p class="lead">Nothing: no series of this run moved beyond the noise.</p>'
      : '<p class="lead">No samples: nothing to segment.</p>'
    return `${heading}${nothing}${method}`
  }
  const moments = groupChanges(changes).map(group => {
    const causes =
      group.causes.length === 0
        ? '<span class="muted">no cause seen</span>'
        : group.causes
            .map(c => `${esc(c.label)} <span class="muted">(${fmtSeconds(c.at_s + offset)})</span>`)
            .join('<br>')
    return `<tr><td>${fmtSeconds(group.at_s + offset)}</td><td style="text-align:left">${group.changes.map(c => esc(describeChange(c))).join('<br>')}</td><td style="text-align:left">${causes}</td></tr>`
  })
  /** @type {Map<string, import('../analysis/explain.js').Change[]>} */
  const byMetric = new Map()
  for (const change of changes) byMetric.set(change.metric, [...(byMetric.get(change.metric) ?? []), change])
  const segmentRows = []
  for (const [metric, list] of byMetric) {
    list.sort((a, b) => a.at_s - b.at_s)
    const levels = [list[0].before, ...list.map(c => c.after)]
    const starts = [0, ...list.map(c => c.at_s)]
    const cells = levels.map((level, i) => {
      const end = i + 1 < starts.length ? `–${fmtSeconds(starts[i + 1] + offset)}` : '–end'
      const interval = `[${esc(metricValue(metric, level.low))}, ${esc(metricValue(metric, level.high))}]`
      return `${fmtSeconds(starts[i] + offset)}${end}: <b>${esc(metricValue(metric, level.median))}</b> <span class="muted">${interval}</span>`
    })
    segmentRows.push(
      `<tr><td>${esc(metricName(metric))}</td><td style="text-align:left">${cells.join(' → ')}</td></tr>`
    )
  }
  return `${heading}${method}
<div class="tablewrap"><table class="changes">
<thead><tr><th>time</th><th style="text-align:left">what changed (median of each side)</th>
<th style="text-align:left">what the lab saw then</th></tr></thead>
<tbody>${moments.join('')}</tbody></table></div>
<div class="tablewrap"><table class="segments">
<thead><tr><th>series</th><th style="text-align:left">segments: median [95 % interval]</th></tr></thead>
<tbody>${segmentRows.join('')}</tbody></table></div>`
}

// a mark's label is drawn on the chart: the rest is in the section above
const MARK_LABEL_CHARS = 90

/** @param {string} text */
function short(text) {
  return text.length > MARK_LABEL_CHARS ? `${text.slice(0, MARK_LABEL_CHARS - 1)}…` : text
}
