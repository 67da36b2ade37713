// What the lab saw during a recorded load, as one timeline in seconds after
// the load began: the candidates a change in the run may be explained by.
// Read from the samples (the server's running vacuums and their phases,
// the checkpoint counters, the oldest xmin holders, lock waits, the
// generator's reconnects, failures, concurrency and pauses), the events
// (the plan's and the sidecar's actions, autovacuums found in the server
// log, a full disk) and, when the server's log is local, its checkpoint
// lines, which give a checkpoint's moment to the millisecond. The observers
// of the generator, the machine and the events are in lab-observers.js;
// other processes' CPU, a stopped or silent server in cause-host.js;
// checkpoints and the full-page images after them in cause-checkpoints.js.
import { eventObservations, generatorChanges, hostStrain } from './lab-observers.js'
import { cpuContention } from './cause-host.js'
import { serverStopped, stalls } from './cause-stalls.js'
import { checkpoints } from './cause-checkpoints.js'
import { round } from '../helpers/numbers.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/records.js').LabEvent} LabEvent */

/** @typedef {import('./observation.js').Observation} Observation */

// An xmin holder matters once its transaction is this old: the generator's
// own clients hold one for milliseconds, a report or a forgotten session
// for much longer.
export const HOLDER_MIN_AGE_S = 5
// the application_name of the generator's connections
const GENERATOR_APPLICATION = 'pgloadgen'

/**
 * @param {{ samples: Sample[], events: LabEvent[], logText?: string | null }} run
 * @returns {Observation[]} in order of from_s
 */
export function observe({ samples, events, logText = null }) {
  if (samples.length === 0) return []
  const t0 = loadStartMs(samples)
  const at = (/** @type {string} */ ts) => round((Date.parse(ts) - t0) / 1000, 1)
  /** @type {Observation[]} */
  const out = []
  const lastS = at(samples[samples.length - 1].t)
  vacuumSpans(samples, at, t0, out)
  holders(samples, at, lastS, out)
  lockWaits(samples, at, lastS, out)
  slotsFull(samples, at, lastS, out)
  generatorChanges(samples, at, out)
  hostStrain(samples, at, lastS, out)
  cpuContention(samples, at, lastS, out)
  serverStopped(samples, at, lastS, out)
  stalls(samples, at, lastS, out)
  checkpoints(samples, logText, at, out)
  eventObservations(events, at, out)
  return out.filter(o => Number.isFinite(o.from_s)).sort((a, b) => a.from_s - b.from_s)
}

/**
 * When the load began, from the first sample: each sample says how long
 * after the start it was written.
 * @param {Sample[]} samples
 */
export function loadStartMs(samples) {
  const first = samples[0]
  return Date.parse(first.t) - (first.elapsed_s ?? 1) * 1000
}

/** @typedef {import('./observation.js').At} At */

/**
 * Each vacuum on the server from its first sample to its last, and each
 * change of phase in between. A vacuum's start is its statement's start
 * when the progress view gave one (an autovacuum worker's, its work on
 * this table), else the first sample that saw it.
 * @param {Sample[]} samples @param {At} at @param {number} t0 @param {Observation[]} out
 */
function vacuumSpans(samples, at, t0, out) {
  /** @type {Map<string, { from: number, to: number, phase: string, label: string }>} */
  const open = new Map()
  for (const sample of samples) {
    const now = at(sample.t)
    const seen = new Set()
    for (const v of sample.server?.vacuums ?? []) {
      const key = `${v.pid}\u0000${v.table}`
      seen.add(key)
      const span = open.get(key)
      const kind =
        v.mode === 'manual' ? 'VACUUM' : v.mode === 'wraparound' ? 'anti-wraparound autovacuum' : 'autovacuum'
      const label = `${kind} of ${v.table} (pid ${v.pid})`
      if (!span) {
        const started = typeof v.started_at === 'number' && v.started_at > 0 ? round(v.started_at - t0 / 1000, 1) : now
        const from = Math.max(0, Math.min(now, started))
        open.set(key, { from, to: now, phase: v.phase_name, label })
        out.push({ from_s: from, to_s: null, kind: 'vacuum', label: `${label} starts` })
      } else {
        span.to = now
        if (v.phase_name !== span.phase) {
          span.phase = v.phase_name
          out.push({ from_s: now, to_s: null, kind: 'vacuum_phase', label: `${label}: ${v.phase_name}` })
        }
      }
    }
    for (const [key, span] of open) {
      if (seen.has(key)) continue
      open.delete(key)
      out.push({
        from_s: now,
        to_s: null,
        kind: 'vacuum',
        label: `${span.label} ends (ran ${round(now - span.from, 1)} s)`
      })
    }
  }
}

