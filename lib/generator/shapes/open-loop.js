// The open loop (--rate): a client takes the next time of the run's
// schedule (pacer.js), whatever the answers to the last requests; its
// latency counts from that time, so that a server falling behind shows as
// latency, not as fewer requests. A new rate starts the schedule over: a
// time of the old one, still awaited, is void. (load-shape.js)

export class OpenLoop {
  reschedulable = true

  /** @param {import('../pacer.js').Pacer} pacer */
  constructor(pacer) {
    this.pacer = pacer
    // the schedule the time taken belongs to
    this.origin = pacer.originMs
  }

  due() {
    this.origin = this.pacer.originMs
    return this.pacer.takeOnTime()
  }

  stillDue() {
    return this.pacer.originMs === this.origin
  }

  resumed() {}
}
