import { duringFlag, shortDuring, fmtInterval, intervalCell, noiseCell, verdictCell } from './statistics-section.js'
import { esc, fmtNumber, fmtPct, fmtRatio, fmtSeconds, fmtUs, ratioClass } from './html.js'

// The tables of an experiment's figures before, during and after the
// action: the variants side by side (the page's comparison table) and each
// variant's repetitions with their mean, min, max, spread, intervals and
// noise.

const rate = (/** @type {number | null} */ v) => fmtNumber(v, 1)

/**
 * @param {import('./phases.js').Spread} s
 * @param {(v: number | null) => string} format
 */
function meanRange(s, format) {
  if (!s) return '–'
  return s.n > 1 ? `${format(s.mean)}<span class="range">${format(s.min)} – ${format(s.max)}</span>` : format(s.mean)
}

/**
 * One row per variant.
 * @param {ReturnType<typeof import('./phases.js').experimentSummary>} summary
 */
export function overviewTable(summary) {
  const baseline = summary.variants[0]?.name ?? ''
  const rows = summary.variants.map((v, i) => {
    const a = v.aggregate
    const s = v.statistics
    const action = [...new Set(v.repetitions.map(r => r.action?.name ?? '–'))].join(', ')
    const verdicts =
      summary.variants.length > 1
        ? verdictCell(summary.comparisons, v.name, 'degradation_ratio', i === 0).replace(
            '<td class="',
            '<td class="sep '
          ) + verdictCell(summary.comparisons, v.name, 'p99_ratio', i === 0)
        : ''
    return `<tr data-variant="${esc(v.name)}"><td>${esc(v.name)}</td><td>${esc(action)}</td><td>${a.repetitions}</td>
<td>${meanRange(a.action_duration_s, fmtSeconds)}${duringFlag(s.short_during.map(d => d.samples))}</td>
<td class="sep">${rate(a.throughput.before?.mean ?? null)}</td><td>${rate(a.throughput.during?.mean ?? null)}</td>
<td>${rate(a.throughput.after?.mean ?? null)}</td>
${intervalCell(s.degradation_ratio, ratioClass(a.degradation_ratio?.mean, false))}
<td>${fmtPct(a.degradation_ratio?.spread)}</td>${noiseCell(s, 'degradation_ratio')}
<td class="sep">${fmtUs(a.latency_us.p99.before?.mean)}</td><td>${fmtUs(a.latency_us.p99.during?.mean)}</td>
<td>${fmtUs(a.latency_us.p99.after?.mean)}</td>
${intervalCell(s.p99_ratio, ratioClass(a.p99_ratio?.mean, true))}${noiseCell(s, 'p99_ratio')}
${verdicts}</tr>`
  })
  const versus = summary.variants.length > 1
  return `<div class="tablewrap"><table id="comparison">
<thead><tr class="group"><th colspan="4"></th><th colspan="6">throughput (req/s)</th><th colspan="5">latency p99</th>
${versus ? `<th colspan="2">against ${esc(baseline)}</th>` : ''}</tr>
<tr><th>variant</th><th>action</th><th>reps</th><th>action duration</th>
<th class="sep">before</th><th>during</th><th>after</th><th>during / before</th><th>spread</th><th>noise (before)</th>
<th class="sep">before</th><th>during</th><th>after</th><th>during / before</th><th>noise (before)</th>
${versus ? '<th class="sep">throughput ratio</th><th>p99 ratio</th>' : ''}</tr></thead>
<tbody>${rows.join('')}</tbody></table></div>`
}

/** @typedef {ReturnType<typeof import('./phases.js').experimentSummary>['variants'][number]} VariantFigures */

/**
 * The cells of a row of a variant's table.
 * @typedef {{ duration: string, thr: string[], thrRatio: [string, string], p50: string[], p99: string[],
 *     p99Ratio: [string, string] }} VariantCells
 */

/**
 * @param {string} label
 * @param {string} cls
 * @param {VariantCells} c
 */
const variantRow = (label, cls, c) => `<tr class="${cls}"><td>${esc(label)}</td><td>${c.duration}</td>
<td class="sep">${c.thr[0]}</td><td>${c.thr[1]}</td><td>${c.thr[2]}</td>
<td class="${c.thrRatio[1]}">${c.thrRatio[0]}</td>
<td class="sep">${c.p50[0]}</td><td>${c.p50[1]}</td><td>${c.p50[2]}</td>
<td class="sep">${c.p99[0]}</td><td>${c.p99[1]}</td><td>${c.p99[2]}</td>
<td class="${c.p99Ratio[1]}">${c.p99Ratio[0]}</td></tr>`

/**
 * Each repetition's figures, then their mean, min, max and spread.
 * @param {VariantFigures} variant
 */
