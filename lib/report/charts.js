import { activeTypes, timeline } from '../results/timeline.js'
import { actionLabel } from './action-bands.js'
import { findAction } from '../results/run-actions.js'
import { eventMarks } from './marks.js'
import { changeMarks } from './changes-section.js'
import { chartValue, paletteColor, repNumber, typeColor } from './chart-kit.js'
import { round } from '../helpers/numbers.js'
import { runSeriesCharts, variantSeriesCharts } from './series-charts.js'

export { paletteColor } from './chart-kit.js'

// Chart specifications: what the page's script draws, computed here so that
// the browser only plots. Each series carries its own x values (seconds from
// its run's t0); the page joins them onto one axis per chart.

/** @typedef {import('./chart-spec.js').Format} Format */
/** @typedef {import('./chart-spec.js').SeriesSpec} SeriesSpec */
/** @typedef {import('./chart-spec.js').EventMark} EventMark */
/** @typedef {import('./chart-spec.js').ChartSpec} ChartSpec */

/** @typedef {import('../results/timeline.js').Point} Point */

/**
 * A maker of series: a label, a colour and the figure it picks from each point.
 * @typedef {(label: string, color: string, pick: (p: Point) => number | null,
 *     extra?: Partial<SeriesSpec>) => SeriesSpec} SeriesOf
 */

/**
 * The charts of one run.
 * @param {import('../results/read.js').RunData} run
 * @param {string} prefix   unique per page
 * @returns {ChartSpec[]}
 */
export function runCharts(run, prefix) {
  const points = timeline(run)
  const x = points.map(p => round(p.x, 3))
  const events = [...eventMarks(run), ...changeMarks(run)]
  const types = activeTypes([run])
  const more = runSeriesCharts(run, prefix, events)
  /** @type {SeriesOf} */
  const series = (label, color, pick, extra = {}) => ({
    label,
    color,
    x,
    y: points.map(p => chartValue(pick(p))),
    ...extra
  })
  return [
    runThroughputChart(prefix, types, series, events),
    ...more.written,
    runLatencyChart(prefix, 'p50', types, series, events),
    runLatencyChart(prefix, 'p99', types, series, events),
    ...more.lag,
    ...runTableCharts(prefix, series, events),
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
    },
    ...more.statistics
  ]
}

/**
 * A run's throughput, all types together and each type.
 * @param {string} prefix
 * @param {string[]} types
 * @param {SeriesOf} series
 * @param {EventMark[]} events
 * @returns {ChartSpec}
 */
function runThroughputChart(prefix, types, series, events) {
  return {
    id: `${prefix}-throughput`,
    title: 'Throughput per request type',
    format: 'rate',
    zero: true,
    series: [
      series('all types', '#343a40', p => p.rate, { width: 2 }),
      ...types.map((type, i) => series(type, typeColor(type, i), p => p.types[type]?.rate ?? 0, { width: 1.25 }))
    ],
    events
  }
}

/**
 * One percentile per request type, on a log scale.
 * @param {string} prefix
 * @param {'p50' | 'p99'} q
 * @param {string[]} types
 * @param {SeriesOf} series
 * @param {EventMark[]} events
 * @returns {ChartSpec}
 */
function runLatencyChart(prefix, q, types, series, events) {
  return {
    id: `${prefix}-${q}`,
    title: `Latency ${q} per request type`,
    note: 'log scale',
    format: 'us',
    log: true,
    series: types.map((type, i) => series(type, typeColor(type, i), p => p.types[type]?.[q] ?? null)),
    events
  }
}

/**
 * What became of a run's table: its tuples, its size, its transaction ID
 * age and its vacuums.
 * @param {string} prefix
 * @param {SeriesOf} series
 * @param {EventMark[]} events
 * @returns {ChartSpec[]}
 */
function runTableCharts(prefix, series, events) {
  return [
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
    }
  ]
}

/**
 * A maker of a series per repetition of the figure it picks.
 * @typedef {(pick: (p: Point) => number | null, extra?: Partial<SeriesSpec>) => SeriesSpec[]} PerRepetition
 */

