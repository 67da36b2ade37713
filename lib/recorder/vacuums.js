import { appendFile, open, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { vacuumCost } from '../pgstats/vacuum-cost.js'
import { needs } from '../pgstats/vacuum-counters.js'
import { autovacuumsInLog } from '../pgstats/vacuum-report.js'

// What each vacuum of a recorded run cost, for its summary.json: the
// sidecar's vacuums from their end events (detail.cost), and the
// autovacuums the server logged meanwhile (log_autovacuum_min_duration),
// when its log is local (the lab's servers write pgloadgen-server.log in
// their data directory). Each autovacuum found is also appended to the
// run's events as a point, with its cost.

export const SERVER_LOG = 'pgloadgen-server.log'
// a run's summary lists at most this many autovacuums
const MAX_AUTOVACUUMS = 200

/**
 * Where the server log ends now: autovacuums logged from there on belong
 * to the run. null when there is no local log.
 * @param {string | null} dataDir
 * @returns {Promise<{ file: string, offset: number } | null>}
 */
export async function serverLogMark(dataDir) {
  if (!dataDir) return null
  const file = path.join(dataDir, SERVER_LOG)
  const info = await stat(file).catch(() => null)
  return info ? { file, offset: info.size } : null
}

/**
 * @typedef {object} VacuumEntry
 * @property {string | null} ts         the end (event time, or the log line's)
 * @property {string} action            vacuum, vacuum_freeze, autovacuum, autovacuum_wraparound
 * @property {string | null} table
 * @property {number | null} duration_s
 * @property {import('../pgstats/vacuum-cost.js').VacuumCost} cost
 */

/**
 * The run's vacuums and what each cost; autovacuums found in the log are
 * appended to the run's events file.
 * @param {string} recordDir
 * @param {{ file: string, offset: number } | null} logMark   serverLogMark at the start of the run
 * @returns {Promise<{ vacuums: VacuumEntry[], autovacuum_source: string }>}
 */
export async function recordVacuums(recordDir, logMark) {
  const eventsFile = path.join(recordDir, 'events.ndjson')
  const text = await readFile(eventsFile, 'utf8').catch(() => '')
  /** @type {VacuumEntry[]} */
  const vacuums = []
  for (const line of text.split('\n')) {
    let event
    try {
      event = JSON.parse(line)
    } catch {
      continue
    }
    if (event?.kind !== 'end' || !/^vacuum/.test(String(event.action)) || !event.detail?.cost) continue
    vacuums.push({
      ts: event.ts,
      action: event.action,
      table: event.table ?? null,
      duration_s: event.duration_s ?? null,
      cost: event.detail.cost
    })
  }
  if (!logMark) {
    return {
      vacuums,
      autovacuum_source: "none: the server log is not local (autovacuums show in the samples' vacuum progress only)"
    }
  }
  const logged = await readLogFrom(logMark)
  const autos = autovacuumsInLog(logged)
    .filter(a => !/^[^.]*\.(pg_catalog|pg_toast|information_schema)\./.test(a.report.relation))
    .slice(0, MAX_AUTOVACUUMS)
  const lines = []
  for (const { ts, report } of autos) {
    const cost = vacuumCost({ report, before: null, after: null, phases: null, source: 'server log' })
    cost.unavailable.vm = 'an autovacuum: the visibility map is not read around it'
    cost.unavailable.io = 'an autovacuum: pg_stat_io is not read around it'
    cost.unavailable.phases = "an autovacuum: phases show in the samples' vacuum progress"
    if (cost.pages_frozen === null) {
      cost.unavailable.pages_frozen = needs(16, "older majors' autovacuum log entries do not count frozen pages")
    }
    const action = report.mode === 'wraparound' ? 'autovacuum_wraparound' : 'autovacuum'
    const table = report.relation.split('.').slice(1).join('.')
    vacuums.push({ ts, action, table, duration_s: null, cost })
    if (ts) lines.push(JSON.stringify({ ts, kind: 'point', action, table, detail: { cost } }) + '\n')
  }
  if (lines.length) await appendFile(eventsFile, lines.join(''))
  return {
    vacuums,
    autovacuum_source: `the server log (${SERVER_LOG}; autovacuums shorter than log_autovacuum_min_duration are not in it)`
  }
}

/**
 * The log written since the mark (from its start if it was rotated or
 * truncated), at most 64 MiB.
 * @param {{ file: string, offset: number }} mark
 */
export async function readLogFrom({ file, offset }) {
  const handle = await open(file, 'r').catch(() => null)
  if (!handle) return ''
  try {
    const { size } = await handle.stat()
    const from = size < offset ? 0 : offset
    const length = Math.min(size - from, 64 * 1024 * 1024)
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, from)
    return buffer.toString('utf8')
  } finally {
    await handle.close()
  }
}
