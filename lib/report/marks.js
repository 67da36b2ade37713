import { actionColor, actionDetail, actionLabel } from './action-bands.js'
import { vacuumsInSamples } from '../results/run-actions.js'
import { round } from '../helpers/numbers.js'

// A run's events as the charts mark them: bands for actions (start to end)
// and pauses, lines for other points in time, each with what it did for
// the band's tooltip.

/** @typedef {import('./chart-spec.js').EventMark} EventMark */

/**
 * A run's events as bands (actions from start to end; pauses until the
 * resume) and lines (other points). A vacuum's phase-change points are left
 * out: the vacuum phase chart shows them.
 * @param {import('../results/read.js').RunData} run
 * @returns {EventMark[]}
 */
export function eventMarks(run) {
  const at = (/** @type {string} */ ts) => round((Date.parse(ts) - run.t0) / 1000, 3)
  /** @type {EventMark[]} */
  const marks = []
  const lastX = run.samples.length ? at(run.samples[run.samples.length - 1].t) : null
  /** @type {Map<string, import('../results/read.js').LabEvent>} */
  const open = new Map()
  /** @type {import('../results/read.js').LabEvent | null} */
  let pausedAt = null
  for (const event of run.events) {
    const key = `${event.action}\u0000${event.table ?? ''}`
    if (event.kind === 'start') {
      open.set(key, event)
    } else if (event.kind === 'end') {
      const start = open.get(key) ?? null
      open.delete(key)
      const to = at(event.ts)
      const from = start ? at(start.ts) : round(to - (event.duration_s ?? 0), 3)
      marks.push({
        from,
        to,
        label: actionLabel(event.action, event.ok === false, start),
        color: actionColor(event.action),
        detail: actionDetail(start, event)
      })
    } else if (event.action === 'pause') {
      pausedAt ??= event
    } else if (event.action === 'resume') {
      if (pausedAt) {
        marks.push({ from: at(pausedAt.ts), to: at(event.ts), label: 'paused', color: actionColor('pause') })
      }
      pausedAt = null
    } else if (!(open.has(key) && event.detail && 'phase' in event.detail)) {
      marks.push({ from: at(event.ts), to: null, label: pointLabel(event), color: actionColor(event.action) })
    }
  }
  // Still running when the load ended: a band to the last sample.
  for (const start of open.values()) {
    const from = at(start.ts)
    marks.push({
      from,
      to: Math.max(from, lastX ?? from),
      label: `${actionLabel(start.action, false, start)} (not ended)`,
      color: actionColor(start.action),
      detail: actionDetail(start, null)
    })
  }
  if (pausedAt) {
    marks.push({
      from: at(pausedAt.ts),
      to: Math.max(at(pausedAt.ts), lastX ?? 0),
      label: 'paused',
      color: actionColor('pause')
    })
  }
  // Vacuums nobody asked for (autovacuums) show in the samples only.
  if (!run.events.some(e => e.kind === 'start' && /^vacuum/.test(e.action))) {
    for (const span of vacuumsInSamples(run.samples)) {
      const from = round((span.startMs - run.t0) / 1000, 3)
      const to = span.endMs === null ? Math.max(from, lastX ?? from) : round((span.endMs - run.t0) / 1000, 3)
      marks.push({
        from,
        to,
        label: `${actionLabel(span.name, false)}${span.endMs === null ? ' (not ended)' : ''}`,
        color: actionColor(span.name)
      })
    }
  }
  return marks
}

/**
 * The bands of the actions the run's events hold (not the pauses, not the
 * vacuums seen in the samples only, not the rollback before t0), in one
 * colour and named after the variant: for charts that overlay the runs of
 * several variants.
 * @param {import('../results/read.js').RunData} run
 * @param {string} name    the variant's
 * @param {string} color
 * @returns {EventMark[]}
 */
export function actionMarks(run, name, color) {
  // only the bands from start and end events carry a detail
  return eventMarks(run)
    .filter(mark => mark.to !== null && mark.detail !== undefined && !mark.label.startsWith('rollback'))
    .map(mark => ({ ...mark, label: `${name}: ${mark.label}`, color }))
}

/** @param {import('../results/read.js').LabEvent} event */
function pointLabel(event) {
  const detail = /** @type {Record<string, any>} */ (event.detail ?? {})
  if (event.action === 'concurrency' && 'to' in detail) return `concurrency → ${detail.to}`
  return event.action.replace(/_/g, ' ')
}
