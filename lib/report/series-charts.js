import { activeTypes, timeline } from '../results/timeline.js'
import { actionMarks } from './marks.js'
import { chartValue, paletteColor, repNumber } from './chart-kit.js'
import { round } from '../helpers/numbers.js'

// The charts of what time-series workloads record besides requests: rows
// and points written per second, how late paced requests started, and the
// workload's own statistics; for a run, for the repetitions of a variant,
// and with every variant's runs overlaid. A chart is made only when some
// run recorded what it shows.

/** @typedef {import('./chart-spec.js').ChartSpec} ChartSpec */
/** @typedef {import('./chart-spec.js').SeriesSpec} SeriesSpec */
/** @typedef {import('../results/timeline.js').Point} Point */
/** @typedef {import('./chart-spec.js').EventMark} EventMark */

const WORKLOAD_PREFIX = /^pgloadgen_workload_/

/**
 * Names of the workload's statistics the runs' samples hold, in the order
 * first met (the workload's own).
 * @param {import('../results/read.js').RunData[]} runs
 * @returns {string[]}
 */
export function statisticNames(runs) {
  const names = new Set()
  for (const run of runs) {
    for (const sample of run.samples) {
      for (const [name, value] of Object.entries(sample.workload ?? {})) {
        if (typeof value === 'number' && Number.isFinite(value)) names.add(name)
      }
    }
  }
  return [...names]
}

/**
 * How a statistic reads, from its name: a share (0 … 1, shown as a
 * percentage), bytes, or a plain figure.
 * @param {string} name
 * @returns {'share' | 'bytes' | 'figure'}
 */
export function statisticKind(name) {
  if (/_(share|fraction)$/.test(name)) return 'share'
  if (/_bytes(_total)?$/.test(name)) return 'bytes'
  return 'figure'
}

/** @param {string} name */
export function statisticTitle(name) {
  return name.replace(WORKLOAD_PREFIX, '').replace(/_/g, ' ')
}

/**
 * @param {string} name
 * @param {number | null} value
 */
function statisticValue(name, value) {
  if (value === null || value === undefined) return null
  return statisticKind(name) === 'share' ? value * 100 : value
}

/**
 * @param {string} name
 * @returns {import('./chart-spec.js').Format}
 */
function statisticFormat(name) {
  const kind = statisticKind(name)
  return kind === 'share' ? 'pct' : kind === 'bytes' ? 'bytes' : 'count'
}

/**
 * @param {ChartSpec} chart
 * @returns {boolean}
 */
function hasData(chart) {
  return chart.series.some(s => s.y.some(v => v !== null && (!chart.log || v > 0)))
}

/**
 * @param {ChartSpec[]} charts
 * @returns {ChartSpec[]}
 */
function withData(charts) {
  return charts.filter(hasData)
}

/**
 * A run's charts of rows and points written, start lag, and its
 * workload's statistics (one chart each).
 * @param {import('../results/read.js').RunData} run
 * @param {string} prefix
 * @param {EventMark[]} events
 * @returns {{ written: ChartSpec[], lag: ChartSpec[], statistics: ChartSpec[] }}
 */
export function runSeriesCharts(run, prefix, events) {
  const points = timeline(run)
  const x = points.map(p => round(p.x, 3))
  /**
   * @param {string} label
   * @param {string} color
   * @param {(p: Point) => number | null} pick
   * @param {Partial<SeriesSpec>} [extra]
   * @returns {SeriesSpec}
   */
  const series = (label, color, pick, extra = {}) => ({
    label,
    color,
    x,
    y: points.map(p => chartValue(pick(p))),
    ...extra
  })
  const wroteRows = points.some(p => (p.rowsRate ?? 0) > 0)
  const wrotePoints = points.some(p => (p.pointsRate ?? 0) > 0)
  /** @type {ChartSpec[]} */
  const written =
    wroteRows || wrotePoints
      ? [
          {
            id: `${prefix}-written`,
            title: wrotePoints ? 'Rows and points written per second' : 'Rows written per second',
            note: 'acknowledged by the server, as the requests reported them',
            format: 'rate',
            zero: true,
            ...(wroteRows && wrotePoints && { rightFormat: /** @type {const} */ ('rate'), rightLabel: 'points' }),
            series: [
              ...(wroteRows ? [series('rows/s', '#0c8599', p => p.rowsRate, { width: 2 })] : []),
              ...(wrotePoints
                ? [
                    series(
                      wroteRows ? 'points/s (right axis)' : 'points/s',
                      '#e67700',
                      p => p.pointsRate,
                      wroteRows ? { axis: 1, dash: [6, 3] } : { width: 2 }
                    )
                  ]
                : [])
            ],
            events
          }
        ]
      : []
  const lag = withData([
    {
      id: `${prefix}-lag`,
      title: 'Start lag of the paced requests',
      note: 'log scale; how late requests started against their schedule',
      format: 'us',
      log: true,
      series: [series('p50', '#1c7ed6', p => p.lagP50), series('p99', '#c2255c', p => p.lagP99, { width: 2 })],
      events
    }
  ])
  const statistics = withData(
    statisticNames([run]).map((name, i) => ({
      id: `${prefix}-statistic-${i}`,
      title: statisticTitle(name),
      note: name,
      format: statisticFormat(name),
      series: [
        series(statisticTitle(name), '#5f3dc4', p => statisticValue(name, p.workload[name] ?? null), { width: 2 })
      ],
      events
    }))
  )
  return { written, lag, statistics }
}

