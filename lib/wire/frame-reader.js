// Cuts the socket's byte stream into backend messages: a type byte, a length
// (counting itself) and the body. Each complete message is handed to the
// target with the bounds of its body in the chunk it arrived in, so that a
// chunk holding many messages is never copied. A chunk is only valid during
// push (the socket reads into one reused buffer), so the start of a message
// that is not complete yet is copied.

/**
 * @typedef {object} MessageTarget
 * @property {(type: number, buf: Buffer, start: number, end: number) => void} handle
 */

export class FrameReader {
  /** @param {MessageTarget} target */
  constructor(target) {
    this.target = target
    /** @type {Buffer[] | null} the start of a message not yet complete */
    this.partial = null
    this.partialLength = 0
    this.needed = 0 // bytes the partial message needs before it can be read
  }

  /**
   * @param {Buffer} chunk
   * @param {number} [length]  the bytes of chunk that were read: the
   *   socket reads into one buffer longer than a reply, which is passed
   *   with the count rather than cut to it (a new view a read)
   */
  push(chunk, length = chunk.length) {
    let buf = chunk
    let size = length
    if (this.partial !== null) {
      // A message spread over chunks is joined once, when it is all there.
      this.partial.push(Buffer.from(chunk.subarray(0, length)))
      this.partialLength += length
      if (this.partialLength < this.needed) return
      buf = Buffer.concat(this.partial, this.partialLength)
      size = buf.length
      this.partial = null
    }
    const target = this.target
    let offset = 0
    while (size - offset >= 5) {
      const end = offset + 1 + buf.readInt32BE(offset + 1)
      if (end > size) break
      target.handle(buf[offset], buf, offset + 5, end)
      offset = end
    }
    if (offset < size) {
      this.partial = [Buffer.from(buf.subarray(offset, size))]
      this.partialLength = size - offset
      this.needed = this.partialLength >= 5 ? 1 + buf.readInt32BE(offset + 1) : 5
    }
  }
}
