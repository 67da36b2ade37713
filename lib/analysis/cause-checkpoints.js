// Checkpoints, as one kind of cause: each checkpoint the server logged
// (when its log is local: the moment to the millisecond, and why), else
// those the poll saw (the checkpointer at work, the counters rising as one
// ends); and, from pg_stat_wal at each poll, the surge of full-page images
// that follows a checkpoint: the first change of each page after one
// writes the whole page to the WAL, which is what slows the load when the
// checkpoints come one after another on a slow disk, while the checkpoints
// themselves are too short for a poll to see.

import { medianOf } from './series-noise.js'

/** @typedef {import('../recorder/records.js').Sample} Sample */
/** @typedef {import('./observation.js').Observation} Observation */
/** @typedef {import('./observation.js').At} At */

/**
 * Every checkpoint observation of a run: the logged checkpoints, or those
 * the poll saw when the log has none, and the surges of full-page images.
 * @param {Sample[]} samples @param {string | null} logText @param {At} at @param {Observation[]} out
 */
export function checkpoints(samples, logText, at, out) {
  const logged = logText ? checkpointsInLog(logText) : []
  if (logged.length > 0) {
    for (const c of logged)
      out.push({ from_s: at(c.ts), to_s: null, kind: 'checkpoint', label: `checkpoint starting (${c.reason})` })
  } else {
    checkpointCounters(samples, at, out)
  }
  fullPageImages(samples, at, out)
}

/**
 * Checkpoints from the poll, where the log is not local: one under way
 * from the first poll that sees the checkpointer at work to the first that
 * sees it idle (the counters rise only at a checkpoint's end), and each
 * rise of checkpoints_timed or checkpoints_req between two polls.
 * @param {Sample[]} samples @param {At} at @param {Observation[]} out
 */
function checkpointCounters(samples, at, out) {
  /** @type {{ timed: number | null, requested: number | null, running?: boolean } | null} */
  let last = null
  /** @type {Observation | null} a checkpoint seen under way, until the poll that sees it done */
  let underWay = null
  for (const sample of samples) {
    const now = sample.server?.checkpoints
    if (!now) continue
    const polledAt = at(sample.server?.polled_at ?? sample.t)
    if (now.running && !underWay) {
      underWay = {
        from_s: polledAt,
        to_s: null,
        kind: 'checkpoint',
        label: 'a checkpoint under way (the checkpointer writing)'
      }
      out.push(underWay)
    } else if (!now.running && underWay) {
      underWay.to_s = polledAt
      underWay = null
    }
    if (last) {
      for (const [key, reason] of /** @type {const} */ ([
        ['timed', 'timed'],
        ['requested', 'requested']
      ])) {
        const rise = (now[key] ?? 0) - (last[key] ?? 0)
        if (rise > 0) {
          out.push({
            from_s: polledAt,
            to_s: null,
            kind: 'checkpoint',
            label: `${rise > 1 ? `${rise} checkpoints` : 'checkpoint'} (${reason})`
          })
        }
      }
    }
    last = now
  }
}

// "2026-11-25 17:00:00.123 UTC [123] LOG:  checkpoint starting: immediate force wait"
const CHECKPOINT_LINE =
  /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (UTC|GMT|[+-]\d\d(?::?\d\d)?)\b.*LOG:\s+checkpoint starting: (.*)$/

/**
 * Checkpoints the server logged (log_checkpoints, on by default since
 * PostgreSQL 15), with why: time, wal, immediate, force…
 * @param {string} text
 * @returns {Array<{ ts: string, reason: string }>}
 */
export function checkpointsInLog(text) {
  const out = []
  for (const line of text.split('\n')) {
    const match = CHECKPOINT_LINE.exec(line)
    if (!match) continue
    const zone = match[2] === 'UTC' || match[2] === 'GMT' ? 'Z' : match[2]
    const ms = Date.parse(`${match[1].replace(' ', 'T')}${zone}`)
    if (!Number.isFinite(ms)) continue
    const words = match[3].trim().split(/\s+/)
    const reason = words.includes('time')
      ? 'timed'
      : words.includes('wal')
        ? 'WAL volume'
        : words.includes('immediate') || words.includes('force')
          ? 'requested'
          : words.join(' ')
    out.push({ ts: new Date(ms).toISOString(), reason })
  }
  return out
}

// A surge of full-page images: at least FPI_MIN_PER_S (some 0.8 MB of WAL a
// second) and FPI_SURGE times the median rate of the FPI_BASELINE polls
// before; it lasts until the rate falls below FPI_SURGE_END times that
// median, which holds still meanwhile.
export const FPI_MIN_PER_S = 100
export const FPI_SURGE = 3
const FPI_SURGE_END = 1.5
const FPI_BASELINE = 10

/**
 * Surges of the WAL's full-page images, from the cumulative count at each
 * poll: a moment, at the poll that saw the rate rise.
 * @param {Sample[]} samples @param {At} at @param {Observation[]} out
 */
export function fullPageImages(samples, at, out) {
  /** @type {number[]} the rates of the polls before, per second */
  const rates = []
  /** @type {{ fpi: number, s: number } | null} */
  let last = null
  /** @type {number | null} the baseline of a surge under way */
  let surgeOver = null
  for (const sample of samples) {
    const fpi = sample.server?.wal?.fpi
    if (typeof fpi !== 'number') continue
    const s = at(sample.server?.polled_at ?? sample.t)
    if (last && s <= last.s) continue
    const previous = last
    last = { fpi, s }
    if (!previous) continue
    const rate = Math.max(0, fpi - previous.fpi) / (s - previous.s)
    if (surgeOver !== null) {
      if (rate < FPI_SURGE_END * surgeOver) surgeOver = null
      continue
    }
    const baseline = rates.length >= FPI_BASELINE / 2 ? medianOf(Float64Array.from(rates)) : null
    rates.push(rate)
    if (rates.length > FPI_BASELINE) rates.shift()
    if (baseline === null || rate < FPI_MIN_PER_S || rate < FPI_SURGE * baseline) continue
    surgeOver = baseline
    const times = baseline > 0 ? `${Math.round(rate / baseline)}× the ${Math.round(baseline)}/s before` : 'none before'
    const why = 'pages changed for the first time since a checkpoint'
    out.push({
      from_s: previous.s,
      to_s: null,
      kind: 'checkpoint',
      label: `full-page images in the WAL at ${Math.round(rate)}/s, ${times} (${why})`
    })
  }
}
