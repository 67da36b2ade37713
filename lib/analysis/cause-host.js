// Causes on the machine rather than in the server's statistics, from the
// samples' host figures (lib/recorder/host-cpu.js): other processes taking
// the CPU (a rise of their CPU time, with the processes that rose named)
// or giving it back (a fall, with those that fell named). The server that
// stopped or answered nothing is cause-stalls.js's.

import { round } from '../helpers/numbers.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('./observation.js').Observation} Observation */
/** @typedef {import('./observation.js').At} At */

// Other processes took the CPU when, over RISE_HOLD_S seconds against the
// BASELINE_S before, processes other than the generator and the server
// each rose by NAMED_RISE_PCT of a core or more (a process born in that
// time rose from nothing), CPU_RISE_PCT in all, while the generator's and
// the server's own CPU time fell by a sixth or more and they waited for a
// CPU no less than before (/proc/<pid>/schedstat), in share of their
// runnable time and, by WAIT_HELD, in time: on a machine that was already
// busy, a newcomer takes its share from every process, the load's among
// them, and the machine's total does not rise; a load that stops for
// another reason (a lock, lost connections) sleeps, and the others fill the
// CPU it left; a load that waits for its disk (a burst of checkpoints on a
// throttled disk) is runnable less often, waits for a CPU a quarter as long
// as before, and the others fill that too.
export const CPU_RISE_PCT = 40
const NAMED_RISE_PCT = 10
const OURS_FALL = 0.85
// and the share of their runnable time they spent waiting for a CPU did not fall by more than this
const WAIT_SLACK = 0.02
// and their time waiting for a CPU did not fall below this share of what it was
const WAIT_HELD = 0.6
const BASELINE_S = 8
const RISE_HOLD_S = 3

/**
 * Spans in which other processes took the CPU. When the processes of one
 * span leave while others take their place (another test's processes, then
 * a build's), the next span starts at once, judged against the same seconds
 * before the first: the load's CPU has not come back in between, so the
 * seconds just before the newcomers are no baseline.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
export function cpuContention(samples, at, lastS, out) {
  cpuReleased(samples, at, risesOfOthers(samples, at, lastS, out), out)
}

/**
 * The spans of cpuContention, pushed to `out`; the indexes each chain of
 * spans covers, from its first second to its end.
 * @param {Sample[]} samples @param {At} at @param {number} lastS @param {Observation[]} out
 */
function risesOfOthers(samples, at, lastS, out) {
  /** @type {Array<[number, number]>} */
  const covered = []
  let i = BASELINE_S
  while (i + RISE_HOLD_S <= samples.length) {
    const before = samples.slice(i - BASELINE_S, i)
    let found = contentionAt(samples, before, i)
    if (!found) {
      i++
      continue
    }
    let end = i
    while (found) {
      const from = end
      end = spanEnd(samples, from, found.rose)
      const toS = end >= samples.length ? null : round(at(samples[end].t) - 1, 1)
      out.push({
        from_s: round(at(samples[from].t) - 1, 1),
        to_s: toS !== null && toS >= lastS ? null : toS,
        kind: 'cpu_contention',
        label: contentionLabel(found.rose, samples.slice(from, end), found.oursBefore, found.oursAfter)
      })
      /** @type {Set<string>} */
      const left = new Set(found.rose.map(p => p.key))
      found = end + RISE_HOLD_S <= samples.length ? contentionAt(samples, before, end, left) : null
    }
    covered.push([i, end])
    i = end + BASELINE_S
  }
  return covered
}

// The CPU given back: over RISE_HOLD_S seconds against the BASELINE_S
// before, processes other than the generator and the server each fell by
// NAMED_RISE_PCT of a core or more, CPU_RISE_PCT in all, while the
// generator's and the server's CPU rose by as much as it falls when others
// take it (1 / OURS_FALL) and they waited for a CPU no more than before.
// Processes that were there when the run began, or that rose too slowly to
// be seen coming, leave, and the load gets its CPU back. A load that
// resumes for a reason of its own (a lock released) takes the CPU from the
// others and waits more for it, which is not this; nor is a fall within a
// span of cpuContention (the newcomers took the others' CPU too) or in the
// BASELINE_S seconds after its end (its own processes leaving, on a loaded
// machine a few seconds after their share fell), which that span names.

/**
 * Moments at which other processes gave the CPU back, as short spans of
 * the kind cpu_contention.
 * @param {Sample[]} samples @param {At} at @param {Array<[number, number]>} spans   indexes the risers' spans cover
 * @param {Observation[]} out
 */
function cpuReleased(samples, at, spans, out) {
  let i = BASELINE_S
  while (i + RISE_HOLD_S <= samples.length) {
    const inSpan = spans.some(([from, end]) => i >= from - RISE_HOLD_S && i <= end + BASELINE_S)
    const found = inSpan ? null : releaseAt(samples, i)
    if (!found) {
      i++
      continue
    }
    const fromS = round(at(samples[i].t) - 1, 1)
    out.push({ from_s: fromS, to_s: round(fromS + RISE_HOLD_S, 1), kind: 'cpu_contention', label: found })
    i += BASELINE_S + RISE_HOLD_S
  }
}

