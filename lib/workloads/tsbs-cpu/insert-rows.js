import { CPU_TABLE, ROW_COLUMNS } from './schema.js'

// A batch as one multi-row INSERT with a bind parameter per value, as TSBS
// inserts when told not to COPY. The protocol carries at most 65 535
// parameters in a statement: with 12 a row, 5 461 rows.

export const MAX_PARAMETERS = 65535
export const INSERT_MAX_ROWS = Math.floor(MAX_PARAMETERS / ROW_COLUMNS.length)
const COLUMNS = ROW_COLUMNS.length

/**
 * INSERT … VALUES ($1, …, $12), … for rows rows.
 * @param {number} rows
 */
export function insertSql(rows) {
  const tuples = []
  for (let r = 0; r < rows; r++) {
    const first = r * COLUMNS + 1
    tuples.push(`(${Array.from({ length: COLUMNS }, (_, c) => `$${first + c}`).join(', ')})`)
  }
  return `INSERT INTO ${CPU_TABLE} (${ROW_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`
}

/** @typedef {import('./stream.js').RowSink} RowSink */

/** @implements {RowSink} */
export class InsertRows {
  /** @param {number} batchSize */
  constructor(batchSize) {
    /** @type {Array<string | number>} */
    this.params = []
    this.rows = 0
    this.lastMs = NaN
    this.time = ''
    // the full batch's statement is prepared once per connection; a shorter one (the real clock's) is sent unnamed
    this.fullSql = insertSql(batchSize)
    this.batchSize = batchSize
  }

  begin() {
    this.params.length = 0
    this.rows = 0
  }

  /**
   * @param {number} timeMs
   * @param {number} tagsId
   * @param {Float64Array} values
   */
  row(timeMs, tagsId, values) {
    if (timeMs !== this.lastMs) {
      this.time = new Date(timeMs).toISOString()
      this.lastMs = timeMs
    }
    const params = this.params
    params.push(this.time, tagsId)
    for (let f = 0; f < values.length; f++) params.push(values[f])
    this.rows++
  }

  /** @returns {import('../db.js').Sql} */
  statement() {
    return this.rows === this.batchSize ? this.fullSql : { name: '', text: insertSql(this.rows) }
  }

  discard() {}
}
