// The connection a workload's requests run on: a thin layer over the wire
// client that the built-in workloads and users' modules share. Statements
// given as text are prepared once per connection (with -M prepared) under a
// name derived from the text, so a module needs no bookkeeping of its own.
import { copyTextRow } from '../wire/wire-connection.js'

/** @typedef {import('../wire/wire-connection.js').WireConnection} WireConnection */
/** @typedef {import('../wire/wire-connection.js').Statement} Statement */
/** @typedef {import('../wire/wire-connection.js').WireResult} WireResult */
/** @typedef {ReadonlyArray<string | number | bigint | boolean | null>} Params */
/** @typedef {string | Statement} Sql */

const NO_PARAMS = /** @type {Params} */ ([])
const BEGIN = { name: 'pgloadgen_begin', text: 'BEGIN' }
const COMMIT = { name: 'pgloadgen_commit', text: 'COMMIT' }
// a statement of a pipeline: no Sync after it (see batch)
const OPEN_PIPELINE = Object.freeze({ sync: false })
// Texts beyond this many are sent as unnamed statements: a module that
// builds SQL with values inlined must not prepare without end.
const MAX_NAMED_TEXTS = 1000

/** @type {Map<string, Statement>} */
const statementsByText = new Map()

/**
 * The statement for a text: named after the order texts were first seen.
 * @param {string} text
 * @returns {Statement}
 */
export function statement(text) {
  let found = statementsByText.get(text)
  if (found === undefined) {
    found = { name: statementsByText.size < MAX_NAMED_TEXTS ? `pgl_${statementsByText.size + 1}` : '', text }
    if (found.name !== '') statementsByText.set(text, found)
  }
  return found
}

export class Db {
  /** @param {WireConnection} connection */
  constructor(connection) {
    this.connection = connection
  }

  /** 'prepared', 'extended' or 'simple' (-M) */
  get protocol() {
    return this.connection.protocol
  }

  /** Ends a connection of the request's own (ctx.connect()). */
  close() {
    return this.connection.close()
  }

  /**
   * Runs one statement. Results carry rowCount and `first` (the first
   * column of the first row, as text); with { rows: true } also `fields`
   * and every row, as arrays of text.
   * @param {Sql} sql
   * @param {Params} [params]
   * @param {{ rows?: boolean }} [options]
   * @returns {Promise<WireResult>}
   */
  query(sql, params = NO_PARAMS, options) {
    return this.connection.run(typeof sql === 'string' ? statement(sql) : sql, params, options)
  }

  /**
   * BEGIN, the statements, COMMIT, pipelined: they leave in one write and
   * come back in one round trip. If one fails, the server skips the rest,
   * the transaction is rolled back and the first error is thrown.
   * Resolves to the statements' results.
   * @param {Array<[Sql, Params?]>} statements
   * @returns {Promise<WireResult[]>}
   */
  async batch(statements) {
    const connection = this.connection
    // One Sync, after the COMMIT: the server flushes its replies at every
    // Sync, so a Sync per statement came back as a packet per statement,
    // each a wake-up and a read of the client's. The simple protocol has no
    // pipeline: each statement is a Query of its own there.
    const open = connection.protocol === 'simple' ? undefined : OPEN_PIPELINE
    connection.cork()
    const pending = [connection.run(BEGIN, NO_PARAMS, open)]
    for (const [sql, params] of statements)
      pending.push(connection.run(typeof sql === 'string' ? statement(sql) : sql, params ?? NO_PARAMS, open))
    pending.push(connection.run(COMMIT, NO_PARAMS))
    connection.uncork()
    // Each run is awaited in turn: they settle in the order they were sent
    // (with one Sync, all at once), so that every rejection is handled and
    // the first one is the error. Cheaper than Promise.allSettled, which
    // makes closures and an outcome object for every statement.
    const last = pending.length - 1
    const results = new Array(last - 1)
    let failed = false
    let error
    for (let i = 0; i <= last; i++) {
      try {
        const result = await pending[i]
        if (i > 0 && i < last) results[i - 1] = result
      } catch (err) {
        if (!failed) error = err
        failed = true
      }
    }
    if (failed) {
      // A statement failed before the COMMIT: the server skipped the rest,
      // COMMIT included, and the transaction is left open and failed. It
      // is rolled back here, so that the connection is idle again after a
      // batch, as when every statement had its own Sync and the COMMIT
      // ended the failed transaction.
      await this.rollback()
      throw error
    }
    return results
  }

  /**
   * A transaction whose statements depend on each other's results: BEGIN,
   * then fn, then COMMIT; if fn throws, ROLLBACK and the error goes on.
   * @template T
   * @param {(db: Db) => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async transaction(fn) {
    await this.connection.run(BEGIN, NO_PARAMS)
    try {
      const result = await fn(this)
      await this.connection.run(COMMIT, NO_PARAMS)
      return result
    } catch (err) {
      await this.rollback()
      throw err
    }
  }

  /** Ends an open or failed transaction, if the connection still works. */
  async rollback() {
    if (this.connection.broken || this.connection.transactionStatus === 'I') return
    await this.connection.simpleQuery('ROLLBACK').catch(() => {})
  }

  /**
   * COPY … FROM STDIN. The source yields rows as arrays of values (written
   * in COPY's text format, null as \N) or ready-made chunks of COPY data
   * (strings or Buffers, for any format, binary included).
   * @param {string} sql
   * @param {Iterable<unknown> | AsyncIterable<unknown>} source
   * @returns {Promise<WireResult>}  rowCount: the rows copied
   */
  copyFrom(sql, source) {
    return this.connection.copyFrom(sql, copyChunks(source))
  }
}

/**
 * @param {Iterable<unknown> | AsyncIterable<unknown>} source
 * @returns {AsyncGenerator<string | Buffer>}
 */
async function* copyChunks(source) {
  let text = ''
  for await (const item of source) {
    if (Array.isArray(item)) {
      text += copyTextRow(
        item.map(value => (value === undefined ? null : value instanceof Date ? value.toISOString() : value))
      )
      // Rows are gathered into chunks of some size: one CopyData message per row would cost more than the row.
      if (text.length >= 65536) {
        yield text
        text = ''
      }
      continue
    }
    if (text !== '') {
      yield text
      text = ''
    }
    if (typeof item === 'string' || Buffer.isBuffer(item)) yield item
    else throw new TypeError('copyFrom: a source yields arrays of values, strings or Buffers')
  }
  if (text !== '') yield text
}
