// The generator's resident memory, read from /proc every ten seconds, and
// its trend: the least-squares slope, in MiB per ten minutes. Each sample
// also splits it into its private part (RssAnon: the allocators' and V8's
// memory, where a leak grows) and its file-backed part (RssFile: the pages
// of the node binary and libraries that the code run so far has touched,
// shared with every other node process, and dropped by the kernel when it
// needs the memory).
import { readFileSync } from 'node:fs'

const EVERY_MS = 10000

/** @typedef {{ t_s: number, rss_bytes: number, anon_bytes?: number, file_bytes?: number }} RssSample */

export class RssSampler {
  /** @param {number} pid */
  constructor(pid) {
    this.pid = pid
    this.started = Date.now()
    /** @type {RssSample[]} */
    this.samples = []
    this.timer = setInterval(() => this.sample(), EVERY_MS)
    this.sample()
  }

  sample() {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8')
      const bytes = (/** @type {string} */ field) =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024
      const sample = { t_s: (Date.now() - this.started) / 1000, rss_bytes: bytes('VmRSS') }
      if (Number.isFinite(sample.rss_bytes))
        this.samples.push({ ...sample, anon_bytes: bytes('RssAnon'), file_bytes: bytes('RssFile') })
    } catch {
      // the process has ended
    }
  }

  stop() {
    clearInterval(this.timer)
  }
}

/**
 * The least-squares slope of resident memory over time, in MiB per ten
 * minutes, of the samples after the first `skipS` seconds (start-up: the
 * JIT, the first allocations); null with fewer than three.
 * @param {Array<{ t_s: number, rss_bytes: number }>} samples
 * @param {number} skipS
 */
export function rssSlope(samples, skipS) {
  const used = samples.filter(s => s.t_s >= skipS)
  if (used.length < 3) return null
  const xs = used.map(s => s.t_s / 600)
  const ys = used.map(s => s.rss_bytes / 2 ** 20)
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = ys.reduce((a, b) => a + b, 0) / ys.length
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my)
    sxx += (xs[i] - mx) ** 2
  }
  return sxx === 0 ? null : sxy / sxx
}

/**
 * The floor of resident memory: the lowest sample of each window of
 * `windowS` seconds after `skipS`, at its moment. The heap grows between
 * two major collections and falls back at each (minutes apart): what a
 * leak raises is the floor, which the sawtooth hides from a slope of every
 * sample.
 * @param {Array<{ t_s: number, rss_bytes: number }>} samples
 * @param {number} skipS
 * @param {number} windowS
 */
export function rssFloor(samples, skipS, windowS) {
  /** @type {Map<number, { t_s: number, rss_bytes: number }>} */
  const lowest = new Map()
  for (const s of samples) {
    if (s.t_s < skipS) continue
    const window = Math.floor((s.t_s - skipS) / windowS)
    const held = lowest.get(window)
    if (!held || s.rss_bytes < held.rss_bytes) lowest.set(window, s)
  }
  return [...lowest.values()]
}

/**
 * Where a slope of resident memory lies, from the generator's own figures
 * in its recorded samples (lib/recorder/recorder.js memoryFigures): the
 * slopes, in MiB per ten minutes after `skipS`, of its JavaScript heap, of
 * the buffers outside it, and of the rest of its resident memory (the
 * allocator's, other threads'). Null without samples.
 * @param {Array<{ t_s: number, memory: import('../../lib/recorder/records.js').MemoryFigures }>} samples
 * @param {number} skipS
 */
export function memorySlopes(samples, skipS) {
  /** @param {(m: import('../../lib/recorder/records.js').MemoryFigures) => number} part */
  const slope = part =>
    rssSlope(
      samples.map(s => ({ t_s: s.t_s, rss_bytes: part(s.memory) })),
      skipS
    )
  const heap = slope(m => m.heap_total)
  const buffers = slope(m => m.external)
  const rest = slope(m => m.rss - m.heap_total - m.external)
  return heap === null || buffers === null || rest === null ? null : { heap, buffers, rest }
}
