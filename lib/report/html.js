import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'

// Building blocks of the report page: escaping, number formats, tables,
// chart containers, and the page itself with uPlot, its stylesheet, the
// data and the drawing script inlined, so that the file opens offline.

const require = createRequire(import.meta.url)

/** @param {unknown} value */
export function esc(value) {
  return String(value ?? '').replace(
    /[&<>"']/g,
    c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c
  )
}

/**
 * JSON that can sit inside a <script> element: no "</" (which could close
 * it) and no "<!--".
 * @param {unknown} value
 */
export function scriptJson(value) {
  return JSON.stringify(value).replace(/<\//g, '<\\/').replace(/<!--/g, '<\\u0021--')
}

/**
 * @param {number | null | undefined} value
 * @param {number} [digits]
 */
export function fmtNumber(value, digits = 0) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** @param {number | null | undefined} us */
export function fmtUs(us) {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–'
  if (us >= 1e6) return `${(us / 1e6).toFixed(2)} s`
  if (us >= 1e3) return `${(us / 1e3).toFixed(us >= 1e5 ? 0 : us >= 1e4 ? 1 : 2)} ms`
  return `${Math.round(us)} µs`
}

/** @param {number | null | undefined} value */
export function fmtRatio(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  return `${value.toFixed(2)}×`
}

/** @param {number | null | undefined} value  a fraction */
export function fmtPct(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  return `${(value * 100).toFixed(1)} %`
}

/** @param {number | null | undefined} value */
export function fmtBytes(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = value
  let i = 0
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? Math.round(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : 1)} ${units[i]}`
}

/**
 * A figure of any size: whole above 100, else with the decimals it needs.
 * @param {number | null | undefined} value
 */
export function fmtFigure(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  const abs = Math.abs(value)
  return fmtNumber(value, abs >= 100 || Number.isInteger(value) ? 0 : abs >= 1 ? 2 : 3)
}

/** @param {number | null | undefined} seconds */
export function fmtSeconds(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–'
  if (Math.abs(seconds) < 10) return `${seconds.toFixed(Math.abs(seconds) < 1 && seconds !== 0 ? 2 : 1)} s`
  if (Math.abs(seconds) < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`
  const m = Math.floor(Math.abs(seconds) / 60)
  const s = Math.round(Math.abs(seconds) - m * 60)
  return `${seconds < 0 ? '−' : ''}${m} min${s ? ` ${s} s` : ''}`
}

/** @param {string | null | undefined} iso */
export function fmtTime(iso) {
  if (!iso) return '–'
  const ms = Date.parse(iso)
  if (!Number.isFinite(ms)) return esc(iso)
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
}

/**
 * A class for a ratio cell: red when the figure got worse by more than 10 %.
 * @param {number | null | undefined} ratio
 * @param {boolean} higherIsWorse
 */
export function ratioClass(ratio, higherIsWorse) {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return ''
  const worse = higherIsWorse ? ratio > 1.1 : ratio < 0.9
  const better = higherIsWorse ? ratio < 0.9 : ratio > 1.1
  return worse ? 'worse' : better ? 'better' : ''
}

/**
 * A definition list of label → value (values are HTML).
 * @param {[string, string][]} items
 */
export function metaList(items) {
  return `<dl class="meta">${items.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`).join('')}</dl>`
}

/**
 * A two-column table of a flat object (keys and values escaped).
 * @param {Record<string, unknown>} object
 * @param {string} [className]
 */
export function keyValueTable(object, className = 'kv') {
  const rows = Object.entries(object).map(([k, v]) => {
    const value = typeof v === 'object' && v !== null ? JSON.stringify(v) : v
    return `<tr><th scope="row">${esc(k)}</th><td>${esc(value)}</td></tr>`
  })
  return `<table class="${className}"><tbody>${rows.join('')}</tbody></table>`
}

/**
 * Chart containers, filled by the page's script.
 * @param {import('./chart-spec.js').ChartSpec[]} charts
 */
export function chartGrid(charts) {
  return `<div class="grid">${charts
    .map(chart => {
      const note = chart.note ? ` <span class="note">${esc(chart.note)}</span>` : ''
      return `
<figure class="chart${chart.wide ? ' wide' : ''}" data-chart="${esc(chart.id)}" id="${esc(chart.id)}">
  <figcaption><h3>${esc(chart.title)}${note}</h3></figcaption>
  <div class="plot"></div>
</figure>`
    })
    .join('')}
