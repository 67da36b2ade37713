import { AckLedger } from './ack-ledger.js'
import { leavesOutcomeUnknown } from '../wire/errors.js'

/**
 * A write sent but never acknowledged because the connection broke: it may
 * or may not have committed. The probe counts how many of its rows the
 * table holds, so that the check at exit tells them from acknowledged ones.
 * @typedef {object} InDoubtWrite
 * @property {number} rows
 * @property {{ text: string, params: unknown[] } | null} probe  one row with a column n; null: an insert into the
 *   dense-id table, looked for among the ids nobody acknowledged
 * @property {number} [fingerprint]  such an insert's row fingerprint (0: none known)
 */

/** @typedef {import('../workloads/contract.js').IdBookkeeping} IdBookkeeping */

// What the workers share: the highest id known to exist and the inserts the
// server acknowledged.
export class RunState {
  /** @param {number} maxId  read from the table before the first request */
  constructor(maxId) {
    this.maxId = maxId
    // ids above it were handed out during the run: where in-doubt inserts are looked for
    this.startMaxId = maxId
    this.acknowledged = new AckLedger()
    /** @type {Map<string, number>} the server's start times seen, in order: its incarnations */
    this.incarnations = new Map()
    /** @type {InDoubtWrite[]} writes whose outcome a broken connection hid */
    this.inDoubt = []
  }

  /** The in-doubt inserts into the dense-id table (no probe: the ids nobody acknowledged are looked through). */
  insertsInDoubt() {
    return this.inDoubt.filter(write => write.probe === null)
  }

  /**
   * fetch_max is authoritative: the max id can go down (a rollback of the
   * data underneath the generator), and then reads must not aim above it.
   * @param {number} maxId
   */
  noteMaxId(maxId) {
    this.maxId = maxId
  }

  /**
   * An insert the server acknowledged.
   * @param {number} id
   * @param {number} [fingerprint]  of the row as written (see AckLedger); 0 or none: the id alone is checked
   * @param {number} [incarnation]  of the server that acknowledged it, when known
   */
  noteInserted(id, fingerprint = 0, incarnation) {
    this.acknowledged.add(id, fingerprint, incarnation)
    if (id > this.maxId) this.maxId = id
  }

  /**
   * The incarnation of the server a connection reached, from its start
   * time: a start time not seen before means the server restarted (a
   * crash, a rollback) and the acknowledgements so far are of an earlier one.
   * @param {string} startTime  pg_postmaster_start_time(), as text
   */
  incarnationOf(startTime) {
    let incarnation = this.incarnations.get(startTime)
    if (incarnation === undefined) {
      incarnation = this.incarnations.size
      this.incarnations.set(startTime, incarnation)
      if (incarnation > 0) this.acknowledged.nextIncarnation()
    }
    return incarnation
  }

  /**
   * ctx.ids for one connection's requests: inserts are noted with the
   * incarnation of the server the connection reached.
   * @param {() => number | undefined} incarnation
   * @param {() => number} [random]  the client's random numbers (ctx.random): randomId is uniform in [1, maxId] (1
   *   while the table is empty)
   * @returns {IdBookkeeping}
   */
  forConnection(incarnation, random = Math.random) {
    const state = this
    return {
      get maxId() {
        return state.maxId
      },
      randomId: () => 1 + Math.floor(random() * state.maxId),
      noteMaxId: maxId => state.noteMaxId(maxId),
      noteInserted: (id, fingerprint = 0) => state.noteInserted(id, fingerprint, incarnation()),
      insertFailed: (err, fingerprint = 0) => {
        if (leavesOutcomeUnknown(err)) state.inDoubt.push({ rows: 1, probe: null, fingerprint })
      }
    }
  }

  /**
   * After a reconnect: the table's max id read again, so that reads do not
   * aim at ids the data lost underneath (a snapshot rollback, lost
   * asynchronous commits). What was lost is counted at exit, by the check
   * of every acknowledged row; nothing is concluded here, where another
   * worker's insert may land between this read and its acknowledgement.
   * @param {number} maxId
   */
  noteMaxIdAfterReconnect(maxId) {
    this.noteMaxId(maxId)
  }
}
