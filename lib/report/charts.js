import { activeTypes, timeline } from './timeline.js'
import { findAction, vacuumsInSamples } from './actions.js'

// Chart specifications: what the page's script draws, computed here so that
// the browser only plots. Each series carries its own x values (seconds from
// its run's t0); the page joins them onto one axis per chart.

/**
 * @typedef {'count' | 'rate' | 'us' | 'bytes' | 'pct' | 'phase'} Format
 */

/**
 * @typedef {object} SeriesSpec
 * @property {string} label
 * @property {string} color
 * @property {(number | null)[]} x
 * @property {(number | null)[]} y
 * @property {0 | 1} [axis]       1: the right-hand axis
 * @property {boolean} [step]
 * @property {number} [width]
 * @property {number[]} [dash]
 */

/**
 * @typedef {object} EventMark
 * @property {number} from       seconds from t0
 * @property {number | null} to  null: a point in time
 * @property {string} label
 * @property {string} color
 */

/**
 * @typedef {object} ChartSpec
 * @property {string} id
 * @property {string} title
 * @property {string} [note]
 * @property {Format} format
 * @property {Format} [rightFormat]
 * @property {string} [rightLabel]
 * @property {boolean} [log]
 * @property {boolean} [zero]    the y scale starts at zero
 * @property {boolean} [wide]    spans the page's width
 * @property {SeriesSpec[]} series
 * @property {EventMark[]} events
 */

const TYPE_COLORS = /** @type {Record<string, string>} */ ({
  insert_row: '#1f77b4',
  read_row: '#2ca02c',
  update_row: '#ff7f0e',
  injected_error: '#d62728',
  fetch_max: '#9467bd'
})
// Repetitions and variants: colours that the action bands (orange, blue,
// green, purple at low opacity) do not drown.
const PALETTE = ['#1c7ed6', '#c2255c', '#2b8a3e', '#7048e8', '#0b7285', '#e67700', '#5c940d', '#862e9c', '#495057', '#a61e4d']

/** @param {number} i */
export function paletteColor (i) {
  return PALETTE[i % PALETTE.length]
}

/**
 * @param {string} type
 * @param {number} i
 */
function typeColor (type, i) {
  return TYPE_COLORS[type] ?? paletteColor(i + 5)
}

/** @param {string} action */
function actionColor (action) {
  if (/freeze|wraparound/.test(action)) return '#e8590c'
  if (/^autovacuum/.test(action)) return '#0b7285'
  if (/^vacuum/.test(action)) return '#1971c2'
  if (action === 'analyze') return '#2f9e44'
  if (action === 'checkpoint') return '#7048e8'
  if (action === 'pause') return '#868e96'
  if (action === 'rollback') return '#c92a2a'
  return '#495057'
}

/**
 * A run's events as bands (actions from start to end; pauses until the
 * resume) and lines (other points). A vacuum's phase-change points are left
 * out: the vacuum phase chart shows them.
 * @param {import('./read.js').RunData} run
 * @returns {EventMark[]}
 */
export function eventMarks (run) {
  const at = (/** @type {string} */ ts) => round((Date.parse(ts) - run.t0) / 1000, 3)
  /** @type {EventMark[]} */
  const marks = []
  const lastX = run.samples.length ? at(run.samples[run.samples.length - 1].t) : null
  /** @type {Map<string, import('./read.js').LabEvent>} */
  const open = new Map()
  /** @type {import('./read.js').LabEvent | null} */
  let pausedAt = null
  for (const event of run.events) {
    const key = `${event.action}\u0000${event.table ?? ''}`
    if (event.kind === 'start') {
      open.set(key, event)
    } else if (event.kind === 'end') {
      const start = open.get(key)
      open.delete(key)
      const to = at(event.ts)
      const from = start ? at(start.ts) : round(to - (event.duration_s ?? 0), 3)
      marks.push({ from, to, label: actionLabel(event.action, event.ok === false), color: actionColor(event.action) })
    } else if (event.action === 'pause') {
      pausedAt ??= event
    } else if (event.action === 'resume') {
      if (pausedAt) marks.push({ from: at(pausedAt.ts), to: at(event.ts), label: 'paused', color: actionColor('pause') })
      pausedAt = null
    } else if (!(open.has(key) && event.detail && 'phase' in event.detail)) {
      marks.push({ from: at(event.ts), to: null, label: pointLabel(event), color: actionColor(event.action) })
    }
  }
  // Still running when the load ended: a band to the last sample.
  for (const start of open.values()) {
    const from = at(start.ts)
    marks.push({ from, to: Math.max(from, lastX ?? from), label: `${actionLabel(start.action, false)} (not ended)`, color: actionColor(start.action) })
  }
  if (pausedAt) marks.push({ from: at(pausedAt.ts), to: Math.max(at(pausedAt.ts), lastX ?? 0), label: 'paused', color: actionColor('pause') })
  // Vacuums nobody asked for (autovacuums) show in the samples only.
  if (!run.events.some(e => e.kind === 'start' && /^vacuum/.test(e.action))) {
    for (const span of vacuumsInSamples(run.samples)) {
      const from = round((span.startMs - run.t0) / 1000, 3)
      const to = span.endMs === null ? Math.max(from, lastX ?? from) : round((span.endMs - run.t0) / 1000, 3)
      marks.push({ from, to, label: `${actionLabel(span.name, false)}${span.endMs === null ? ' (not ended)' : ''}`, color: actionColor(span.name) })
    }
  }
  return marks
}

