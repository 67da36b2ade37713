import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { explainRun } from '../analysis/explain.js'
import { readLogFrom } from './vacuums.js'

// What changed in a recorded load and why (lib/analysis/explain.js), from
// the files the recorder wrote and the server's log since the load began
// (its checkpoint lines), for the run's summary.json.

/**
 * @param {string} recordDir
 * @param {{ file: string, offset: number } | null} logMark   where the server log ended when the load began
 * @param {number} statsIntervalS   how often the server's figures were polled
 */
export async function recordedChanges (recordDir, logMark, statsIntervalS) {
  const samples = /** @type {import('../report/read.js').Sample[]} */ (await ndjson(path.join(recordDir, 'samples.ndjson')))
  const events = /** @type {import('../report/read.js').LabEvent[]} */ (await ndjson(path.join(recordDir, 'events.ndjson')))
    .filter(e => typeof e?.ts === 'string' && typeof e?.action === 'string')
    .sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))
  const logText = logMark ? await readLogFrom(logMark) : null
  const { changes, method } = explainRun({ samples, events, logText, statsIntervalS })
  return { changes, changes_method: method }
}

/**
 * The objects of an NDJSON file, a line that does not parse left out.
 * @param {string} file
 * @returns {Promise<any[]>}
 */
async function ndjson (file) {
  const text = await readFile(file, 'utf8').catch(() => '')
  const out = []
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      out.push(JSON.parse(line))
    } catch {
      // a line cut short by a crash: the rest still tells the run
    }
  }
  return out
}
