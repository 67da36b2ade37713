import { eventMarks } from './marks.js'
import { chartGrid, esc, fmtBytes, fmtFigure, fmtNumber, fmtPct, fmtSeconds } from './html.js'
import { round } from '../helpers/numbers.js'

// The ZFS pool under the data directory over the run, as the zfs probe
// sampled it (lib/snapshot/zfs-space.js): its free space and largest free
// segment on a chart, the free segments on another, and a table of the
// first, last and lowest figures. Only when the samples have `zfs`.

/** @typedef {import('../snapshot/zfs-space.js').ZfsSample} ZfsSample */

/**
 * @typedef {object} Figure
 * @property {string} label
 * @property {(z: ZfsSample) => number | null} pick
 * @property {(v: number | null) => string} format
 * @property {string} means
 */

/** @type {Figure[]} */
const FIGURES = [
  { label: 'pool size', pick: z => z.size_bytes, format: fmtBytes, means: 'zpool get size' },
  { label: 'pool free', pick: z => z.free_bytes, format: fmtBytes, means: 'zpool get free' },
  { label: 'pool allocated', pick: z => z.allocated_bytes, format: fmtBytes, means: 'zpool get allocated' },
  {
    label: "metaslabs' free space",
    pick: z => z.metaslab_free_bytes,
    format: fmtBytes,
    means: 'zdb -mm: the free space of every metaslab added up'
  },
  { label: 'metaslabs', pick: z => z.metaslabs, format: fmtFigure, means: "zdb -mm: the pool's metaslabs" },
  {
    label: 'free segments',
    pick: z => z.free_segments,
    format: fmtFigure,
    means: 'zdb -mm: free segments of all metaslabs together (more for the same free space: more fragmented)'
  },
  {
    label: 'largest free segment',
    pick: z => z.largest_free_segment_bytes,
    format: fmtBytes,
    means: 'zdb -mm: the largest free segment of any metaslab'
  },
  {
    label: 'median metaslab free share',
    pick: z => z.median_metaslab_free_share,
    format: fmtPct,
    means: 'the median over the metaslabs of their free space / their size'
  },
  {
    label: 'fragmentation',
    pick: z => (z.fragmentation_pct === null ? null : z.fragmentation_pct / 100),
    format: fmtPct,
    means: 'zpool get fragmentation'
  },
  {
    label: 'sampling wall time',
    pick: z => z.sample_s,
    format: v => fmtSeconds(v),
    means: 'one round: zpool get and zdb -mm'
  }
]

/**
 * The run's distinct ZFS samples (the recorder repeats the last figures
 * every second), in time order, each with its x.
 * @param {import('../results/read.js').RunData} run
 * @returns {{ x: number, zfs: ZfsSample }[]}
 */
export function zfsPoints(run) {
  /** @type {{ x: number, zfs: ZfsSample }[]} */
  const points = []
  let previous = null
  for (const sample of run.samples) {
    const zfs = /** @type {ZfsSample | null | undefined} */ (/** @type {Record<string, unknown>} */ (sample).zfs)
    if (!zfs || typeof zfs !== 'object') continue
    const key = `${zfs.at}|${zfs.rounds}|${zfs.errors}`
    if (key === previous) continue
    previous = key
    const at = Date.parse(zfs.at ?? sample.t)
    points.push({ x: round(((Number.isFinite(at) ? at : Date.parse(sample.t)) - run.t0) / 1000, 3), zfs })
  }
  return points
}

/**
 * @param {(number | null)[]} values
 * @returns {number | null}
 */
function lowest(values) {
  const known = /** @type {number[]} */ (values.filter(v => v !== null && Number.isFinite(v)))
  return known.length ? Math.min(...known) : null
}

/**
 * The run page's ZFS section; nothing when the samples have no `zfs`.
 * @param {import('../results/read.js').RunData} run
 * @param {string} prefix   unique per page
 * @returns {{ html: string, charts: import('./chart-spec.js').ChartSpec[] }}
 */
export function zfsSection(run, prefix) {
  const points = zfsPoints(run)
  if (points.length === 0) return { html: '', charts: [] }
  const last = points[points.length - 1].zfs
  const charts = zfsCharts(points, prefix, eventMarks(run)).filter(chart =>
    chart.series.some(s => s.y.some(v => v !== null))
  )
  const rows = zfsRows(points)
  const notes = zfsNotes(points)
  const html = `<h2 id="zfs">ZFS pool</h2>
<p class="lead">The pool ${esc(last.pool)}, which holds the data directory, sampled during the load: its free space
(zpool get) and, per metaslab, the free space, the free segments and the largest of them (zdb -mm).
${esc(notes.join(' '))}</p>
<div class="tablewrap"><table class="zfs">
<thead><tr><th></th><th>first</th><th>last</th><th>lowest</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>
${chartGrid(charts)}`
  return { html, charts }
}

