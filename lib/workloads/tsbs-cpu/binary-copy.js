import { ChunkWriter } from './chunks.js'

// PostgreSQL's binary COPY format (COPY … FROM STDIN WITH (FORMAT binary),
// "Binary Format" in the COPY documentation): a header of the 11-byte
// signature, 32-bit flags and a 32-bit header-extension length; then each
// tuple as a 16-bit field count and each field as a 32-bit length (-1 for
// NULL) and that many bytes of the type's binary form; then a 16-bit -1.
// All integers in network order. timestamptz is a 64-bit count of
// microseconds since 2000-01-01 00:00:00 UTC, float8 the IEEE 754 double.

export const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
const HEADER_BYTES = SIGNATURE.length + 8
// 2000-01-01T00:00:00Z in Unix milliseconds
export const POSTGRES_EPOCH_MS = 946684800000
const TWO_TO_32 = 2 ** 32

export class BinaryCopyWriter extends ChunkWriter {
  /** Starts a batch: its header. */
  begin() {
    this.reset()
    this.ensure(HEADER_BYTES)
    SIGNATURE.copy(this.buf, this.at)
    this.view.setInt32(this.at + SIGNATURE.length, 0) // flags: no OIDs
    this.view.setInt32(this.at + SIGNATURE.length + 4, 0) // no header extension
    this.at += HEADER_BYTES
  }

  /** @param {number} fields  the tuple's field count */
  tuple(fields) {
    this.ensure(2)
    this.view.setInt16(this.at, fields)
    this.at += 2
  }

  null() {
    this.ensure(4)
    this.view.setInt32(this.at, -1)
    this.at += 4
  }

  /** @param {number} value  a 32-bit integer (int4) */
  int4(value) {
    this.ensure(8)
    this.view.setInt32(this.at, 4)
    this.view.setInt32(this.at + 4, value)
    this.at += 8
  }

  /** @param {number} value  a whole number within ±2^53 (int8) */
  int8(value) {
    this.ensure(12)
    this.view.setInt32(this.at, 8)
    writeInt64(this.view, value, this.at + 4)
    this.at += 12
  }

  /** @param {number} value  (float8) */
  float8(value) {
    this.ensure(12)
    this.view.setInt32(this.at, 8)
    this.view.setFloat64(this.at + 4, value)
    this.at += 12
  }

  /** @param {number} micros  microseconds since 2000-01-01 UTC (timestamptz) */
  timestamptzMicros(micros) {
    this.int8(micros)
  }

  /** @param {number} ms  Unix milliseconds (timestamptz) */
  timestamptz(ms) {
    this.int8((ms - POSTGRES_EPOCH_MS) * 1000)
  }

  /** @param {string} value  (text, varchar: UTF-8 bytes) */
  text(value) {
    const n = Buffer.byteLength(value)
    this.ensure(4 + n)
    this.view.setInt32(this.at, n)
    this.buf.write(value, this.at + 4, n, 'utf8')
    this.at += 4 + n
  }

  /** The trailer, and the batch's chunks. */
  end() {
    this.ensure(2)
    this.view.setInt16(this.at, -1)
    this.at += 2
    return this.chunks()
  }
}

/**
 * A whole number as a big-endian 64-bit two's complement integer, without
 * BigInt: the high word is the floor of value / 2^32, the low word the rest.
 * @param {DataView} view
 * @param {number} value
 * @param {number} at
 */
export function writeInt64(view, value, at) {
  const high = Math.floor(value / TWO_TO_32)
  view.setInt32(at, high)
  view.setUint32(at + 4, value - high * TWO_TO_32)
}
