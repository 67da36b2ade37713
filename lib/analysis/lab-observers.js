// The observations of observations.js that come from the lab's side rather
// than from the server's statistics: the generator's reconnects, failures,
// concurrency and pauses, the machine's strain, and the actions of the
// events file.

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('../recorder/records.js').LabEvent} LabEvent */
/** @typedef {import('./observation.js').Observation} Observation */
/** @typedef {import('./observation.js').At} At */

/**
 * The generator's reconnects, bursts of failures, concurrency changes and
 * pauses, from second to second.
 * @param {Sample[]} samples @param {At} at @param {Observation[]} out
 */
export function generatorChanges(samples, at, out) {
  const failedIn = failuresOf(samples)
  for (let i = 1; i < samples.length; i++) {
    const previous = samples[i - 1]
    const sample = samples[i]
    const now = at(sample.t)
    const reconnects = (sample.reconnects ?? 0) - (previous.reconnects ?? 0)
    if (reconnects > 0) {
      out.push({
        from_s: now - 1,
        to_s: null,
        kind: 'reconnects',
        label: `${reconnects} client${reconnects === 1 ? '' : 's'} reconnected (the connection was lost)`
      })
    }
    const failed = failedIn(sample)
    const failedBefore = failedIn(previous)
    if (failed > 0 && failedBefore === 0) {
      out.push({
        from_s: now - 1,
        to_s: null,
        kind: 'failures',
        label: `requests began to fail (${failed} in that second)`
      })
    }
    if (
      sample.concurrency !== undefined &&
      previous.concurrency !== undefined &&
      sample.concurrency !== previous.concurrency
    ) {
      out.push({
        from_s: now - 1,
        to_s: null,
        kind: 'concurrency',
        label: `concurrency ${previous.concurrency} → ${sample.concurrency}`
      })
    }
    if (sample.paused !== previous.paused) {
      out.push({ from_s: now - 1, to_s: null, kind: 'pause', label: sample.paused ? 'load paused' : 'load resumed' })
    }
  }
}

/**
 * The requests that failed in a second, an error probe's aside.
 * @param {Sample[]} samples   the run's, which tell the probes
 * @returns {(s: Sample) => number}
 */
export function failuresOf(samples) {
  const probes = errorProbes(samples)
  return s =>
    Object.entries(s.requests ?? {}).reduce((sum, [type, r]) => sum + (probes.has(type) ? 0 : (r.failed ?? 0)), 0)
}

/**
 * The request types that fail on purpose (an error probe such as manta's
 * injected_error): nine in ten of their requests or more failed over the
 * run. Their failures come and go with the throughput and say nothing.
 * @param {Sample[]} samples
 */
function errorProbes(samples) {
  /** @type {Map<string, { done: number, failed: number }>} */
  const totals = new Map()
  for (const s of samples) {
    for (const [type, r] of Object.entries(s.requests ?? {})) {
      const t = totals.get(type) ?? { done: 0, failed: 0 }
      t.done += r.done ?? 0
      t.failed += r.failed ?? 0
      totals.set(type, t)
    }
  }
  return new Set([...totals].filter(([, t]) => t.done > 0 && t.failed >= 0.9 * t.done).map(([type]) => type))
}

// The machine is strained when this share of its CPU time waits for I/O or
// is taken by the hypervisor: the lab's own load seldom does either.
export const HOST_IOWAIT_PCT = 25
export const HOST_STEAL_PCT = 10

/**
 * Spans in which the machine waited for I/O or lost CPU to the hypervisor:
 * something besides the load and the server, or the server's own I/O.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
export function hostStrain(samples, at, lastS, out) {
  /** @type {{ from: number, to: number, iowait: number, steal: number } | null} */
  let span = null
  const close = () => {
    if (!span) return
    const what = [
      span.iowait >= HOST_IOWAIT_PCT && `up to ${span.iowait} % of its CPU time waiting for I/O`,
      span.steal >= HOST_STEAL_PCT && `up to ${span.steal} % taken by the hypervisor`
    ]
      .filter(Boolean)
      .join(', ')
    out.push({
      from_s: span.from,
      to_s: span.to >= lastS ? null : span.to,
      kind: 'host',
      label: `the machine strained: ${what}`
    })
    span = null
  }
  for (const sample of samples) {
    const host = sample.host
    const now = at(sample.t)
    if (!host || (host.iowait_pct < HOST_IOWAIT_PCT && host.steal_pct < HOST_STEAL_PCT)) {
      close()
      continue
    }
    span ??= { from: now - 1, to: now, iowait: 0, steal: 0 }
    span.to = now
    span.iowait = Math.max(span.iowait, host.iowait_pct)
    span.steal = Math.max(span.steal, host.steal_pct)
  }
  close()
}

/**
 * The plan's and the sidecar's actions, control changes, autovacuums the
 * server logged and a full disk, from the events file.
 * @param {LabEvent[]} events @param {At} at @param {Observation[]} out
 */
export function eventObservations(events, at, out) {
  for (const event of events) {
    const now = at(event.ts)
    const table = event.table ? ` of ${event.table}` : ''
    if (event.kind === 'start') {
      if (event.detail && 'phase' in event.detail) continue
      out.push({
        from_s: now,
        to_s: null,
        kind: event.action === 'disk_full' ? 'disk_full' : 'action',
        label: `${event.action}${table} starts`
      })
    } else if (event.kind === 'end') {
      out.push({
        from_s: now,
        to_s: null,
        kind: event.action === 'disk_full' ? 'disk_full' : 'action',
        label: `${event.action}${table} ends${event.ok === false ? ' (failed)' : ''}`
      })
    } else if (/^autovacuum/.test(event.action)) {
      // logged at its end: the samples' progress has its start
      out.push({
        from_s: now,
        to_s: null,
        kind: 'vacuum',
        label: `${event.action === 'autovacuum_wraparound' ? 'anti-wraparound autovacuum' : 'autovacuum'}${table} ends (server log)`
      })
    } else if (event.action === 'concurrency' || event.action === 'pause' || event.action === 'resume') {
      // the samples show these second by second
    } else if (!(event.detail && 'phase' in event.detail)) {
      out.push({
        from_s: now,
        to_s: null,
        kind: event.action === 'disk_full' ? 'disk_full' : 'action',
        label: `${event.action}${table}`
      })
    }
  }
}