/**
 * @typedef {object} RepLine
 * @property {Point[]} points
 * @property {(number | null)[]} x
 * @property {string} label
 * @property {string} color
 * @property {number[]} [dash]
 */

/**
 * @param {RepLine[]} lines
 * @param {(p: Point) => number | null} pick
 * @returns {SeriesSpec[]}
 */
function overlay(lines, pick) {
  return lines.map(line => ({
    label: line.label,
    color: line.color,
    x: line.x,
    y: line.points.map(p => chartValue(pick(p))),
    width: 1.5,
    ...(line.dash && { dash: line.dash })
  }))
}

/**
 * Rows, points and start lag of a variant's repetitions.
 * @param {RepLine[]} lines
 * @param {string} prefix
 * @param {EventMark[]} events
 * @returns {ChartSpec[]}
 */
export function variantSeriesCharts(lines, prefix, events) {
  const wrote = (/** @type {(p: Point) => number | null} */ pick) =>
    lines.some(line => line.points.some(p => (pick(p) ?? 0) > 0))
  return withData([
    ...(wrote(p => p.rowsRate)
      ? [
          {
            id: `${prefix}-rows`,
            title: 'Rows written per second',
            format: /** @type {const} */ ('rate'),
            zero: true,
            series: overlay(lines, p => p.rowsRate),
            events
          }
        ]
      : []),
    ...(wrote(p => p.pointsRate)
      ? [
          {
            id: `${prefix}-points`,
            title: 'Points written per second',
            format: /** @type {const} */ ('rate'),
            zero: true,
            series: overlay(lines, p => p.pointsRate),
            events
          }
        ]
      : []),
    {
      id: `${prefix}-lag`,
      title: 'Start lag p99 of the paced requests',
      note: 'log scale',
      format: 'us',
      log: true,
      series: overlay(lines, p => p.lagP99),
      events
    }
  ])
}

/**
 * Every variant's runs on one chart per figure, a colour per variant and
 * a line per repetition (dashed after the first), with each run's actions
 * as bands in its variant's colour: what is written, the p99 of each
 * request type (of all types together when there are more than three), the
 * start lag, the table's dead tuples, size and xid age, and each of the
 * workload's statistics.
 * @param {import('../results/read.js').VariantData[]} variants
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function comparisonCharts(variants, prefix) {
  /** @type {RepLine[]} */
  const lines = []
  /** @type {EventMark[]} */
  const events = []
  variants.forEach((variant, v) => {
    variant.repetitions.forEach((run, i) => {
      const points = timeline(run)
      lines.push({
        points,
        x: points.map(p => round(p.x, 3)),
        label: `${variant.name} rep ${repNumber(run.dir, i)}`,
        color: paletteColor(v),
        ...(i > 0 && { dash: [5, 3] })
      })
      events.push(...actionMarks(run, variant.name, paletteColor(v)))
    })
  })
  const runs = variants.flatMap(v => v.repetitions)
  const types = activeTypes(runs)
  /** @type {ChartSpec[]} */
  const latency =
    types.length <= 3
      ? types.map((type, i) => ({
          id: `${prefix}-p99-${i}`,
          title: `Latency p99 of ${type}`,
          note: 'log scale',
          format: /** @type {const} */ ('us'),
          log: true,
          series: overlay(lines, p => p.types[type]?.p99 ?? null),
          events
        }))
      : [
          {
            id: `${prefix}-p99`,
            title: 'Latency p99, all request types',
            note: 'log scale; done-weighted mean of the per-type p99',
            format: 'us',
            log: true,
            series: overlay(lines, p => p.p99),
            events
          }
        ]
  const written = variantSeriesCharts(lines, prefix, events)
  return withData([
    ...written.filter(chart => !chart.id.endsWith('-lag')),
    ...latency,
    ...written.filter(chart => chart.id.endsWith('-lag')),
    {
      id: `${prefix}-dead`,
      title: 'Dead tuples',
      format: 'count',
      zero: true,
      series: overlay(lines, p => p.dead),
      events
    },
    {
      id: `${prefix}-size`,
      title: 'Relation size',
      note: 'pg_total_relation_size: heap, indexes, TOAST',
      format: 'bytes',
      zero: true,
      series: overlay(lines, p => p.tableBytes),
      events
    },
    {
      id: `${prefix}-xid`,
      title: 'Transaction ID age of the table',
      format: 'count',
      zero: true,
      series: overlay(lines, p => p.xidAge),
      events
    },
    ...statisticNames(runs).map((name, i) => ({
      id: `${prefix}-statistic-${i}`,
      title: statisticTitle(name),
      note: name,
      format: statisticFormat(name),
      series: overlay(lines, p => statisticValue(name, p.workload[name] ?? null)),
      events
    }))
  ])
}