/**
 * The pool's free space and largest free segment, and its free segments.
 * @param {ReturnType<typeof zfsPoints>} points
 * @param {string} prefix
 * @param {import('./chart-spec.js').EventMark[]} events
 * @returns {import('./chart-spec.js').ChartSpec[]}
 */
function zfsCharts(points, prefix, events) {
  const last = points[points.length - 1].zfs
  const x = points.map(p => p.x)
  /** @param {(z: ZfsSample) => number | null} pick */
  const ys = pick => points.map(p => pick(p.zfs))
  return [
    {
      id: `${prefix}-space`,
      title: `ZFS pool ${last.pool}: free space and largest free segment`,
      note: 'zpool get free; zdb -mm (right axis: the largest free segment of any metaslab)',
      format: 'bytes',
      rightFormat: 'bytes',
      rightLabel: 'largest free segment',
      series: [
        { label: 'pool free', color: '#1c7ed6', x, y: ys(z => z.free_bytes), width: 2, step: true },
        {
          label: "metaslabs' free space",
          color: '#0b7285',
          x,
          y: ys(z => z.metaslab_free_bytes),
          width: 1.25,
          dash: [6, 3],
          step: true
        },
        {
          label: 'largest free segment (right axis)',
          color: '#c2255c',
          x,
          y: ys(z => z.largest_free_segment_bytes),
          axis: 1,
          width: 2,
          step: true
        }
      ],
      events
    },
    {
      id: `${prefix}-segments`,
      title: `ZFS pool ${last.pool}: free segments`,
      note: "zdb -mm, all metaslabs together; right axis: the median metaslab's free share",
      format: 'count',
      rightFormat: 'pct',
      rightLabel: 'median free share',
      series: [
        { label: 'free segments', color: '#e67700', x, y: ys(z => z.free_segments), width: 2, step: true },
        {
          label: 'median metaslab free share (right axis)',
          color: '#5f3dc4',
          x,
          y: ys(z => (z.median_metaslab_free_share === null ? null : round(z.median_metaslab_free_share * 100, 2))),
          axis: 1,
          width: 1.25,
          step: true
        }
      ],
      events
    }
  ]
}

/**
 * A row per figure the samples have: its first, last and lowest value.
 * @param {ReturnType<typeof zfsPoints>} points
 */
function zfsRows(points) {
  const first = points[0].zfs
  const last = points[points.length - 1].zfs
  return FIGURES.map(figure => {
    const values = points.map(p => figure.pick(p.zfs))
    const firstValue = figure.pick(first)
    const lastValue = figure.pick(last)
    if (firstValue === null && lastValue === null && lowest(values) === null) return ''
    return `<tr><td title="${esc(figure.means)}">${esc(figure.label)}</td><td>${figure.format(firstValue)}</td><td>${figure.format(lastValue)}</td><td>${figure.format(lowest(values))}</td></tr>`
  }).filter(Boolean)
}

/**
 * What the sampling cost, its failures, and the figures it could not read.
 * @param {ReturnType<typeof zfsPoints>} points
 */
function zfsNotes(points) {
  const last = points[points.length - 1].zfs
  const zdbTimes = /** @type {number[]} */ (points.map(p => p.zfs.zdb_s).filter(v => v !== null))
  const meanZdb = zdbTimes.length ? zdbTimes.reduce((a, b) => a + b, 0) / zdbTimes.length : null
  return [
    `${fmtNumber(last.rounds)} rounds of zpool get and zdb -mm, ${fmtSeconds(last.sampling_s_total)} of wall time in all; zdb took ${fmtSeconds(meanZdb)} on average, ${fmtSeconds(zdbTimes.length ? Math.max(...zdbTimes) : null)} at most.`,
    last.errors > 0
      ? `${fmtNumber(last.errors)} runs of the tools failed${last.error ? ` (last: ${last.error})` : ''}: their round kept the figures before, marked stale.`
      : 'No run of the tools failed.',
    last.fragmentation_pct === null && last.fragmentation_unknown
      ? `Fragmentation: unknown: ${last.fragmentation_unknown}.`
      : '',
    last.pool_bytes_rounded
      ? "zpool printed the pool's sizes rounded (it has no -p), and zdb the metaslabs' too: about three significant digits."
      : ''
  ].filter(Boolean)
}
