import { BinaryCopyWriter, POSTGRES_EPOCH_MS } from './binary-copy.js'
import { ChunkWriter } from './chunks.js'
import { CPU_TABLE, FIELDS, ROW_COLUMNS } from './schema.js'

// A batch's rows as COPY data, written byte by byte into the chunks: in
// PostgreSQL's binary format (what TSBS's loader sends, through pgx's
// CopyFrom) or in its text format (TSBS with --force-text-format, and what
// psql's \copy sends). No object per row: the time of a row is worked out
// once for all the hosts that share it.

/** @typedef {import('./stream.js').RowSink} RowSink */

export const COPY_BINARY_SQL = `COPY ${CPU_TABLE} (${ROW_COLUMNS.join(', ')}) FROM STDIN WITH (FORMAT binary)`
export const COPY_TEXT_SQL = `COPY ${CPU_TABLE} (${ROW_COLUMNS.join(', ')}) FROM STDIN`

const FIELD_COUNT = ROW_COLUMNS.length
const TWO_TO_32 = 2 ** 32
// a tuple: its field count, the time, the host's id, the ten doubles
const BINARY_ROW_BYTES = 2 + 12 + 8 + FIELDS.length * 12
// the text of the whole numbers 0..SMALL-1, the usual values of a usage field
const SMALL = 1024
const SMALL_TEXT = Array.from({ length: SMALL }, (_, n) => Buffer.from(String(n), 'latin1'))

/** @implements {RowSink} */
export class BinaryRows {
  constructor() {
    this.writer = new BinaryCopyWriter()
    this.lastMs = NaN
    this.timeHigh = 0
    this.timeLow = 0
  }

  begin() {
    this.writer.begin()
  }

  /**
   * @param {number} timeMs
   * @param {number} tagsId
   * @param {Float64Array} values
   */
  row(timeMs, tagsId, values) {
    if (timeMs !== this.lastMs) {
      const micros = (timeMs - POSTGRES_EPOCH_MS) * 1000
      this.timeHigh = Math.floor(micros / TWO_TO_32)
      this.timeLow = micros - this.timeHigh * TWO_TO_32
      this.lastMs = timeMs
    }
    const writer = this.writer
    writer.ensure(BINARY_ROW_BYTES)
    const view = writer.view
    let at = writer.at
    view.setInt16(at, FIELD_COUNT)
    view.setInt32(at + 2, 8)
    view.setInt32(at + 6, this.timeHigh)
    view.setUint32(at + 10, this.timeLow)
    view.setInt32(at + 14, 4)
    view.setInt32(at + 18, tagsId)
    at += 22
    for (let f = 0; f < values.length; f++) {
      view.setInt32(at, 8)
      view.setFloat64(at + 4, values[f])
      at += 12
    }
    writer.at = at
  }

  /** @returns {Buffer[]} */
  end() {
    return this.writer.end()
  }

  discard() {
    this.writer.discard()
  }
}

const TAB = 9
const NEWLINE = 10
// the longest text of a double (-1.2345678901234567e-300) and a separator
const DOUBLE_TEXT_BYTES = 25

/** @implements {RowSink} */
export class TextRows {
  constructor() {
    this.writer = new ChunkWriter()
    this.lastMs = NaN
    /** the time's text and a tab */
    this.time = Buffer.alloc(0)
  }

  begin() {
    this.writer.reset()
  }

  /**
   * @param {number} timeMs
   * @param {number} tagsId
   * @param {Float64Array} values
   */
  row(timeMs, tagsId, values) {
    if (timeMs !== this.lastMs) {
      this.time = Buffer.from(`${new Date(timeMs).toISOString()}\t`, 'latin1')
      this.lastMs = timeMs
    }
    const time = this.time
    const writer = this.writer
    writer.ensure(time.length + 12 + values.length * DOUBLE_TEXT_BYTES)
    const buf = writer.buf
    let at = writer.at
    for (let i = 0; i < time.length; i++) buf[at++] = time[i]
    at = writeWhole(buf, at, tagsId)
    for (let f = 0; f < values.length; f++) {
      buf[at++] = TAB
      const value = values[f]
      if (value >= 0 && value < SMALL && Number.isInteger(value) && !Object.is(value, -0)) {
        const text = SMALL_TEXT[value]
        for (let i = 0; i < text.length; i++) buf[at++] = text[i]
      } else {
        at += buf.write(Object.is(value, -0) ? '-0' : String(value), at, 'latin1')
      }
    }
    buf[at++] = NEWLINE
    writer.at = at
  }

  /** @returns {Buffer[]} */
  end() {
    return this.writer.chunks()
  }

  discard() {
    this.writer.discard()
  }
}

/**
 * The decimal digits of a whole number.
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} n
 * @returns {number} where the digits end
 */
function writeWhole(buf, at, n) {
  if (n < 0) {
    buf[at++] = 45 // -
    n = -n
  }
  let digits = 1
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++
  for (let i = digits - 1; i >= 0; i--) {
    buf[at + i] = 48 + (n % 10)
    n = Math.floor(n / 10)
  }
  return at + digits
}