/**
 * @param {string} action
 * @param {boolean} failed
 */
function actionLabel (action, failed) {
  const name = action.replace(/_/g, ' ')
  return failed ? `${name} (failed)` : name
}

/** @param {import('./read.js').LabEvent} event */
function pointLabel (event) {
  const detail = /** @type {Record<string, any>} */ (event.detail ?? {})
  if (event.action === 'concurrency' && 'to' in detail) return `concurrency → ${detail.to}`
  return event.action.replace(/_/g, ' ')
}

/**
 * The charts of one run.
 * @param {import('./read.js').RunData} run
 * @param {string} prefix   unique per page
 * @returns {ChartSpec[]}
 */
export function runCharts (run, prefix) {
  const points = timeline(run)
  const x = points.map(p => round(p.x, 3))
  const events = eventMarks(run)
  const types = activeTypes([run])
  /**
   * @param {string} label
   * @param {string} color
   * @param {(p: import('./timeline.js').Point) => number | null} pick
   * @param {Partial<SeriesSpec>} [extra]
   * @returns {SeriesSpec}
   */
  const series = (label, color, pick, extra = {}) => ({ label, color, x, y: points.map(p => roundOrNull(pick(p))), ...extra })
  /**
   * One percentile per request type, on a log scale.
   * @param {'p50' | 'p99'} q
   * @returns {ChartSpec}
   */
  const latencyChart = (q) => ({
    id: `${prefix}-${q}`,
    title: `Latency ${q} per request type`,
    note: 'log scale',
    format: 'us',
    log: true,
    series: types.map((type, i) => series(type, typeColor(type, i), p => p.types[type]?.[q] ?? null)),
    events
  })
  return [
    {
      id: `${prefix}-throughput`,
      title: 'Throughput per request type',
      format: 'rate',
      zero: true,
      series: [
        series('all types', '#343a40', p => p.rate, { width: 2 }),
        ...types.map((type, i) => series(type, typeColor(type, i), p => p.types[type]?.rate ?? 0, { width: 1.25 }))
      ],
      events
    },
    latencyChart('p50'),
    latencyChart('p99'),
    {
      id: `${prefix}-tuples`,
      title: 'Dead and live tuples',
      format: 'count',
      rightFormat: 'count',
      rightLabel: 'live',
      zero: true,
      series: [
        series('dead tuples', '#d6336c', p => p.dead, { width: 2 }),
        series('live tuples (right axis)', '#5c7cfa', p => p.live, { axis: 1, dash: [6, 3] })
      ],
      events
    },
    {
      id: `${prefix}-size`,
      title: 'Relation size',
      note: 'total: pg_total_relation_size (heap, indexes, TOAST)',
      format: 'bytes',
      zero: true,
      series: [
        series('total', '#0c8599', p => p.tableBytes, { width: 2 }),
        series('indexes', '#e67700', p => p.indexBytes)
      ],
      events
    },
    {
      id: `${prefix}-xid`,
      title: 'Transaction ID age of the table',
      format: 'count',
      zero: true,
      series: [series('xid age', '#5f3dc4', p => p.xidAge, { width: 2 })],
      events
    },
    {
      id: `${prefix}-vacuum`,
      title: 'Vacuum phase and heap scanned',
      format: 'phase',
      rightFormat: 'pct',
      rightLabel: 'heap scanned',
      series: [
        series('phase', '#1971c2', p => p.vacuumPhase, { step: true, width: 2 }),
        series('heap scanned % (right axis)', '#e8590c', p => p.heapScannedPct, { axis: 1, dash: [4, 3] })
      ],
      events
    },
    {
      id: `${prefix}-concurrency`,
      title: 'Concurrency and generator CPU',
      format: 'count',
      rightFormat: 'pct',
      rightLabel: 'CPU',
      zero: true,
      series: [
        series('concurrency', '#343a40', p => p.concurrency, { step: true, width: 2 }),
        series('generator CPU % of a core (right axis)', '#f08c00', p => p.cpuPct, { axis: 1 })
      ],
      events
    }
  ]
}

