// The closed loop: a client sends its next request as soon as the last
// answer is in (pgbench's default, k6's constant-vus). Its latency counts
// from the send. (load-shape.js)

export class ClosedLoop {
  reschedulable = false

  /** @returns {null} now */
  due() {
    return null
  }

  stillDue() {
    return true
  }

  resumed() {}
}
