import { AckSet } from './ack-set.js'

// What the workers share: the highest id known to exist and the inserts the
// server acknowledged.
export class RunState {
  /** @param {number} maxId  read from the table before the first request */
  constructor (maxId) {
    this.maxId = maxId
    this.acknowledged = new AckSet()
    this.highestAcknowledged = 0
    // acknowledged inserts the data lost underneath the generator (a rollback)
    this.vanished = 0
    // counts the rewinds, so that one outage is accounted for once
    this.epoch = 0
  }

  /** A uniformly random id in [1, maxId] (1 while the table is empty). */
  randomId () {
    return 1 + Math.floor(Math.random() * this.maxId)
  }

  /**
   * fetch_max is authoritative: the max id can go down (a rollback of the
   * data underneath the generator), and then reads must not aim above it.
   * @param {number} maxId
   */
  noteMaxId (maxId) {
    this.maxId = maxId
  }

  /** @param {number} id */
  noteInserted (id) {
    this.acknowledged.add(id)
    if (id > this.maxId) this.maxId = id
    if (id > this.highestAcknowledged) this.highestAcknowledged = id
  }

  /**
   * After a reconnect: the table's max id read again. When it is below ids
   * the server acknowledged, the data went back in time underneath us (a
   * snapshot rollback, a lost asynchronous commit): those acknowledged rows
   * vanished. They are counted and forgotten, since the sequence went back
   * too and will hand their ids out again. Only the first worker back from
   * an outage (lostAtEpoch still current) accounts for it.
   * @param {number} maxId
   * @param {number} lostAtEpoch  the epoch when the worker lost its connection
   */
  noteMaxIdAfterReconnect (maxId, lostAtEpoch) {
    if (lostAtEpoch === this.epoch && maxId < this.highestAcknowledged) {
      this.vanished += this.acknowledged.clearRange(maxId, this.highestAcknowledged)
      this.highestAcknowledged = maxId
      this.epoch++
    }
    this.noteMaxId(maxId)
  }
}