export function variantTable(variant) {
  const reps = variant.repetitions.map(repetitionRow)
  const a = variant.aggregate
  const aggregates = [aggregateRow(a, 'mean'), aggregateRow(a, 'min'), aggregateRow(a, 'max'), spreadRow(a)].join('')
  const { ciRow, noiseRow } = statisticsRows(variant.statistics)
  return `<div class="tablewrap"><table>
<thead><tr class="group"><th colspan="2"></th><th colspan="4">throughput (req/s)</th><th colspan="3">latency p50</th>
<th colspan="4">latency p99</th></tr>
<tr><th>repetition</th><th>action duration</th>
<th class="sep">before</th><th>during</th><th>after</th><th>during / before</th>
<th class="sep">before</th><th>during</th><th>after</th>
<th class="sep">before</th><th>during</th><th>after</th><th>during / before</th></tr></thead>
<tbody>${reps.join('')}${aggregates}${ciRow}${noiseRow}
</tbody></table></div>`
}

/**
 * One repetition's figures: its action's duration, throughput and latency
 * before, during and after it.
 * @param {VariantFigures['repetitions'][number]} r
 */
function repetitionRow(r) {
  return variantRow(r.dir.split('/').pop() ?? r.dir, '', {
    duration: r.action
      ? fmtSeconds(r.action.duration_s) +
        (r.action.completed ? '' : ' (not ended)') +
        (r.action.ok === false ? ' (failed)' : '') +
        duringFlag(shortDuring(r))
      : 'no action',
    thr: [rate(r.throughput.before), rate(r.throughput.during), rate(r.throughput.after)],
    thrRatio: [fmtRatio(r.degradation_ratio), ratioClass(r.degradation_ratio, false)],
    p50: [fmtUs(r.latency_us.p50.before), fmtUs(r.latency_us.p50.during), fmtUs(r.latency_us.p50.after)],
    p99: [fmtUs(r.latency_us.p99.before), fmtUs(r.latency_us.p99.during), fmtUs(r.latency_us.p99.after)],
    p99Ratio: [fmtRatio(r.p99_ratio), ratioClass(r.p99_ratio, true)]
  })
}

/**
 * The repetitions' mean, min or max; only the mean's ratios are coloured.
 * @param {VariantFigures['aggregate']} a
 * @param {'mean' | 'min' | 'max'} key
 * @returns {string}
 */
function aggregateRow(a, key) {
  /** @param {import('./phases.js').Spread} s */
  const pick = s => (s ? s[key] : null)
  return variantRow(key, key === 'mean' ? 'agg first' : 'agg', {
    duration: fmtSeconds(pick(a.action_duration_s)),
    thr: [rate(pick(a.throughput.before)), rate(pick(a.throughput.during)), rate(pick(a.throughput.after))],
    thrRatio: [fmtRatio(pick(a.degradation_ratio)), key === 'mean' ? ratioClass(pick(a.degradation_ratio), false) : ''],
    p50: [
      fmtUs(pick(a.latency_us.p50.before)),
      fmtUs(pick(a.latency_us.p50.during)),
      fmtUs(pick(a.latency_us.p50.after))
    ],
    p99: [
      fmtUs(pick(a.latency_us.p99.before)),
      fmtUs(pick(a.latency_us.p99.during)),
      fmtUs(pick(a.latency_us.p99.after))
    ],
    p99Ratio: [fmtRatio(pick(a.p99_ratio)), key === 'mean' ? ratioClass(pick(a.p99_ratio), true) : '']
  })
}

/**
 * The repetitions' spread.
 * @param {VariantFigures['aggregate']} a
 */
function spreadRow(a) {
  /** @param {import('./phases.js').Spread} s */
  const sp = s => fmtPct(s?.spread)
  return variantRow('spread', 'agg', {
    duration: sp(a.action_duration_s),
    thr: [sp(a.throughput.before), sp(a.throughput.during), sp(a.throughput.after)],
    thrRatio: [sp(a.degradation_ratio), ''],
    p50: [sp(a.latency_us.p50.before), sp(a.latency_us.p50.during), sp(a.latency_us.p50.after)],
    p99: [sp(a.latency_us.p99.before), sp(a.latency_us.p99.during), sp(a.latency_us.p99.after)],
    p99Ratio: [sp(a.p99_ratio), '']
  })
}

/**
 * The ratios' confidence intervals, and the noise (CV) of the before windows.
 * @param {VariantFigures['statistics']} st
 */
function statisticsRows(st) {
  const cv = (/** @type {{ cv: number } | null} */ n) => (n ? fmtPct(n.cv) : '–')
  const ciRow = variantRow('95 % CI', 'agg ci', {
    duration: '',
    thr: ['', '', ''],
    thrRatio: [fmtInterval(st.degradation_ratio), ''],
    p50: ['', '', ''],
    p99: ['', '', ''],
    p99Ratio: [fmtInterval(st.p99_ratio), '']
  })
  const noiseRow = variantRow('noise (CV)', 'agg noise', {
    duration: '',
    thr: [cv(st.noise.throughput_before), '', ''],
    thrRatio: ['', ''],
    p50: ['', '', ''],
    p99: [cv(st.noise.p99_before), '', ''],
    p99Ratio: ['', '']
  })
  return { ciRow, noiseRow }
}
