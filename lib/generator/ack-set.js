// The set of ids whose inserts the server acknowledged, one bit per id in
// lazily allocated chunks, so it can be checked against the table at exit
// (ids from a sequence are dense: 10 million inserts take about 1.2 MiB).

const CHUNK_BITS = 1 << 20
const CHUNK_BYTES = CHUNK_BITS / 8

export class AckSet {
  constructor () {
    /** @type {Map<number, Uint8Array>} */
    this.chunks = new Map()
    this.size = 0
  }

  /** @param {number} id positive integer */
  add (id) {
    const chunkIndex = Math.floor(id / CHUNK_BITS)
    let chunk = this.chunks.get(chunkIndex)
    if (!chunk) {
      chunk = new Uint8Array(CHUNK_BYTES)
      this.chunks.set(chunkIndex, chunk)
    }
    const bit = id - chunkIndex * CHUNK_BITS
    const mask = 1 << (bit & 7)
    if ((chunk[bit >>> 3] & mask) === 0) {
      chunk[bit >>> 3] |= mask
      this.size++
    }
  }

  /**
   * Removes the ids in (from, to] and says how many were there.
   * @param {number} from  exclusive
   * @param {number} to    inclusive
   */
  clearRange (from, to) {
    let cleared = 0
    for (let id = from + 1; id <= to; id++) {
      const chunkIndex = Math.floor(id / CHUNK_BITS)
      const chunk = this.chunks.get(chunkIndex)
      if (!chunk) {
        id = (chunkIndex + 1) * CHUNK_BITS - 1 // skip the whole absent chunk
        continue
      }
      const bit = id - chunkIndex * CHUNK_BITS
      const mask = 1 << (bit & 7)
      if (chunk[bit >>> 3] & mask) {
        chunk[bit >>> 3] &= ~mask
        cleared++
      }
    }
    this.size -= cleared
    return cleared
  }

  /** @param {number} id */
  has (id) {
    const chunkIndex = Math.floor(id / CHUNK_BITS)
    const chunk = this.chunks.get(chunkIndex)
    if (!chunk) return false
    const bit = id - chunkIndex * CHUNK_BITS
    return (chunk[bit >>> 3] & (1 << (bit & 7))) !== 0
  }

  /**
   * The ids in ascending order, in arrays of at most batchSize.
   * @param {number} batchSize
   * @returns {Generator<number[]>}
   */
  * batches (batchSize) {
    let batch = []
    for (const chunkIndex of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const chunk = /** @type {Uint8Array} */ (this.chunks.get(chunkIndex))
      const base = chunkIndex * CHUNK_BITS
      for (let byte = 0; byte < CHUNK_BYTES; byte++) {
        const bits = chunk[byte]
        if (bits === 0) continue
        for (let b = 0; b < 8; b++) {
          if (bits & (1 << b)) {
            batch.push(base + byte * 8 + b)
            if (batch.length === batchSize) {
              yield batch
              batch = []
            }
          }
        }
      }
    }
    if (batch.length > 0) yield batch
  }
}
