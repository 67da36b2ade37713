import { performance } from 'node:perf_hooks'

// A paced workload's client (tsbs-cpu's hosts, fleet's agents): one request
// every period, from an offset of its own. The next is due one period after
// this one was due, not after it ended: when the server falls behind, the
// lag grows. After a pause its schedule starts over rather than owing the
// paused time. (load-shape.js)

export class Paced {
  reschedulable = false

  /**
   * @param {import('../../workloads/contract.js').Pacing} pacing
   * @param {number} id       the client's number: its offset
   * @param {number} nowMs    performance.now()
   */
  constructor(pacing, id, nowMs) {
    this.periodMs = pacing.intervalS * 1000
    this.nextDue = nowMs + (pacing.offsetS?.(id) ?? 0) * 1000
  }

  due() {
    const due = this.nextDue
    this.nextDue += this.periodMs
    return due
  }

  stillDue() {
    return true
  }

  resumed() {
    this.nextDue = Math.max(this.nextDue, performance.now())
  }
}
