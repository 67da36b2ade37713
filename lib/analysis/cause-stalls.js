import { round } from '../helpers/numbers.js'

// A server that did not serve, from the samples' host figures and the
// load's own: its processes stopped (state T in /proc: SIGSTOP), and, where
// /proc shows no server, a server that answered nothing while the
// generator's connections stayed open and no lock wait was seen.

// the server answered nothing for this long, connections open
export const STALL_MIN_S = 2

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('./observation.js').Observation} Observation */
/** @typedef {import('./observation.js').At} At */

/**
 * Spans in which the local server's processes were stopped.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
export function serverStopped(samples, at, lastS, out) {
  spans(
    samples,
    s => (s.host?.server_stopped ?? 0) > 0,
    (from, to, most) =>
      out.push({
        from_s: from,
        to_s: to >= lastS ? null : to,
        kind: 'server_stopped',
        label: `the server's processes were stopped (up to ${most.stopped} of ${most.procs} in state T, postmaster pid ${most.pid ?? '?'})`
      }),
    at
  )
}

/**
 * Spans in which the server answered nothing: no request done, none
 * failed, the generator's connections open, no lock wait seen, and the
 * server not seen stopped (that is serverStopped's).
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
export function stalls(samples, at, lastS, out) {
  const stalled = (/** @type {Sample} */ s) =>
    !s.paused &&
    s.throughput === 0 &&
    (s.connections ?? 1) > 0 &&
    Object.values(s.requests ?? {}).every(r => (r.failed ?? 0) === 0) &&
    (s.server?.locks?.waiting ?? 0) === 0 &&
    (s.host?.server_stopped ?? 0) === 0
  spans(
    samples,
    stalled,
    (from, to) => {
      if (to - from < STALL_MIN_S) return
      out.push({
        from_s: from,
        to_s: to >= lastS ? null : to,
        kind: 'stall',
        label: `the server answered nothing for ${round(to - from, 1)} s (connections open, no lock wait seen)`
      })
    },
    at
  )
}

/**
 * Runs of samples that match, reported as (from, to, the sample with most stopped).
 * @param {Sample[]} samples
 * @param {(s: Sample) => boolean} match
 * @param {(from: number, to: number, most: { stopped: number, procs: number, pid: number | null }) => void} emit
 * @param {At} at
 */
function spans(samples, match, emit, at) {
  /** @type {{ from: number, to: number, most: { stopped: number, procs: number, pid: number | null } } | null} */
  let span = null
  for (const s of samples) {
    const now = at(s.t)
    if (!match(s)) {
      if (span) emit(span.from, span.to, span.most)
      span = null
      continue
    }
    const stopped = s.host?.server_stopped ?? 0
    span ??= { from: round(now - 1, 1), to: now, most: { stopped: 0, procs: 0, pid: null } }
    span.to = now
    if (stopped >= span.most.stopped) {
      span.most = { stopped, procs: s.host?.server_procs ?? 0, pid: s.host?.server_pid ?? null }
    }
  }
  if (span) emit(span.from, span.to, span.most)
}
