import { RunState } from './run-state.js'

// What a generator thread knows of the run that the main thread must know
// too: every acknowledged insert (with its fingerprint and the incarnation
// of the server that acknowledged it), the server incarnations its
// connections reached, and the in-doubt writes. The thread keeps them in
// order and hands them over in reports; the main thread replays each report
// into the one RunState that the check at exit reads, so that the check is
// the same with threads as without.

/**
 * A thread's report: what happened since its last one, in order.
 * @typedef {object} StateReport
 * @property {string[]} startTimes   incarnations first seen since the last report, in the order seen
 * @property {number[]} incarnationIndex  per acknowledgement: its server start time, an index into the thread's start
 *   times so far
 * @property {number[]} ids
 * @property {number[]} fingerprints
 * @property {import('./run-state.js').InDoubtWrite[]} inDoubt
 */

export class ThreadRunState extends RunState {
  /** @param {number} maxId */
  constructor(maxId) {
    super(maxId)
    /** @type {string[]} the server start times of this thread's incarnation numbers */
    this.startTimes = []
    this.reportedStartTimes = 0
    /** @type {number[]} */
    this.pendingIncarnations = []
    /** @type {number[]} */
    this.pendingIds = []
    /** @type {number[]} */
    this.pendingFingerprints = []
    this.reportedInDoubt = 0
  }

  /** @param {string} startTime */
  incarnationOf(startTime) {
    const incarnation = super.incarnationOf(startTime)
    if (incarnation === this.startTimes.length) this.startTimes.push(startTime)
    return incarnation
  }

  /**
   * The main thread's ledger is the one audited; this thread only keeps the
   * highest id, for the ids its clients aim at.
   * @param {number} id
   * @param {number} [fingerprint]
   * @param {number} [incarnation]
   */
  noteInserted(id, fingerprint = 0, incarnation = this.startTimes.length - 1) {
    this.pendingIds.push(id)
    this.pendingFingerprints.push(fingerprint)
    // -1: no incarnation known (a workload without a dense id table)
    this.pendingIncarnations.push(incarnation)
    if (id > this.maxId) this.maxId = id
  }

  /**
   * What happened since the last report, or null when nothing did.
   * @returns {StateReport | null}
   */
  takeReport() {
    const fresh =
      this.startTimes.length > this.reportedStartTimes ||
      this.pendingIds.length > 0 ||
      this.inDoubt.length > this.reportedInDoubt
    if (!fresh) return null
    const report = {
      startTimes: this.startTimes.slice(this.reportedStartTimes),
      incarnationIndex: this.pendingIncarnations,
      ids: this.pendingIds,
      fingerprints: this.pendingFingerprints,
      inDoubt: this.inDoubt.slice(this.reportedInDoubt)
    }
    this.reportedStartTimes = this.startTimes.length
    this.reportedInDoubt = this.inDoubt.length
    this.pendingIncarnations = []
    this.pendingIds = []
    this.pendingFingerprints = []
    return report
  }
}

/**
 * The main thread's side: replays one thread's reports, in order, into
 * the run's state.
 */
export class StateReplay {
  /** @param {RunState} state */
  constructor(state) {
    this.state = state
    /** @type {string[]} this thread's start times so far */
    this.startTimes = []
  }

  /** @param {StateReport} report */
  apply(report) {
    const { state } = this
    for (const startTime of report.startTimes) {
      this.startTimes.push(startTime)
      state.incarnationOf(startTime)
    }
    const { ids, fingerprints, incarnationIndex } = report
    for (let i = 0; i < ids.length; i++) {
      const at = incarnationIndex[i]
      state.noteInserted(ids[i], fingerprints[i], at < 0 ? undefined : state.incarnationOf(this.startTimes[at]))
    }
    for (const write of report.inDoubt) state.inDoubt.push(write)
  }
}
