import path from 'node:path'
import { readNdjson } from '../recorder/ndjson.js'
import { explainRun } from './explain.js'
import { readLogFrom } from '../recorder/vacuums.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/records.js').LabEvent} LabEvent */

// What changed in a recorded load and why (lib/analysis/explain.js), from
// the files the recorder wrote and the server's log since the load began
// (its checkpoint lines), for the run's summary.json.

/**
 * @param {string} recordDir
 * @param {{ file: string, offset: number } | null} logMark   where the server log ended when the load began
 * @param {number} statsIntervalS   how often the server's figures were polled
 */
export async function recordedChanges(recordDir, logMark, statsIntervalS) {
  const samples = /** @type {Sample[]} */ (await readNdjson(path.join(recordDir, 'samples.ndjson')))
  const events = /** @type {LabEvent[]} */ (await readNdjson(path.join(recordDir, 'events.ndjson')))
    .filter(e => typeof e?.ts === 'string' && typeof e?.action === 'string')
    .sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))
  const logText = logMark ? await readLogFrom(logMark) : null
  const { changes, method } = explainRun({ samples, events, logText, statsIntervalS })
  return { changes, changes_method: method }
}
