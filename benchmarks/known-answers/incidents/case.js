// One incident case: a recorded load (`pgloadgen run URL --record DIR`)
// on the embedded server, the incident started at a seeded moment for a
// seeded length, and what the run's summary.json says against the truth.
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const CLI = fileURLToPath(new URL('../../../bin/pgloadgen.js', import.meta.url))
// a change this long before the incident's start, or up to this long after it, is its change
export const FOUND_BEFORE_S = 3
export const FOUND_AFTER_S = 10

/**
 * @typedef {object} CaseOutcome
 * @property {string} kind
 * @property {number} startS        the incident's true start, seconds after the load began
 * @property {number} endS
 * @property {boolean} found        a change within [start − FOUND_BEFORE_S, start + FOUND_AFTER_S]
 * @property {number | null} delayS     the change's moment minus the true start
 * @property {string | null} firstKind  the first cause's kind ('none': no cause seen)
 * @property {string | null} firstLabel
 * @property {boolean} right        the first cause is one of the truth's kinds
 * @property {number} changes       changes the run reported in all
 * @property {number[]} changesAt   their moments
 */

/**
 * @param {object} options
 * @param {string} options.url
 * @param {string} options.dataDir
 * @param {import('./kinds.js').IncidentKind | null} options.kind   null: a steady run
 * @param {() => number} options.random
 * @param {number} options.durationS
 * @param {number} options.concurrency
 * @param {string | null} [options.keepIn]   keep the run's record in this directory (to look at a case again)
 * @returns {Promise<CaseOutcome>}
 */
export async function runCase({ url, dataDir, kind, random, durationS, concurrency, keepIn = null }) {
  const dir = await mkdtemp(path.join(keepIn ?? os.tmpdir(), 'pgloadgen-incident-'))
  try {
    const seed = Math.floor(random() * 2 ** 31)
    const atS = 18 + random() * 10
    const lengthS = 10 + random() * 8
    await kind?.prepare?.({ url, dataDir, random })
    const args = ['run', url, '-d', String(durationS), '-c', String(concurrency), '-p', '0', '-P', '0', '--reset']
    const child = spawn(
      process.execPath,
      [CLI, ...args, '--seed', String(seed), '--record', dir, '--log-level', 'warn'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '' }
      }
    )
    let stderr = ''
    child.stderr?.on('data', chunk => (stderr += chunk))
    const exited = new Promise(resolve => child.on('exit', code => resolve(code)))
    let startS = NaN
    let endS = NaN
    if (kind) {
      const t0 = await loadStart(dir, exited)
      await waitUntil(t0 + atS * 1000, exited)
      // the moment the kind did what disturbs, after its own set-up (a connection, a BEGIN), which on a
      // loaded machine can take seconds; when it says nothing, the moment it returned
      let beganAt = NaN
      const began = () => {
        if (Number.isNaN(beganAt)) beganAt = Date.now()
      }
      const stop = await kind.start({ url, dataDir, random, began })
      startS = ((Number.isNaN(beganAt) ? Date.now() : beganAt) - t0) / 1000
      try {
        await waitUntil(Date.now() + lengthS * 1000, exited)
      } finally {
        await stop()
      }
      endS = (Date.now() - t0) / 1000
    }
    const code = await exited
    if (code !== 0) throw new Error(`the run failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`)
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8'))
    return score(kind, summary.changes ?? [], startS, endS)
  } finally {
    if (!keepIn) await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The incident's change (the first in its window; the largest of those at
 * the same moment) and its first cause, against the truth.
 * @param {import('./kinds.js').IncidentKind | null} kind
 * @param {import('../../../lib/analysis/explain.js').Change[]} changes
 * @param {number} startS @param {number} endS
 * @returns {CaseOutcome}
 */
export function score(kind, changes, startS, endS) {
  const near = changes
    .filter(c => c.at_s >= startS - FOUND_BEFORE_S && c.at_s <= startS + FOUND_AFTER_S)
    .sort((a, b) => a.at_s - b.at_s || Math.abs(b.effect ?? 99) - Math.abs(a.effect ?? 99))
  const change = kind ? near[0] : changes[0]
  const first = change?.causes[0] ?? null
  return {
    kind: kind?.name ?? 'steady',
    startS: round(startS),
    endS: round(endS),
    found: change !== undefined,
    delayS: change && kind ? round(change.at_s - startS) : null,
    firstKind: change ? (first?.kind ?? 'none') : null,
    firstLabel: first?.label ?? null,
    right: Boolean(kind && first && kind.truth.includes(first.kind)),
    changes: changes.length,
    changesAt: [...new Set(changes.map(c => c.at_s))]
  }
}

/**
 * When the load began, from the first sample the recorder wrote.
 * @param {string} dir @param {Promise<unknown>} exited
 */
async function loadStart(dir, exited) {
  let done = false
  exited.then(() => (done = true))
  for (;;) {
    const text = await readFile(path.join(dir, 'samples.ndjson'), 'utf8').catch(() => '')
    const line = text.split('\n').find(Boolean)
    if (line) {
      const first = JSON.parse(line)
      return Date.parse(first.t) - (first.elapsed_s ?? 1) * 1000
    }
    if (done) throw new Error('the run ended before its first sample')
    await sleep(200)
  }
}

/** @param {number} ms @param {Promise<unknown>} exited */
async function waitUntil(ms, exited) {
  let done = false
  exited.then(() => (done = true))
  while (Date.now() < ms && !done) await sleep(Math.min(200, Math.max(1, ms - Date.now())))
}

/** @param {number} ms */
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

/** @param {number} value */
function round(value) {
  return Math.round(value * 10) / 10
}
