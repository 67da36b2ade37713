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
//
// A run of days acknowledges billions of inserts: at 2 bytes and a bit each
// the ledger would outgrow the process. So only the few chunks of the
// newest ids stay in memory (RESIDENT_CHUNKS); an older chunk goes to a
// file of its own, read back when an id of it is asked for (a late
// acknowledgement, the check at exit, which reads in ascending order). The
// file is unlinked as soon as it is open, so that it is gone with the
// process however the process ends, and its disk space with it.

import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const CHUNK_IDS = 1 << 16
const CELL_BYTES = CHUNK_IDS * 2
const EARLIER_BYTES = CHUNK_IDS / 8
const CHUNK_BYTES = CELL_BYTES + EARLIER_BYTES
// the values a cell can hold besides 0
export const FINGERPRINTS = 65535
// chunks kept in memory: 8 × 139 KiB, the newest 524 288 ids
export const RESIDENT_CHUNKS = 8

/** @typedef {{ bytes: Uint8Array, cells: Uint16Array, earlier: Uint8Array }} Chunk */

/**
 * A fingerprint (any integer the workload's fingerprint expression gives)
 * folded into a non-zero cell value, the same way here and at the check.
 * @param {number} fingerprint
 */
export function foldFingerprint(fingerprint) {
  return 1 + (((fingerprint % FINGERPRINTS) + FINGERPRINTS) % FINGERPRINTS)
}

/** @returns {Chunk} */
function newChunk() {
  const buffer = new ArrayBuffer(CHUNK_BYTES)
  return {
    bytes: new Uint8Array(buffer),
    cells: new Uint16Array(buffer, 0, CHUNK_IDS),
    earlier: new Uint8Array(buffer, CELL_BYTES, EARLIER_BYTES)
  }
}

/** Closes a spill file whose ledger is gone. */
const closeWhenCollected = new FinalizationRegistry((/** @type {number} */ fd) => {
  try {
    closeSync(fd)
  } catch {
    // closed already
  }
})

/**
 * The chunks that left memory, one record of CHUNK_BYTES each, in the
 * order they first left it.
 */
class SpillFile {
  constructor() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pgloadgen-ledger-'))
    const file = path.join(dir, 'chunks')
    this.fd = openSync(file, 'w+', 0o600)
    unlinkSync(file)
    rmdirSync(dir)
    /** @type {Map<number, number>} chunk index → record */
    this.records = new Map()
  }

  /** @param {number} chunkIndex @param {Chunk} chunk */
  write(chunkIndex, chunk) {
    let record = this.records.get(chunkIndex)
    if (record === undefined) {
      record = this.records.size
      this.records.set(chunkIndex, record)
    }
    writeSync(this.fd, chunk.bytes, 0, CHUNK_BYTES, record * CHUNK_BYTES)
  }

  /** @param {number} chunkIndex @param {Chunk} chunk @returns {boolean} whether it was there */
  read(chunkIndex, chunk) {
    const record = this.records.get(chunkIndex)
    if (record === undefined) return false
    readSync(this.fd, chunk.bytes, 0, CHUNK_BYTES, record * CHUNK_BYTES)
    return true
  }
}

export class AckLedger {
  /** @param {{ residentChunks?: number }} [options] */
  constructor({ residentChunks = RESIDENT_CHUNKS } = {}) {
    this.residentChunks = residentChunks
    /** @type {Map<number, Chunk>} the chunks in memory */
    this.chunks = new Map()
    /** @type {SpillFile | null} opened when a chunk first leaves memory */
    this.spill = null
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
    const chunk = this.chunks.get(chunkIndex) ?? /** @type {Chunk} */ (this.chunk(chunkIndex, true))
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
   * The chunk of an index, read back from the spill file if it left
   * memory, or a new one if create; null if it has no acknowledgement. The
   * lowest other chunk in memory leaves it when there are too many.
   * @param {number} chunkIndex
   * @param {boolean} create
   * @returns {Chunk | null}
   */
  chunk(chunkIndex, create) {
    const resident = this.chunks.get(chunkIndex)
    if (resident) return resident
    const chunk = newChunk()
    if (!this.spill?.read(chunkIndex, chunk) && !create) return null
    this.chunks.set(chunkIndex, chunk)
    if (this.chunks.size > this.residentChunks) this.evictLowest(chunkIndex)
    return chunk
  }

  /** @param {number} keep  the chunk just asked for */
  evictLowest(keep) {
    let lowest = Infinity
    for (const index of this.chunks.keys()) if (index !== keep && index < lowest) lowest = index
    this.spill ??= this.openSpill()
    this.spill.write(lowest, /** @type {Chunk} */ (this.chunks.get(lowest)))
    this.chunks.delete(lowest)
  }

  openSpill() {
    const spill = new SpillFile()
    closeWhenCollected.register(this, spill.fd)
    return spill
  }

  /** Every chunk index with an acknowledgement, in memory or not, ascending. */
  chunkIndexes() {
    const all = new Set([...this.chunks.keys(), ...(this.spill?.records.keys() ?? [])])
    return [...all].sort((a, b) => a - b)
  }

  /**
   * The server restarted (a crash, a rollback): every acknowledgement so
   * far came from an earlier incarnation.
   */
  nextIncarnation() {
    this.incarnation++
    for (const chunkIndex of this.chunkIndexes()) {
      const { cells, earlier } = /** @type {Chunk} */ (this.chunk(chunkIndex, false))
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
    const chunk = this.chunk(chunkIndex, false)
    return chunk ? chunk.cells[id - chunkIndex * CHUNK_IDS] : 0
  }

  /**
   * Whether the id's acknowledgement came from an incarnation of the server
   * before the current one.
   * @param {number} id
   */
  fromEarlierIncarnation(id) {
    const chunkIndex = Math.floor(id / CHUNK_IDS)
    const chunk = this.chunk(chunkIndex, false)
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
   * cells[i] is the cell of firstId + i (0: not acknowledged). A view is
   * read before the next is asked for: its chunk may leave memory then.
   * @param {number} sliceSize
   * @returns {Generator<{ firstId: number, cells: Uint16Array }>}
   */
  *slices(sliceSize) {
    for (const chunkIndex of this.chunkIndexes()) {
      const { cells } = /** @type {Chunk} */ (this.chunk(chunkIndex, false))
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
    for (const chunkIndex of this.chunkIndexes()) {
      const { cells } = /** @type {Chunk} */ (this.chunk(chunkIndex, false))
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