/**
 * The charts of one variant: each repetition a series, on the variant's
 * runs' shared axis (seconds from each run's t0, the rollback).
 * @param {import('./read.js').VariantData} variant
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function variantCharts (variant, prefix) {
  const reps = variant.repetitions.map((run, i) => {
    const points = timeline(run)
    return { run, i, points, x: points.map(p => round(p.x, 3)), label: `rep ${repNumber(run.dir, i)}`, color: paletteColor(i) }
  })
  const events = reps.flatMap(rep => eventMarks(rep.run))
  /**
   * @param {(p: import('./timeline.js').Point) => number | null} pick
   * @param {Partial<SeriesSpec>} [extra]
   * @returns {SeriesSpec[]}
   */
  const perRep = (pick, extra = {}) => reps.map(rep => ({ label: rep.label, color: rep.color, x: rep.x, y: rep.points.map(p => roundOrNull(pick(p))), width: 1.5, ...extra }))
  return [
    { id: `${prefix}-throughput`, title: 'Throughput, all request types', format: 'rate', zero: true, series: perRep(p => p.rate), events },
    { id: `${prefix}-p50`, title: 'Latency p50, all request types', note: 'log scale; done-weighted mean of the per-type p50', format: 'us', log: true, series: perRep(p => p.p50), events },
    { id: `${prefix}-p99`, title: 'Latency p99, all request types', note: 'log scale; done-weighted mean of the per-type p99', format: 'us', log: true, series: perRep(p => p.p99), events },
    { id: `${prefix}-dead`, title: 'Dead tuples', format: 'count', zero: true, series: perRep(p => p.dead), events },
    { id: `${prefix}-size`, title: 'Relation size', note: 'pg_total_relation_size: heap, indexes, TOAST', format: 'bytes', series: perRep(p => p.tableBytes), events },
    { id: `${prefix}-xid`, title: 'Transaction ID age of the table', format: 'count', zero: true, series: perRep(p => p.xidAge), events },
    { id: `${prefix}-vacuum`, title: 'Vacuum phase', format: 'phase', series: perRep(p => p.vacuumPhase, { step: true }), events }
  ]
}

/**
 * Every variant's throughput on one chart: a colour per variant, a line per
 * repetition.
 * @param {import('./read.js').VariantData[]} variants
 * @param {string} prefix
 * @returns {ChartSpec}
 */
export function overviewChart (variants, prefix) {
  /** @type {SeriesSpec[]} */
  const series = []
  /** @type {EventMark[]} */
  const events = []
  variants.forEach((variant, v) => {
    variant.repetitions.forEach((run, i) => {
      const points = timeline(run)
      series.push({
        label: `${variant.name} rep ${repNumber(run.dir, i)}`,
        color: paletteColor(v),
        x: points.map(p => round(p.x, 3)),
        y: points.map(p => roundOrNull(p.rate)),
        width: 1.5,
        ...(i > 0 && { dash: [5, 3] })
      })
      const action = findAction(run)
      if (action) {
        const from = round((action.startMs - run.t0) / 1000, 3)
        const to = action.endMs === null ? from : round((action.endMs - run.t0) / 1000, 3)
        events.push({ from, to, label: `${variant.name}: ${actionLabel(action.name, action.ok === false)}`, color: paletteColor(v) })
      }
    })
  })
  return { id: `${prefix}-throughput`, wide: true, title: 'Throughput of every variant, all request types', note: 'dashed: repetitions after the first; bands: each run\'s action, in its variant\'s colour', format: 'rate', zero: true, series, events }
}

/**
 * The charts of the prepare phase: how the data set was built.
 * @param {import('./read.js').RunData} run
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function prepareCharts (run, prefix) {
  const all = runCharts(run, prefix)
  return all.filter(c => /-(throughput|tuples|size)$/.test(c.id))
}

/**
 * @param {string} dir
 * @param {number} i
 */
function repNumber (dir, i) {
  const match = /rep-(\d+)$/.exec(dir)
  return match ? match[1] : String(i + 1)
}

/**
 * Values are rounded to what a chart can show, to keep the page small.
 * @param {number | null} value
 */
function roundOrNull (value) {
  if (value === null || !Number.isFinite(value)) return null
  const magnitude = Math.abs(value)
  return magnitude >= 100 ? Math.round(value) : round(value, 2)
}

/**
 * @param {number} value
 * @param {number} digits
 */
function round (value, digits) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
