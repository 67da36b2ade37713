// The chaos soak's end checks, from what soak.js gathered: the run ended
// well and every fault was done; the insert audit exact (no acknowledged
// row missing or vanished, and the table holding exactly the rows the run
// says it stored); no backend of the run left; the generator's resident
// memory flat; each fault named by a change the run's summary found at
// its moment.
import { memorySlopes, rssFloor, rssSlope } from './rss.js'

// a change names a fault when it is found this close to it: from a few
// seconds before it began (the change's moment is located to within a few
// seconds) to a while after it ended (the clients' recovery)
export const MATCH_WINDOW_S = /** @type {const} */ ([5, 15])
export const RSS_LIMIT_MIB_PER_10_MIN = 1

/**
 * @typedef {object} Check
 * @property {string} name
 * @property {string} value
 * @property {string} limit
 * @property {boolean} met
 */

/**
 * @typedef {import('./soak.js').DoneFault & { change: any | null }} NamedFault
 */

/**
 * @param {import('./soak.js').SoakOutcome} outcome
 * @param {{ concurrency: number, lengthS: number, rss: boolean }} options
 * @returns {{ checks: Check[], faults: NamedFault[] }}
 */
export function endChecks(outcome, { concurrency, lengthS, rss }) {
  const s = outcome.summary
  const faults = outcome.faults.map(fault => ({ ...fault, change: changeNear(outcome.changes, fault) }))
  const stored = s ? s.acknowledged_inserts + (s.inserts_in_doubt_stored ?? 0) : null
  /** @type {Check[]} */
  const checks = [
    check(
      'the run ends with exit 0 and its summary',
      `exit ${outcome.exitCode}`,
      'exit 0',
      outcome.exitCode === 0 && s
    ),
    check(
      'faults done',
      `${outcome.faults.filter(f => f.done).length} of ${outcome.faults.length}`,
      'all',
      outcome.faults.every(f => f.done)
    ),
    check('acknowledged inserts missing', String(s?.acknowledged_missing), '0', s?.acknowledged_missing === 0),
    check('acknowledged inserts vanished', String(s?.acknowledged_vanished), '0', s?.acknowledged_vanished === 0),
    check(
      "rows in the table = acknowledged + in doubt and stored (the run's count)",
      `${outcome.tableRows} = ${s?.acknowledged_inserts} + ${s?.inserts_in_doubt_stored}`,
      'equal',
      outcome.tableRows !== null && outcome.tableRows === stored && s.acknowledged_inserts > 0
    ),
    check(
      'client backends of the run before it stopped',
      String(outcome.backendsAtEnd),
      `≤ ${concurrency}`,
      outcome.backendsAtEnd >= 0 && outcome.backendsAtEnd <= concurrency
    ),
    check('backends of the run left after it exited', String(outcome.backendsAfter), '0', outcome.backendsAfter === 0),
    check(
      'faults a change was found at',
      `${faults.filter(f => f.change).length} of ${faults.length}`,
      'all',
      faults.every(f => f.change)
    )
  ]
  if (rss) {
    // after the first tenth of the run (start-up)
    const slope = rssSlope(outcome.rss, lengthS / 10)
    checks.push(
      check(
        "generator's resident memory, least-squares slope (MiB per 10 min)",
        slope === null ? 'no samples' : `${slope.toFixed(3)} (${rssShape(outcome.rss, outcome.memory, lengthS)})`,
        `< ${RSS_LIMIT_MIB_PER_10_MIN}`,
        slope !== null && slope < RSS_LIMIT_MIB_PER_10_MIN
      )
    )
  }
  return { checks, faults }
}

/**
 * Where resident memory was at the end of the start-up and at the end,
 * its slope over the second half (a creep that levels off is not a leak),
 * and the slope of its floor, the lowest of every 5 minutes (what is left
 * after the heap's major collections); and where the slope lies, from
 * the generator's own figures.
 * @param {import('./rss.js').RssSample[]} samples
 * @param {import('./soak.js').SoakOutcome['memory']} memory
 * @param {number} lengthS
 */
function rssShape(samples, memory, lengthS) {
  const mib = (/** @type {{ rss_bytes: number } | undefined} */ s) => ((s?.rss_bytes ?? 0) / 2 ** 20).toFixed(1)
  const first = samples.find(s => s.t_s >= lengthS / 10)
  const half = rssSlope(samples, lengthS / 2)
  const floor = rssSlope(rssFloor(samples, lengthS / 10, 300), 0)
  const figure = (/** @type {number | null} */ n) => (n === null ? '?' : n.toFixed(3))
  const parts = memorySlopes(memory, lengthS / 10)
  const where = parts
    ? [`JavaScript heap ${figure(parts.heap)}`, `buffers ${figure(parts.buffers)}`, `the rest ${figure(parts.rest)}`]
    : []
  const of = where.length > 0 ? `; of the slope, ${where.join(', ')}` : ''
  const part = (/** @type {'anon_bytes' | 'file_bytes'} */ key) =>
    figure(
      rssSlope(
        samples.flatMap(s => (s[key] === undefined ? [] : [{ t_s: s.t_s, rss_bytes: s[key] }])),
        lengthS / 10
      )
    )
  const split = `; private ${part('anon_bytes')}, file-backed ${part('file_bytes')}`
  return `${mib(first)} → ${mib(samples.at(-1))} MiB; second half ${figure(half)}; floor ${figure(floor)}${split}${of}`
}

/**
 * The change found at the fault: one from a little before it began to a
 * while after it ended, not the end of a condition (a series of the lab's
 * back at 0, which is the end of what came before); one with a cause
 * named first, then the nearest its start. Null when there is none.
 * @param {any[]} changes
 * @param {import('./soak.js').DoneFault} fault
 */
export function changeNear(changes, fault) {
  const near = changes.filter(
    c =>
      c.at_s >= fault.from_s - MATCH_WINDOW_S[0] &&
      c.at_s <= fault.to_s + MATCH_WINDOW_S[1] &&
      !(String(c.metric).startsWith('condition:') && c.after?.median === 0)
  )
  const named = (/** @type {any} */ c) => ((c.causes?.length ?? 0) > 0 ? 0 : 1)
  near.sort((a, b) => named(a) - named(b) || Math.abs(a.at_s - fault.from_s) - Math.abs(b.at_s - fault.from_s))
  return near[0] ?? null
}

/**
 * @param {string} name
 * @param {string} value
 * @param {string} limit
 * @param {unknown} met
 * @returns {Check}
 */
function check(name, value, limit, met) {
  return { name, value, limit, met: Boolean(met) }
}
