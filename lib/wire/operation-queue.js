import { PipelineAbortedError } from './errors.js'
import { rowValues, fieldNames, textValue } from './backend-messages.js'
import { EXTENDED, SIMPLE_MANY, SYNC } from './operation.js'

/** @typedef {import('./operation.js').Operation} Operation */

// The operations in flight on a connection, in the order they were sent, and
// how the server's replies complete them. Replies come in that same order:
// each Execute (or a Query's statement) completes at its CommandComplete,
// EmptyQueryResponse or ErrorResponse, and everything up to a Sync (a Query
// is its own) settles at the ReadyForQuery that answers it. After an error
// the server skips what follows up to the Sync: those operations were never
// run.
export class OperationQueue {
  constructor() {
    /** @type {Operation[]} unsettled, in the order sent */
    this.operations = []
    // index of the operation the next reply is for; it stops at the end of
    // a Sync group, or at a failed operation, until ReadyForQuery
    this.cursor = 0
    /** @type {Set<string>} statements parsed on this connection */
    this.prepared = new Set()
  }

  get length() {
    return this.operations.length
  }

  /** @param {Operation} op */
  push(op) {
    this.operations.push(op)
  }

  /** @returns {Operation | undefined} the operation the next reply is for */
  current() {
    return this.operations[this.cursor]
  }

  /**
   * DataRow: the first value always, every value when rows are captured.
   * @param {Buffer} buf
   * @param {number} start
   */
  dataRow(buf, start) {
    const op = this.operations[this.cursor]
    if (op === undefined) return
    if (op.seen++ === 0 && buf.readInt16BE(start) > 0) {
      const length = buf.readInt32BE(start + 2)
      op.first = length < 0 ? null : textValue(buf, start + 6, start + 6 + length)
    }
    if (op.rows !== undefined) op.rows.push(rowValues(buf, start))
  }

  /**
   * @param {Buffer} buf
   * @param {number} start
   */
  rowDescription(buf, start) {
    const op = this.operations[this.cursor]
    if (op !== undefined && op.fields !== undefined) op.fields = fieldNames(buf, start)
  }

  parseComplete() {
    const op = this.operations[this.cursor]
    if (op !== undefined) op.parseOk = true
  }

  /**
   * CommandComplete or EmptyQueryResponse.
   * @param {number} rowCount
   * @param {string} command
   */
  complete(rowCount, command) {
    const op = this.operations[this.cursor]
    if (op === undefined) return
    op.rowCount = rowCount
    op.command = command
    op.done = true
    if (op.results !== null) op.collect()
    else if (!op.endsGroup) this.cursor++
  }

  /**
   * ErrorResponse. The cursor stays: what follows up to the Sync is skipped.
   * An error after the group's last statement (a deferred constraint
   * checked at the Sync's commit) goes to that last one, or to the sync().
   * @param {Error} error
   */
  error(error) {
    const op = this.operations[this.cursor]
    if (op === undefined || op.error !== null) return
    op.error = error
    op.done = true
  }

  /** ReadyForQuery: the operations up to the Sync it answers settle. */
  ready() {
    const operations = this.operations
    let last = this.cursor
    if (last >= operations.length) return
    while (!operations[last].endsGroup) last++
    this.cursor = 0
    if (last === 0) {
      this.settle(/** @type {Operation} */ (operations.shift()))
    } else {
      for (const op of operations.splice(0, last + 1)) this.settle(op)
    }
  }

  /** @param {Operation} op */
  settle(op) {
    if (op.error !== null || (op.kind === EXTENDED && !op.done)) {
      // a statement whose Parse failed or was skipped is parsed again next time
      if (op.parsedName !== '' && !op.parseOk) this.prepared.delete(op.parsedName)
      op.reject(op.copyFailure ?? op.error ?? new PipelineAbortedError())
    } else if (op.kind === SIMPLE_MANY) {
      op.resolve(op.results)
    } else if (op.kind === SYNC) {
      op.resolve(undefined)
    } else {
      op.resolve(op.result())
    }
  }

  /**
   * The connection is gone: everything in flight fails, with the server's
   * own error when it sent one (a terminated backend says why).
   * @param {Error} err
   */
  failAll(err) {
    const operations = this.operations
    this.operations = []
    this.cursor = 0
    for (const op of operations) op.reject(op.copyFailure ?? op.error ?? err)
  }
}
