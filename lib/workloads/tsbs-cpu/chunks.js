// Bytes of COPY data written straight into Buffers of a fixed size, handed
// to db.copyFrom as chunks. The Buffers of one batch are used again for
// the next once the server has acknowledged the batch; after a failure
// they are let go, since a write of the failed COPY may still hold them.
// Numbers go in through a DataView of each Buffer: V8 compiles its
// accessors to plain stores, many times faster than Buffer's write methods.

export const CHUNK_BYTES = 64 * 1024
const EMPTY = Buffer.alloc(0)

export class ChunkWriter {
  /** @param {number} [chunkBytes] */
  constructor(chunkBytes = CHUNK_BYTES) {
    this.chunkBytes = chunkBytes
    /** @type {Buffer} the chunk being written */
    this.buf = EMPTY
    /** @type {DataView} over buf */
    this.view = new DataView(EMPTY.buffer, EMPTY.byteOffset, 0)
    this.at = 0
    /** @type {Buffer[]} the Buffers of the batch being written */
    this.used = []
    /** @type {Buffer[]} written full, as views */
    this.out = []
    /** @type {Buffer[]} free for the next batch */
    this.spare = []
    /** @type {WeakMap<Buffer, DataView>} */
    this.views = new WeakMap()
  }

  /** Starts a batch, reusing the Buffers of the last one. */
  reset() {
    for (const buffer of this.used) this.spare.push(buffer)
    this.used = []
    this.out = []
    this.buf = EMPTY
    this.at = 0
  }

  /**
   * Makes room for n bytes at this.at.
   * @param {number} n
   */
  ensure(n) {
    if (this.at + n <= this.buf.length) return
    if (this.at > 0) this.out.push(this.buf.subarray(0, this.at))
    let next = this.spare.pop()
    if (next === undefined || next.length < n) next = Buffer.allocUnsafe(Math.max(this.chunkBytes, n))
    let view = this.views.get(next)
    if (view === undefined) {
      view = new DataView(next.buffer, next.byteOffset, next.length)
      this.views.set(next, view)
    }
    this.used.push(next)
    this.buf = next
    this.view = view
    this.at = 0
  }

  /** The batch's chunks. */
  chunks() {
    if (this.at > 0) {
      this.out.push(this.buf.subarray(0, this.at))
      this.buf = EMPTY
      this.at = 0
    }
    return this.out
  }

  /** The batch failed: its Buffers are not used again. */
  discard() {
    this.used = []
    this.out = []
    this.buf = EMPTY
    this.at = 0
  }
}
