// Builds frontend protocol messages into one growing buffer, so that a batch
// of messages leaves in a single socket write.

// Short ASCII strings (statement names, numbers) are copied byte by byte:
// that is cheaper than the native encoder's call for a few bytes.
const SHORT = 48

export class MessageWriter {
  constructor(size = 4096) {
    this.buffer = Buffer.allocUnsafe(size)
    this.length = 0
  }

  /** @param {number} needed */
  ensure(needed) {
    if (this.length + needed <= this.buffer.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + needed))
    this.buffer.copy(next, 0, 0, this.length)
    this.buffer = next
  }

  /** @param {number} code message type byte; returns the offset of the length field */
  begin(code) {
    this.ensure(5)
    this.buffer[this.length] = code
    const at = this.length + 1
    this.length += 5
    return at
  }

  /** @param {number} lengthAt */
  end(lengthAt) {
    this.buffer.writeInt32BE(this.length - lengthAt, lengthAt)
  }

  /** @param {number} n */
  byte(n) {
    this.ensure(1)
    this.buffer[this.length++] = n
  }

  /** @param {number} n */
  int16(n) {
    this.ensure(2)
    this.buffer.writeInt16BE(n, this.length)
    this.length += 2
  }

  /** @param {number} n  0 to 65535: counts the protocol reads unsigned (Bind's parameters) */
  uint16(n) {
    this.ensure(2)
    this.buffer.writeUInt16BE(n, this.length)
    this.length += 2
  }

  /** @param {number} n */
  int32(n) {
    this.ensure(4)
    this.buffer.writeInt32BE(n, this.length)
    this.length += 4
  }

  /** @param {string} s null-terminated */
  cstring(s) {
    if (s.length > SHORT || !this.ascii(s, 1)) this.utf8(s, Buffer.byteLength(s), 1)
    this.buffer[this.length++] = 0
  }

  /**
   * Writes s if it is all ASCII, keeping `spare` more bytes free after it.
   * @param {string} s
   * @param {number} spare
   * @returns {boolean} false: nothing written, s has other characters
   */
  ascii(s, spare) {
    const n = s.length
    this.ensure(n + spare)
    const buffer = this.buffer
    const at = this.length
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i)
      if (c > 0x7f) return false
      buffer[at + i] = c
    }
    this.length = at + n
    return true
  }

  /**
   * @param {string} s
   * @param {number} byteLength  Buffer.byteLength(s)
   * @param {number} [spare]  bytes to keep free after it
   */
  utf8(s, byteLength, spare = 0) {
    this.ensure(byteLength + spare)
    this.buffer.write(s, this.length, 'utf8')
    this.length += byteLength
  }

  /** @param {Uint8Array} b */
  bytes(b) {
    const n = b.length
    this.ensure(n)
    if (n > SHORT) {
      this.buffer.set(b, this.length)
    } else {
      const buffer = this.buffer
      for (let i = 0, at = this.length; i < n; i++) buffer[at + i] = b[i]
    }
    this.length += n
  }

  /**
   * A length-prefixed text parameter (null: SQL NULL).
   * @param {string | number | bigint | boolean | null} value
   */
  param(value) {
    if (value === null) return this.int32(-1)
    if (typeof value === 'number' && Number.isSafeInteger(value)) return this.integerParam(value)
    const s = typeof value === 'string' ? value : String(value)
    const lengthAt = this.length
    this.ensure(4)
    this.length += 4
    if (s.length > SHORT || !this.ascii(s, 0)) this.utf8(s, Buffer.byteLength(s))
    this.buffer.writeInt32BE(this.length - lengthAt - 4, lengthAt)
  }

  /**
   * A length-prefixed integer parameter, its decimal digits written
   * straight into the buffer: the same bytes as String(n), without the
   * string, which V8 would keep in its number-to-string cache long enough
   * to move it to the old generation (ids are the hot path's parameters).
   * @param {number} n  a safe integer
   */
  integerParam(n) {
    this.ensure(4 + 17) // a sign and at most 16 digits
    const buffer = this.buffer
    let at = this.length + 4
    let rest = n
    if (rest < 0) {
      buffer[at++] = 0x2d // '-'
      rest = -rest
    }
    let digits = 1
    for (let power = 10; power <= rest; power *= 10) digits++
    for (let i = at + digits - 1; i >= at; i--) {
      buffer[i] = 0x30 + (rest % 10)
      rest = Math.floor(rest / 10)
    }
    at += digits
    buffer.writeInt32BE(at - this.length - 4, this.length)
    this.length = at
  }

  /** The bytes written so far, as a view of the writer's buffer: reuse() or release() must follow. */
  written() {
    return this.buffer.subarray(0, this.length)
  }

  /** What written() showed has been consumed: the buffer is written over. */
  reuse() {
    this.length = 0
  }

  /** What written() showed is still referenced: the writer moves on to a buffer of its own. */
  release() {
    this.buffer = Buffer.allocUnsafe(this.buffer.length)
    this.length = 0
  }

  /** Takes the bytes written so far as a new buffer and starts over. */
  take() {
    const out = Buffer.from(this.buffer.subarray(0, this.length))
    this.length = 0
    return out
  }
}