/**
 * Whether other processes gave the CPU back in the RISE_HOLD_S seconds
 * from i, against the BASELINE_S before: its label, or null.
 * @param {Sample[]} samples @param {number} i
 */
function releaseAt(samples, i) {
  const before = samples.slice(i - BASELINE_S, i)
  const during = samples.slice(i, i + RISE_HOLD_S)
  // risers read backwards: who had more CPU before than during
  const fell = risers(during, before)
  const total = fell.reduce((sum, p) => sum + p.rise, 0)
  const { oursBefore, oursAfter, waitBefore, waitAfter } = loadShift(before, during)
  const rose = oursBefore !== null && oursAfter !== null && oursBefore <= OURS_FALL * oursAfter
  const waitedLess = waitBefore === null || waitAfter === null || waitAfter <= waitBefore + WAIT_SLACK
  // a server that was stopped and goes on again: its load took nothing back from anyone
  const stopped = [...before, ...during].some(s => (s.host?.server_stopped ?? 0) > 0)
  const level = fell.reduce((sum, p) => sum + p.pct, 0)
  const gone = share(samples[i], fell) <= level - total / 2
  if (total < CPU_RISE_PCT || !rose || !waitedLess || stopped || !gone) return null
  return releaseLabel(fell, during, oursBefore, oursAfter)
}

/**
 * "other processes gave the CPU back (pid 812 yes, 96 → 0 % of a core)",
 * with the generator's and the server's CPU before and during.
 * @param {ReturnType<typeof risers>} fell   pct: their share before; rise: how much it fell
 * @param {Sample[]} during
 * @param {number | null} oursBefore @param {number | null} oursAfter
 */
function releaseLabel(fell, during, oursBefore, oursAfter) {
  const texts = fell.map(p => `${Math.round(p.pct)} → ${Math.round(p.pct - p.rise)} % of a core`)
  const allPct = fell.reduce((sum, p) => sum + p.rise, 0)
  return machineLabel('gave the CPU back', { listed: fell, texts, allPct }, during, [oursBefore, oursAfter])
}

/**
 * Whether other processes took the CPU in the RISE_HOLD_S seconds from i,
 * against the seconds `before` (see CPU_RISE_PCT): who rose, and the load's
 * CPU before and during; null when they did not. The processes of `except`
 * (a span's that just left) are not newcomers.
 * @param {Sample[]} samples @param {Sample[]} before @param {number} i @param {Set<string>} [except]
 */
function contentionAt(samples, before, i, except) {
  const during = samples.slice(i, i + RISE_HOLD_S)
  const rose = risers(before, during).filter(p => !except?.has(p.key))
  const total = rose.reduce((sum, p) => sum + p.rise, 0)
  const { oursBefore, oursAfter, waitBefore, waitAfter, waitedBefore, waitedAfter } = loadShift(before, during)
  const fell = oursBefore !== null && oursAfter !== null && oursAfter <= OURS_FALL * oursBefore
  // runnable but not running: a load that waits for a lock, a connection or its disk sleeps instead
  const waiting =
    (waitBefore === null || waitAfter === null || waitAfter >= waitBefore - WAIT_SLACK) &&
    (waitedBefore === null || waitedAfter === null || waitedAfter >= WAIT_HELD * waitedBefore)
  // a stopped server leaves the load idle: what fills the CPU then took nothing from it
  const stopped = during.some(s => (s.host?.server_stopped ?? 0) > 0)
  if (total < CPU_RISE_PCT || !fell || !waiting || stopped || !(share(samples[i], rose) >= total / 2)) return null
  return { rose, oursBefore, oursAfter }
}

/**
 * The first second from `from` on whose risers fell below half their share
 * for RISE_HOLD_S seconds, or the run's end.
 * @param {Sample[]} samples @param {number} from @param {ReturnType<typeof risers>} rose
 */
function spanEnd(samples, from, rose) {
  const level = rose.reduce((sum, p) => sum + p.pct, 0)
  let end = from + 1
  while (end < samples.length) {
    const held = samples.slice(end, end + RISE_HOLD_S).map(s => share(s, rose))
    if (held.every(v => v < level / 2)) break
    end++
  }
  return end
}

/**
 * The generator's and the server's CPU (percent of a core) and the share
 * of their runnable time they waited for a CPU, in the seconds before and
 * during: what a rise or a fall of the others' CPU did to the load.
 * @param {Sample[]} before @param {Sample[]} during
 */
function loadShift(before, during) {
  return {
    oursBefore: meanOf(before, ours),
    oursAfter: meanOf(during, ours),
    waitBefore: meanOf(before, waitShare),
    waitAfter: meanOf(during, waitShare),
    waitedBefore: meanOf(before, waited),
    waitedAfter: meanOf(during, waited)
  }
}

/**
 * The share of their runnable time the generator's and the server's
 * processes spent waiting for a CPU in a second (0 to 1).
 * @param {Sample} s
 */
