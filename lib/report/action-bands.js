import { fmtBytes, fmtNumber, fmtSeconds } from './html.js'

// How an action is drawn in a report: its band's colour, label and tooltip.
// Which actions a run holds is lib/results/run-actions.js.

/**
 * Band colours: each action its own, and none of the repetitions' and
 * variants' line colours (charts.js).
 * @param {string} action
 */
export function actionColor(action) {
  if (/freeze|wraparound/.test(action)) return '#e8590c'
  if (/^autovacuum/.test(action)) return '#0b7285'
  if (/^vacuum/.test(action)) return '#1971c2'
  if (action === 'analyze') return '#2f9e44'
  if (action === 'checkpoint') return '#7048e8'
  if (action === 'fillfactor') return '#f59f00'
  if (action === 'evict-cache') return '#5c940d'
  if (action === 'drop-partitions') return '#9c36b5'
  if (action === 'delete') return '#e64980'
  if (action === 'pause') return '#868e96'
  if (action === 'rollback') return '#c92a2a'
  if (action === 'disk_full') return '#a61e4d'
  return '#495057'
}

/**
 * An action's name as a band shows it; the start event, when given, adds
 * what its statement says (VACUUM FULL, the new fillfactor).
 * @param {string} action
 * @param {boolean} failed
 * @param {import('../results/read.js').LabEvent | null} [start]
 */
export function actionLabel(action, failed, start = null) {
  let name = action.replace(/[_-]/g, ' ')
  const sql = typeof start?.detail?.sql === 'string' ? start.detail.sql : ''
  if (action === 'vacuum' && /^VACUUM \([^)]*\bFULL\b/.test(sql)) name = 'vacuum full'
  const fillfactor = /fillfactor = (\d+)/.exec(sql)
  if (action === 'fillfactor' && fillfactor) name = `fillfactor ${fillfactor[1]}`
  return failed ? `${name} (failed)` : name
}

/**
 * What an action did, in a sentence for its band's tooltip: what a
 * retention run removed, the statement of the others, and how long it took.
 * @param {import('../results/read.js').LabEvent | null} start
 * @param {import('../results/read.js').LabEvent | null} end   null: not ended
 */
export function actionDetail(start, end) {
  const action = (end ?? start)?.action ?? ''
  const startDetail = /** @type {Record<string, any>} */ (start?.detail ?? {})
  const d = /** @type {Record<string, any>} */ (end?.detail ?? {})
  const parts = []
  if (action === 'drop-partitions' && end) {
    if (typeof d.skipped === 'string') parts.push(`skipped: ${d.skipped}`)
    else if (d.note) parts.push(`nothing dropped: ${d.note}`)
    else
      parts.push(
        `${fmtNumber(d.dropped ?? 0)} partition${d.dropped === 1 ? '' : 's'} dropped: ${fmtNumber(d.rows ?? 0)} rows, ${fmtBytes(d.bytes ?? 0)}`
      )
  } else if (action === 'delete' && end) {
    if (typeof d.skipped === 'string') parts.push(`skipped: ${d.skipped}`)
    else if (d.note) parts.push(`nothing deleted: ${d.note}`)
    else
      parts.push(
        `${fmtNumber(d.rows_deleted ?? 0)} rows deleted in ${fmtNumber(d.batches ?? 0)} batch${d.batches === 1 ? '' : 'es'}${d.batch ? ` of ${fmtNumber(d.batch)}` : ''}`
      )
  } else if (action === 'evict-cache' && end && typeof d.files === 'number') {
    const page = typeof d.page_size === 'number' ? d.page_size : 4096
    parts.push(
      `${fmtNumber(d.files)} file${d.files === 1 ? '' : 's'} (${fmtBytes(d.bytes ?? 0)}) evicted from the page cache: ${fmtBytes((d.resident_pages_before ?? 0) * page)} resident before, ${fmtBytes((d.resident_pages_after ?? 0) * page)} after`
    )
  } else if (typeof startDetail.sql === 'string') {
    parts.push(startDetail.sql)
  }
  if (typeof d.cutoff === 'string') parts.push(`cutoff ${d.cutoff.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')}`)
  if (end && end.ok === false) parts.push(`failed: ${end.error ?? 'unknown error'}`)
  if (end && typeof end.duration_s === 'number') parts.push(`took ${fmtSeconds(end.duration_s)}`)
  if (!end) parts.push('not ended when the load ended')
  return parts.join('; ')
}