</div>`
}

/**
 * The x range shared by charts: from the earliest to the latest x of their
 * series and events.
 * @param {import('./chart-spec.js').ChartSpec[]} charts
 * @returns {[number, number] | null}
 */
export function xRange(charts) {
  let min = Infinity
  let max = -Infinity
  for (const chart of charts) {
    for (const series of chart.series) {
      for (const x of series.x) {
        if (x === null) continue
        if (x < min) min = x
        if (x > max) max = x
      }
    }
    for (const event of chart.events) {
      min = Math.min(min, event.from)
      max = Math.max(max, event.to ?? event.from)
    }
  }
  if (!Number.isFinite(min) || !Number.isFinite(max)) return null
  if (max === min) return [min - 1, max + 1]
  return [Math.floor(min), Math.ceil(max)]
}

const STYLE = `
:root { --fg: #212529; --muted: #6c757d; --line: #dee2e6; --panel: #f8f9fa; --accent: #1971c2; }
* { box-sizing: border-box; }
body { margin: 0; background: #f1f3f5; color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 18px 32px 14px; }
header .kind { text-transform: uppercase; letter-spacing: .08em; font-size: 11px; color: var(--accent);
  font-weight: 600; }
h1 { font-size: 24px; margin: 2px 0 6px; font-weight: 650; }
h2 { font-size: 19px; margin: 30px 0 4px; font-weight: 650; }
h2 + .lead { margin-top: 0; }
h3 { font-size: 14px; margin: 0; font-weight: 600; }
.lead { color: var(--muted); margin: 4px 0 12px; max-width: 1100px; }
main { padding: 6px 32px 40px; }
section.variant { border-top: 3px solid var(--line); margin-top: 34px; }
section.variant > h2 .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 8px;
  vertical-align: 1px; }
.meta { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 6px 0 0; }
.meta div { display: flex; gap: 6px; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; font-weight: 500; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 14px; margin-top: 12px; }
.chart { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px 6px;
  min-width: 0; }
.chart.wide { grid-column: 1 / -1; }
.chart .note { color: var(--muted); font-size: 12px; font-weight: 400; margin-left: 6px; }
.plot { overflow: hidden; margin-top: 6px; min-height: 40px; }
.no-data { margin: 0; padding: 40px 12px; text-align: center; color: #c92a2a; background: #fff5f5;
  border: 1px dashed #ffa8a8; border-radius: 4px; }
.tablewrap { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; font-variant-numeric: tabular-nums; border: 1px solid var(--line);
  border-radius: 6px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { background: var(--panel); font-weight: 600; font-size: 12.5px; }
thead tr.group th { text-align: center; border-left: 1px solid var(--line); }
thead tr.group th:first-child { border-left: 0; }
td.sep, th.sep { border-left: 1px solid var(--line); }
tr.section th { text-align: left; background: var(--panel); color: var(--muted); font-size: 11.5px; font-weight: 600;
  text-transform: uppercase; letter-spacing: .05em; }
table.whole-run td, table.whole-run-reps td { vertical-align: top; }
.band-tip { position: absolute; z-index: 10; pointer-events: none; max-width: 420px; white-space: normal;
  background: #fff; border: 1px solid var(--line); border-left-width: 4px; border-radius: 4px; padding: 4px 8px;
  font-size: 12px; box-shadow: 0 2px 6px rgba(0,0,0,.12); }
.band-tip strong { display: block; }
tr.agg td { background: #f8f9fa; }
tr.agg.first td { border-top: 2px solid #ced4da; }
tr.agg td:first-child { font-weight: 600; }
td.worse { color: #c92a2a; font-weight: 600; }
td.better { color: #2b8a3e; font-weight: 600; }
td.muted, span.muted { color: var(--muted); }
.warning { color: #c92a2a; font-weight: 600; margin: 6px 0; }
.range { display: block; color: var(--muted); font-size: 11.5px; font-weight: 400; }
table.kv th { text-align: left; font-weight: 500; color: var(--muted); }
table.kv td { text-align: left; white-space: normal; word-break: break-word; }
.columns { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
details { margin: 10px 0; }
details > summary { cursor: pointer; color: var(--accent); font-weight: 500; }
pre { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto;
  font-size: 12.5px; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 30px; }
.uplot { font-family: inherit; }
.u-legend { font-size: 12px; }
.u-legend .u-marker { width: 12px; height: 3px; }
`

/**
 * The whole page.
 * @param {{ title: string, kind: string, headerHtml: string, bodyHtml: string,
 *     charts: import('./chart-spec.js').ChartSpec[], footer: string }} page
 */
export async function pageHtml({ title, kind, headerHtml, bodyHtml, charts, footer }) {
  const [uplotJs, uplotCss, eventsJs, drawJs] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    readFile(new URL('./client/events.js', import.meta.url), 'utf8'),
    readFile(new URL('./client/draw.js', import.meta.url), 'utf8')
  ])
  /** @type {Record<string, import('./chart-spec.js').ChartSpec>} */
  const byId = {}
  for (const chart of charts) byId[chart.id] = chart
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pgloadgen">
<title>${esc(title)}</title>
<style>${inlineText(uplotCss, 'style')}</style>
<style>${STYLE}</style>
</head>
<body>
<header>
<div class="kind">pgloadgen ${esc(kind)}</div>
${headerHtml}
</header>
<main>
${bodyHtml}
</main>
<footer>${footer}</footer>
<script type="application/json" id="report-data">${scriptJson({ charts: byId })}</script>
<script>${inlineText(uplotJs, 'script')}</script>
<script>${inlineText(eventsJs, 'script')}</script>
<script>${inlineText(drawJs, 'script')}</script>
</body>
</html>
`
}

/**
 * Library text to inline: it must not close its own element early.
 * @param {string} text
 * @param {'script' | 'style'} element
 */
function inlineText(text, element) {
  const closing = new RegExp(`</${element}`, 'gi')
  return text.replace(closing, `<\\/${element}`)
}