const waitShare = s => {
  const run = ours(s)
  const wait = s.host?.wait_pct
  return typeof wait === 'number' && run !== undefined && wait + run > 0 ? wait / (wait + run) : undefined
}

/**
 * How long the generator's and the server's processes waited for a CPU in a
 * second, in percent of a core.
 * @param {Sample} s
 */
const waited = s => (typeof s.host?.wait_pct === 'number' ? s.host.wait_pct : undefined)

/** The generator's and the server's CPU in a second, in percent of a core. @param {Sample} s */
const ours = s => (typeof s.host?.own_pct === 'number' ? s.host.own_pct + (s.host.server_pct ?? 0) : undefined)

/**
 * A process, or the processes of one name and parent, as one key.
 * @param {{ pid: number, ppid?: number, name: string }} p
 */
const keyOf = p => (p.ppid === undefined ? `pid ${p.pid}` : `${p.ppid}/${p.name}`)

/**
 * A process's (or group's) mean share over the seconds.
 * @param {Sample[]} list @param {string} key
 */
function meanShare(list, key) {
  return (
    list.reduce((sum, s) => sum + (s.host?.top?.find(p => keyOf(p) === key)?.pct ?? 0), 0) / Math.max(1, list.length)
  )
}

/**
 * The other processes whose share rose from the seconds before to the seconds during.
 * @param {Sample[]} before @param {Sample[]} during
 * @returns {Array<{ key: string, pid: number, name: string, n: number, ppid: number | null, pct: number,
 *   rise: number }>}
 */
function risers(before, during) {
  /** @type {Map<string, { pid: number, name: string, n: number, ppid: number | null }>} */
  const seen = new Map()
  for (const s of during) {
    for (const p of s.host?.top ?? []) {
      const last = seen.get(keyOf(p))
      seen.set(keyOf(p), { pid: p.pid, name: p.name, n: Math.max(p.n ?? 1, last?.n ?? 1), ppid: p.ppid ?? null })
    }
  }
  return [...seen]
    .map(([key, p]) => {
      const pct = meanShare(during, key)
      return { key, ...p, pct, rise: pct - meanShare(before, key) }
    })
    .filter(p => p.pct >= NAMED_RISE_PCT && p.rise >= NAMED_RISE_PCT)
    .sort((a, b) => b.pct - a.pct)
}

/**
 * The processes' CPU in one second.
 * @param {Sample} s @param {Array<{ key: string }>} processes
 */
function share(s, processes) {
  return processes.reduce((sum, p) => sum + (s.host?.top?.find(q => keyOf(q) === p.key)?.pct ?? 0), 0)
}

/**
 * "another process took the CPU (pid 812 yes, 96 % of a core)", with the
 * generator's and the server's CPU before and during.
 * @param {Array<{ key: string, pid: number, name: string, n: number, ppid: number | null }>} rose
 * @param {Sample[]} during
 * @param {number | null} oursBefore @param {number | null} oursAfter
 */
function contentionLabel(rose, during, oursBefore, oursAfter) {
  const shares = rose.map(p => meanShare(during, p.key))
  const texts = shares.map(pct => `${Math.round(pct)} % of a core`)
  return machineLabel('took the CPU', { listed: rose, texts, allPct: shares.reduce((a, b) => a + b, 0) }, during, [
    oursBefore,
    oursAfter
  ])
}

/** @typedef {{ pid: number, name: string, n: number, ppid: number | null }} Listed */

/**
 * "N other processes VERB (who, their share: all in all); the generator and
 * the server before → after": the label of a rise or a fall of the others' CPU.
 * @param {string} verb
 * @param {{ listed: Listed[], texts: string[], allPct: number }} moved   each process with a text
 * @param {Sample[]} during
 * @param {[number | null, number | null]} ours   the generator's and the server's CPU before and during
 */
function machineLabel(verb, { listed, texts, allPct }, during, [oursBefore, oursAfter]) {
  const who = listed
    .slice(0, 3)
    .map((p, k) =>
      p.n > 1
        ? `${p.n} processes ${p.name}, children of pid ${p.ppid}, ${texts[k]}`
        : `pid ${p.pid} ${p.name}, ${texts[k]}`
    )
    .join('; ')
  const more = listed.length > 3 ? `; +${listed.length - 3} more` : ''
  const count = listed.reduce((sum, p) => sum + p.n, 0)
  const subject = count === 1 ? `another process ${verb}` : `${count} other processes ${verb}`
  const server = during.some(s => typeof s.host?.server_pct === 'number') ? ' and the server' : ''
  const all = listed.length > 1 ? `: ${Math.round(allPct)} % of a core in all` : ''
  return `${subject} (${who}${more}${all}); the generator${server} ${Math.round(oursBefore ?? 0)} → ${Math.round(oursAfter ?? 0)} % of a core`
}

/**
 * @param {Sample[]} list
 * @param {(s: Sample) => number | null | undefined} pick
 */
function meanOf(list, pick) {
  const values = list.map(pick).filter(v => typeof v === 'number')
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length
}