/**
 * Sessions that held the xmin horizon for longer than HOLDER_MIN_AGE_S:
 * from when their transaction began (sample time minus its age) to the
 * last sample that saw them.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
function holders(samples, at, lastS, out) {
  /** @type {Map<string, Observation & { lastSeen: number }>} */
  const open = new Map()
  for (const sample of samples) {
    const now = at(sample.t)
    for (const h of outsideHolders(sample)) {
      if (h.kind === 'backend' && (h.xact_age_s ?? 0) < HOLDER_MIN_AGE_S) continue
      const key = `${h.kind}\u0000${h.pid ?? ''}\u0000${h.name ?? ''}`
      const found = open.get(key)
      if (found) {
        found.lastSeen = now
        continue
      }
      // the age is the poll's, which came before the sample
      const polled = at(sample.server?.polled_at ?? sample.t)
      const from =
        h.xact_age_s === null || h.xact_age_s === undefined ? now : Math.max(0, round(polled - h.xact_age_s, 1))
      // the name first: a line cut at the terminal's width keeps it
      const session = h.application_name ? `${h.application_name} (pid ${h.pid})` : `pid ${h.pid}`
      const who =
        h.kind === 'backend'
          ? `session ${session}${h.state ? `, ${h.state}` : ''}`
          : h.kind === 'prepared'
            ? `prepared transaction '${h.name}'`
            : `replication slot ${h.name}`
      const observation = {
        from_s: from,
        to_s: null,
        kind: 'xmin_holder',
        label: `xmin horizon held by ${who}`,
        lastSeen: now
      }
      open.set(key, observation)
    }
  }
  for (const o of open.values()) {
    out.push({ from_s: o.from_s, to_s: o.lastSeen >= lastS ? null : o.lastSeen, kind: o.kind, label: o.label })
  }
}

/**
 * The xmin horizon's holders in a sample that are not the load: the
 * generator's own clients hold a snapshot only while a request runs (one
 * that is old is waiting for something else, not the cause), and a vacuum
 * shows an xmin that no other vacuum waits for.
 * @param {Sample} sample
 */
export function outsideHolders(sample) {
  const vacuuming = new Set((sample.server?.vacuums ?? []).map(v => v.pid))
  return (sample.server?.horizon ?? []).filter(
    h => h.application_name !== GENERATOR_APPLICATION && !(h.kind === 'backend' && vacuuming.has(h.pid))
  )
}

/**
 * Spans in which sessions waited for a lock, with who blocked them.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
function lockWaits(samples, at, lastS, out) {
  /** @type {{ from: number, to: number, most: number, blockers: Map<number, string | null> } | null} */
  let span = null
  const close = () => {
    if (!span) return
    const who = [...span.blockers]
      .slice(0, 3)
      .map(([pid, app]) => `pid ${pid}${app ? ` (${app})` : ''}`)
      .join(', ')
    out.push({
      from_s: span.from,
      to_s: span.to >= lastS ? null : span.to,
      kind: 'lock_wait',
      label: `${span.most} session${span.most === 1 ? '' : 's'} waiting for a lock${who ? ` held by ${who}` : ''}`
    })
    span = null
  }
  for (const sample of samples) {
    const locks = sample.server?.locks
    const now = at(sample.t)
    if (!locks || outsideWaiting(sample) === 0) {
      if (locks) close()
      continue
    }
    const outside = locks.blockers.filter(b => b.application_name !== GENERATOR_APPLICATION)
    // a wait seen now began up to its longest wait ago
    const began = typeof locks.longest_wait_s === 'number' ? Math.max(0, round(now - locks.longest_wait_s, 1)) : now
    span ??= { from: began, to: now, most: 0, blockers: new Map() }
    span.to = now
    span.most = Math.max(span.most, locks.waiting)
    for (const b of outside) span.blockers.set(b.pid, b.application_name)
  }
  close()
}

/**
 * The sessions waiting for a lock in a sample, when someone other than the
 * load holds it: the load's clients waiting for each other (pgbench's
 * branches) are the load itself. 0 when none; null when the sample has no
 * poll of the locks.
 * @param {Sample} sample
 */
export function outsideWaiting(sample) {
  const locks = sample.server?.locks
  if (!locks) return null
  // no blocker read at all: the wait ended before the poll could see who
  // held the lock, a short wait of the load's clients on each other (a
  // lock held from outside is still held when its blocker is read)
  const outside = locks.blockers.filter(b => b.application_name !== GENERATOR_APPLICATION)
  return outside.length === 0 ? 0 : locks.waiting
}

/**
 * Spans in which every connection slot of the server was taken, when the
 * load's own clients could not take them all: another application's
 * connections (a burst of them, a pool grown past its size), which cost
 * the server a process each and refuse every new connection, a reconnect
 * of the load's among them. From the first poll that saw them taken to the
 * first that saw one free.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
function slotsFull(samples, at, lastS, out) {
  /** @type {Observation | null} */
  let span = null
  let most = 0
  for (const sample of samples) {
    const seen = sample.server?.connections
    const taken = slotsTaken(sample)
    if (!seen || taken === null) continue
    const polledAt = at(sample.server?.polled_at ?? sample.t)
    if (taken > 0) {
      most = Math.max(most, seen.clients)
      if (!span) {
        span = { from_s: polledAt, to_s: null, kind: 'connection_slots', label: '' }
        out.push(span)
      }
      const load = `the load's ${sample.concurrency ?? '?'} clients among them`
      span.label = `every connection slot taken (up to ${most} sessions for ${seen.slots} slots), ${load}`
      continue
    }
    if (span) span.to_s = polledAt >= lastS ? null : polledAt
    span = null
    most = 0
  }
}

/**
 * The sessions other than the load's clients when every connection slot
 * of the server is taken and the load alone could not take them all; 0
 * when a slot is free (or the load's clients are enough to take them);
 * null when the sample has no poll of the sessions or of the slots.
 * @param {Sample} sample
 */
export function slotsTaken(sample) {
  const seen = sample.server?.connections
  if (!seen || seen.slots === null || seen.slots === undefined) return null
  const load = sample.concurrency ?? 0
  return seen.clients >= seen.slots && load < seen.slots ? seen.clients - load : 0
}
