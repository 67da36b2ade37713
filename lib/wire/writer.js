// Builds frontend protocol messages into one growing buffer, so that a batch
// of messages leaves in a single socket write.
export class MessageWriter {
  constructor (size = 4096) {
    this.buffer = Buffer.allocUnsafe(size)
    this.length = 0
  }

  /** @param {number} needed */
  ensure (needed) {
    if (this.length + needed <= this.buffer.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + needed))
    this.buffer.copy(next, 0, 0, this.length)
    this.buffer = next
  }

  /** @param {number} code message type byte; returns the offset of the length field */
  begin (code) {
    this.ensure(5)
    this.buffer[this.length] = code
    const at = this.length + 1
    this.length += 5
    return at
  }

  /** @param {number} lengthAt */
  end (lengthAt) {
    this.buffer.writeInt32BE(this.length - lengthAt, lengthAt)
  }

  /** @param {number} n */
  int16 (n) {
    this.ensure(2)
    this.buffer.writeInt16BE(n, this.length)
    this.length += 2
  }

  /** @param {number} n */
  int32 (n) {
    this.ensure(4)
    this.buffer.writeInt32BE(n, this.length)
    this.length += 4
  }

  /** @param {string} s null-terminated */
  cstring (s) {
    const bytes = Buffer.byteLength(s)
    this.ensure(bytes + 1)
    this.buffer.write(s, this.length, 'utf8')
    this.length += bytes
    this.buffer[this.length++] = 0
  }

  /** @param {Buffer} b */
  bytes (b) {
    this.ensure(b.length)
    b.copy(this.buffer, this.length)
    this.length += b.length
  }

  /**
   * A length-prefixed text parameter (null: SQL NULL).
   * @param {string | number | null} value
   */
  param (value) {
    if (value === null) return this.int32(-1)
    const s = typeof value === 'string' ? value : String(value)
    const bytes = Buffer.byteLength(s)
    this.ensure(bytes + 4)
    this.buffer.writeInt32BE(bytes, this.length)
    this.buffer.write(s, this.length + 4, 'utf8')
    this.length += bytes + 4
  }

  /** Takes the bytes written so far as a new buffer and starts over. */
  take () {
    const out = Buffer.from(this.buffer.subarray(0, this.length))
    this.length = 0
    return out
  }
}
