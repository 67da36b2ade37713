// One request in flight on a connection, and, for statements, what it came
// back with so far.

// What the server answers an operation with decides how it completes.
export const EXTENDED = 0 // Parse/Bind/Execute: one result
export const SIMPLE = 1 // a Query for one statement
export const SIMPLE_MANY = 2 // a Query of any number of statements: a result each
export const SYNC = 3 // a Sync alone: settles the pipeline before it
export const COPY = 4 // a Query starting COPY FROM STDIN

/**
 * @typedef {object} WireResult
 * @property {number} rowCount   the number in the command tag (0 without one)
 * @property {string | null} first  the first column of the first row, as text
 * @property {string} command    the command tag without its numbers: 'INSERT', 'SELECT', 'CREATE TABLE'
 * @property {string[]} [fields]  column names (with options.rows)
 * @property {Array<Array<string | null>>} [rows]  every row's values as text, null for NULL (with options.rows)
 */

export class Operation {
  /**
   * @param {(value: any) => void} resolve
   * @param {(err: Error) => void} reject
   * @param {number} kind         EXTENDED, SIMPLE, SIMPLE_MANY, SYNC or COPY
   * @param {boolean} endsGroup   a Sync (or the Query's own) follows it: it settles at ReadyForQuery
   * @param {string} parsedName   name of a statement this operation parses, if any
   * @param {boolean} captureRows
   */
  constructor(resolve, reject, kind, endsGroup, parsedName, captureRows) {
    this.resolve = resolve
    this.reject = reject
    this.kind = kind
    this.endsGroup = endsGroup
    this.parsedName = parsedName
    this.parseOk = false
    // its Execute (or Query) was answered: CommandComplete, EmptyQueryResponse or ErrorResponse
    this.done = false
    /** @type {Error | null} */
    this.error = null
    this.rowCount = 0
    /** @type {string | null} */
    this.first = null
    this.command = ''
    this.seen = 0 // DataRows so far
    /** @type {string[] | undefined} */
    this.fields = captureRows ? [] : undefined
    /** @type {Array<Array<string | null>> | undefined} */
    this.rows = captureRows ? [] : undefined
    /** @type {WireResult[] | null} one per statement, for SIMPLE_MANY */
    this.results = kind === SIMPLE_MANY ? [] : null
    /** @type {Iterable<Buffer | string> | AsyncIterable<Buffer | string> | null} what COPY sends */
    this.copySource = null
    /** @type {Error | null} why the source failed: the COPY rejects with it */
    this.copyFailure = null
  }

  /** @returns {WireResult} what the statement came back with, without the bookkeeping */
  result() {
    if (this.fields === undefined) return { rowCount: this.rowCount, first: this.first, command: this.command }
    return { rowCount: this.rowCount, first: this.first, command: this.command, fields: this.fields, rows: this.rows }
  }

  /** A statement of a multi-statement Query completed: keep its result, start the next. */
  collect() {
    ;/** @type {WireResult[]} */ (this.results).push(this.result())
    if (this.fields !== undefined) {
      this.fields = []
      this.rows = []
    }
    this.rowCount = 0
    this.first = null
    this.command = ''
    this.seen = 0
  }
}