/**
 * The charts of one variant: each repetition a series, on the variant's
 * runs' shared axis (seconds from each run's t0, the rollback).
 * @param {import('../results/read.js').VariantData} variant
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function variantCharts(variant, prefix) {
  const reps = variant.repetitions.map((run, i) => {
    const points = timeline(run)
    return {
      run,
      i,
      points,
      x: points.map(p => round(p.x, 3)),
      label: `rep ${repNumber(run.dir, i)}`,
      color: paletteColor(i)
    }
  })
  const events = reps.flatMap(rep => [
    ...eventMarks(rep.run),
    ...changeMarks(rep.run, reps.length > 1 ? `${rep.label} ` : '')
  ])
  /** @type {PerRepetition} */
  const perRep = (pick, extra = {}) =>
    reps.map(rep => ({
      label: rep.label,
      color: rep.color,
      x: rep.x,
      y: rep.points.map(p => chartValue(pick(p))),
      width: 1.5,
      ...extra
    }))
  const more = variantSeriesCharts(reps, prefix, events)
  return [
    {
      id: `${prefix}-throughput`,
      title: 'Throughput, all request types',
      format: 'rate',
      zero: true,
      series: perRep(p => p.rate),
      events
    },
    ...more.filter(chart => !chart.id.endsWith('-lag')),
    ...variantLatencyCharts(prefix, perRep, events),
    ...more.filter(chart => chart.id.endsWith('-lag')),
    ...variantTableCharts(prefix, perRep, events)
  ]
}

/**
 * A variant's latency p50 and p99, all request types.
 * @param {string} prefix
 * @param {PerRepetition} perRep
 * @param {EventMark[]} events
 * @returns {ChartSpec[]}
 */
function variantLatencyCharts(prefix, perRep, events) {
  return [
    {
      id: `${prefix}-p50`,
      title: 'Latency p50, all request types',
      note: 'log scale; done-weighted mean of the per-type p50',
      format: 'us',
      log: true,
      series: perRep(p => p.p50),
      events
    },
    {
      id: `${prefix}-p99`,
      title: 'Latency p99, all request types',
      note: 'log scale; done-weighted mean of the per-type p99',
      format: 'us',
      log: true,
      series: perRep(p => p.p99),
      events
    }
  ]
}

/**
 * What became of a variant's table: its dead tuples, its size, its
 * transaction ID age and its vacuums.
 * @param {string} prefix
 * @param {PerRepetition} perRep
 * @param {EventMark[]} events
 * @returns {ChartSpec[]}
 */
function variantTableCharts(prefix, perRep, events) {
  return [
    { id: `${prefix}-dead`, title: 'Dead tuples', format: 'count', zero: true, series: perRep(p => p.dead), events },
    {
      id: `${prefix}-size`,
      title: 'Relation size',
      note: 'pg_total_relation_size: heap, indexes, TOAST',
      format: 'bytes',
      series: perRep(p => p.tableBytes),
      events
    },
    {
      id: `${prefix}-xid`,
      title: 'Transaction ID age of the table',
      format: 'count',
      zero: true,
      series: perRep(p => p.xidAge),
      events
    },
    {
      id: `${prefix}-vacuum`,
      title: 'Vacuum phase',
      format: 'phase',
      series: perRep(p => p.vacuumPhase, { step: true }),
      events
    }
  ]
}

/**
 * Every variant's throughput on one chart: a colour per variant, a line per
 * repetition.
 * @param {import('../results/read.js').VariantData[]} variants
 * @param {string} prefix
 * @returns {ChartSpec}
 */
export function overviewChart(variants, prefix) {
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
        y: points.map(p => chartValue(p.rate)),
        width: 1.5,
        ...(i > 0 && { dash: [5, 3] })
      })
      const action = findAction(run)
      if (action) {
        const from = round((action.startMs - run.t0) / 1000, 3)
        const to = action.endMs === null ? from : round((action.endMs - run.t0) / 1000, 3)
        events.push({
          from,
          to,
          label: `${variant.name}: ${actionLabel(action.name, action.ok === false)}`,
          color: paletteColor(v)
        })
      }
    })
  })
  return {
    id: `${prefix}-throughput`,
    wide: true,
    title: 'Throughput of every variant, all request types',
    note: "dashed: repetitions after the first; bands: each run's action, in its variant's colour",
    format: 'rate',
    zero: true,
    series,
    events
  }
}

/**
 * The charts of the prepare phase: how the data set was built.
 * @param {import('../results/read.js').RunData} run
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function prepareCharts(run, prefix) {
  const all = runCharts(run, prefix)
  return all.filter(c => /-(throughput|written|tuples|size)$/.test(c.id))
}
