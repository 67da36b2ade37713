import { performance } from 'node:perf_hooks'
import { ClosedLoop } from './closed-loop.js'
import { OpenLoop } from './open-loop.js'
import { Paced } from './paced.js'

// When a client's next request is meant to start: the load's shape. A
// closed loop sends as soon as the last answer is in; an open loop takes the
// next time of the run's schedule (the pacer, --rate); a paced workload's
// client keeps its own period. --stages moves the clients of a closed loop
// (generator.setConcurrency) or the rate of an open one (the pacer's
// profile): neither is a shape of its own. The worker (worker.js) asks its
// shape once per request and waits; the shapes hold no connection and no
// clock but performance.now(), so a test gives them a fake one.

/**
 * @typedef {object} LoadShape
 * @property {() => number | null} due   the intended start of the next request (performance.now() ms); null: now,
 *   the latency counting from the send
 * @property {() => boolean} stillDue    false: the schedule started over while the client waited for that time (a new
 *   rate): it is void, and the client takes another
 * @property {boolean} reschedulable     a new schedule cuts a wait for it short (Worker.rescheduled)
 * @property {() => void} resumed        the load resumed after a pause
 */

/**
 * The shape of client id's load.
 * @param {{ pacer: import('../pacer.js').Pacer | null, workload: { pacing: import('../../workloads/contract.js').Pacing
 *     | null } }} context
 * @param {number} id
 * @returns {LoadShape}
 */
export function shapeOf({ pacer, workload }, id) {
  if (pacer) return new OpenLoop(pacer)
  if (workload.pacing) return new Paced(workload.pacing, id, performance.now())
  return new ClosedLoop()
}
