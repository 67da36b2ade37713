// Which action a run is about: the first vacuum the sidecar ran (from the
// events), else its first analyze or checkpoint, else a vacuum nobody asked
// for (an autovacuum, e.g. to prevent wraparound) seen in the samples'
// PostgreSQL figures.

const VACUUM = /^vacuum/
const OTHER = /^(analyze|checkpoint)$/

/**
 * @typedef {object} ActionSpan
 * @property {string} name
 * @property {string | null} table
 * @property {number} startMs
 * @property {number | null} endMs     null: it had not ended when the load ended
 * @property {number | null} duration_s
 * @property {boolean | null} ok
 * @property {'events' | 'samples'} source
 */

/**
 * @param {import('./read.js').RunData} run
 * @returns {ActionSpan | null}
 */
export function findAction (run) {
  return fromEvents(run.events, VACUUM) ?? fromEvents(run.events, OTHER) ?? vacuumsInSamples(run.samples)[0] ?? null
}

/**
 * @param {import('./read.js').LabEvent[]} events
 * @param {RegExp} pattern
 * @returns {ActionSpan | null}
 */
function fromEvents (events, pattern) {
  const start = events.find(e => e.kind === 'start' && pattern.test(e.action))
  if (!start) return null
  const startMs = Date.parse(start.ts)
  const end = events.find(e => e.kind === 'end' && e.action === start.action &&
    (e.table ?? null) === (start.table ?? null) && Date.parse(e.ts) >= startMs)
  return {
    name: start.action,
    table: start.table ?? null,
    startMs,
    endMs: end ? Date.parse(end.ts) : null,
    duration_s: end ? (typeof end.duration_s === 'number' ? end.duration_s : (Date.parse(end.ts) - startMs) / 1000) : null,
    ok: end ? end.ok !== false : null,
    source: 'events'
  }
}

/**
 * Vacuums of the table seen in the samples (pg.vacuum set), to the
 * resolution of the statistics polls: from the start of the first sample
 * that shows one to the start of the first later sample that shows none.
 * @param {import('./read.js').Sample[]} samples
 * @returns {ActionSpan[]}
 */
export function vacuumsInSamples (samples) {
  /** @type {ActionSpan[]} */
  const spans = []
  /** @type {ActionSpan | null} */
  let current = null
  let previousEnd = NaN
  for (const sample of samples) {
    const endMs = Date.parse(sample.t)
    const startMs = Number.isFinite(previousEnd) ? previousEnd : endMs - 1000
    previousEnd = endMs
    const pg = sample.pg
    if (!pg) continue
    const vacuum = pg.vacuum ?? null
    if (vacuum && !current) {
      const mode = vacuum.mode ?? 'manual'
      const name = mode === 'wraparound' ? 'autovacuum_wraparound' : mode === 'autovacuum' ? 'autovacuum' : 'vacuum'
      current = { name, table: pg.table ?? null, startMs, endMs: null, duration_s: null, ok: null, source: 'samples' }
      spans.push(current)
    } else if (!vacuum && current) {
      current.endMs = startMs
      current.duration_s = (startMs - current.startMs) / 1000
      current = null
    }
  }
  return spans
}
