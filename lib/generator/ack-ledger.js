// The inserts the server acknowledged, so that the check at exit can tell
// for each one whether its row is still the row that was written. One
// 16-bit cell per id, in lazily allocated chunks (ids from a sequence are
// dense: 10 million inserts take about 21 MiB): 0 means never acknowledged,
// anything else is the row's fingerprint folded into 1…65535.
//
// The fingerprint is what tells an acknowledged row from a later row that
// took its id after the sequence went back (a crash that lost commits, a
// snapshot rollback): the id alone would call the later row present.
//
// Beside the cells, one bit per id says that the id's acknowledgement came
// from an earlier incarnation of the server than the current one (it
// restarted since: a crash, a rollback), so that a row missing at exit
// can be put down to the data going back.

const CHUNK_IDS = 1 << 16
// the values a cell can hold besides 0
export const FINGERPRINTS = 65535

/** @typedef {{ cells: Uint16Array, earlier: Uint8Array }} Chunk */

/**
 * A fingerprint (any integer the workload's fingerprint expression gives)
 * folded into a non-zero cell value, the same way here and at the check.
 * @param {number} fingerprint
 */
export function foldFingerprint(fingerprint) {
  return 1 + (((fingerprint % FINGERPRINTS) + FINGERPRINTS) % FINGERPRINTS)
}

export class AckLedger {
  constructor() {
    /** @type {Map<number, Chunk>} */
    this.chunks = new Map()
    // the server incarnation acknowledgements are expected from (0, 1, …)
    this.incarnation = 0
    // ids with an acknowledged insert whose row is expected in the table
    this.size = 0
    // every acknowledgement, including those a later one with the same id replaced
    this.acknowledged = 0
    // acknowledged inserts whose id was acknowledged again: the first row had
    // gone when the second committed (the unique index allows no other way)
    this.replaced = 0
  }

  /**
   * @param {number} id           positive integer
   * @param {number} fingerprint  the written row's fingerprint (0 when the workload has none)
   * @param {number} [incarnation]  of the server that acknowledged it (default: the current one)
   */
  add(id, fingerprint, incarnation = this.incarnation) {
    const chunkIndex = Math.floor(id / CHUNK_IDS)
    let chunk = this.chunks.get(chunkIndex)
    if (!chunk) {
      chunk = { cells: new Uint16Array(CHUNK_IDS), earlier: new Uint8Array(CHUNK_IDS / 8) }
      this.chunks.set(chunkIndex, chunk)
    }
    const slot = id - chunkIndex * CHUNK_IDS
    if (chunk.cells[slot] === 0) this.size++
    else this.replaced++
    chunk.cells[slot] = foldFingerprint(fingerprint)
    // a reply read late from a connection to a server that has gone since
    if (incarnation < this.incarnation) chunk.earlier[slot >>> 3] |= 1 << (slot & 7)
    else chunk.earlier[slot >>> 3] &= ~(1 << (slot & 7))
    this.acknowledged++
  }

  /**
   * The server restarted (a crash, a rollback): every acknowledgement so
   * far came from an earlier incarnation.
   */
  nextIncarnation() {
    this.incarnation++
    for (const { cells, earlier } of this.chunks.values()) {
      for (let slot = 0; slot < CHUNK_IDS; slot++) {
        if (cells[slot] !== 0) earlier[slot >>> 3] |= 1 << (slot & 7)
      }
    }
  }

  /**
   * The folded fingerprint expected under an id, 0 if none.
   * @param {number} id
   */
  get(id) {
    const chunkIndex = Math.floor(id / CHUNK_IDS)
    const chunk = this.chunks.get(chunkIndex)
    return chunk ? chunk.cells[id - chunkIndex * CHUNK_IDS] : 0
  }

  /**
   * Whether the id's acknowledgement came from an incarnation of the server
   * before the current one.
   * @param {number} id
   */
  fromEarlierIncarnation(id) {
    const chunkIndex = Math.floor(id / CHUNK_IDS)
    const chunk = this.chunks.get(chunkIndex)
    if (!chunk) return false
    const slot = id - chunkIndex * CHUNK_IDS
    return (chunk.earlier[slot >>> 3] & (1 << (slot & 7))) !== 0
  }

  /** @param {number} id */
  has(id) {
    return this.get(id) !== 0
  }

  /**
   * The cells in ascending order of id, sliceSize at a time (a divisor of
   * 65536), as views of the ledger's own memory: { firstId, cells }, where
   * cells[i] is the cell of firstId + i (0: not acknowledged).
   * @param {number} sliceSize
   * @returns {Generator<{ firstId: number, cells: Uint16Array }>}
   */
  *slices(sliceSize) {
    for (const chunkIndex of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const { cells } = /** @type {Chunk} */ (this.chunks.get(chunkIndex))
      for (let start = 0; start < CHUNK_IDS; start += sliceSize) {
        yield { firstId: chunkIndex * CHUNK_IDS + start, cells: cells.subarray(start, start + sliceSize) }
      }
    }
  }

  /**
   * The acknowledged ids in ascending order, in arrays of at most batchSize.
   * @param {number} batchSize
   * @returns {Generator<number[]>}
   */
  *batches(batchSize) {
    let batch = []
    for (const chunkIndex of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const { cells } = /** @type {Chunk} */ (this.chunks.get(chunkIndex))
      const base = chunkIndex * CHUNK_IDS
      for (let slot = 0; slot < CHUNK_IDS; slot++) {
        if (cells[slot] === 0) continue
        batch.push(base + slot)
        if (batch.length === batchSize) {
          yield batch
          batch = []
        }
      }
    }
    if (batch.length > 0) yield batch
  }
}
