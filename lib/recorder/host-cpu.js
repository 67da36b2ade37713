import { readFileSync } from 'node:fs'

// The machine's CPU time since the last call, from /proc/stat: how busy
// it was, and how much of it waited for I/O or was taken by the hypervisor.
// A recorded run keeps it in each sample, so that a change the server does
// not explain can be laid at the machine's door (lib/analysis/lab-observers.js).
// Elsewhere than Linux it is null.

const STAT = '/proc/stat'

export class HostCpu {
  constructor() {
    /** @type {number[] | null} */
    this.last = read()
  }

  /**
   * Shares of the CPU time since the last call, in percent; null when
   * /proc/stat cannot be read.
   * @returns {{ busy_pct: number, iowait_pct: number, steal_pct: number } | null}
   */
  sample() {
    const now = read()
    const last = this.last
    this.last = now
    if (!now || !last) return null
    const delta = now.map((value, i) => value - (last[i] ?? 0))
    // user nice system idle iowait irq softirq steal
    const [user, nice, system, , iowait, irq, softirq, steal] = delta
    const total = delta.slice(0, 8).reduce((a, b) => a + b, 0)
    if (!(total > 0)) return null
    const pct = (/** @type {number} */ ticks) => Math.round((1000 * ticks) / total) / 10
    return {
      busy_pct: pct(user + nice + system + irq + softirq + steal),
      iowait_pct: pct(iowait),
      steal_pct: pct(steal)
    }
  }
}

/** The first line of /proc/stat as numbers, or null. */
function read() {
  try {
    const line = readFileSync(STAT, 'utf8').split('\n', 1)[0]
    if (!line.startsWith('cpu ')) return null
    return line.trim().split(/\s+/).slice(1).map(Number)
  } catch {
    return null
  }
}
