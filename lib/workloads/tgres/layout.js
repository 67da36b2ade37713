// The shape of Tgres's write-optimized ("vertical") layout for a given
// number of series: which segment and array index each series has, how big
// a `ts` row is, and the order in which one step's writes are handed out.
// Checked and computed once, before anything connects.

// Heap pages of 8 kB (PostgreSQL's default BLCKSZ).
const BLOCK_SIZE = 8192
// The largest tuple one heap page holds: BLCKSZ - MAXALIGN(page header 24 +
// one line pointer 4) (MaxHeapTupleSize in htup_details.h).
export const MAX_HEAP_TUPLE_BYTES = BLOCK_SIZE - 32
// Above this the toaster compresses or moves a row's values out of line:
// TOAST_TUPLE_TARGET, MAXALIGN_DOWN((BLCKSZ - MAXALIGN(24 + 4 × 4)) / 4).
export const TOAST_TUPLE_BYTES = 2032
// Tgres's bloat estimate counts this much per row on top of width × 8 bytes
// of values (receiver/flusher.go: "determined by way of experimentation").
// It is a quarter of a page less 1600 bytes: four rows of width 200 a page.
export const TGRES_ROW_OVERHEAD = 447
// A smallint[] of one repeated version, compressed by pglz: its stored size
// (measured; the same from width 1 to well beyond 807).
const COMPRESSED_VER_BYTES = 31

/**
 * The bytes of a `ts` row with its arrays uncompressed: tuple header 24
 * (no nulls: every column is NOT NULL), three int4 12, padding to the
 * 8-byte alignment of float8[] 4, then each array's 24-byte header
 * (ARR_OVERHEAD_NONULLS of one dimension) and its elements. Exact from
 * width 52 up; narrower arrays (under 127 bytes) are stored with a 1-byte
 * header and no padding, so the row is smaller.
 * @param {number} width
 */
export function tsRowBytes(width) {
  return 24 + 16 + (24 + 8 * width) + (24 + 2 * width)
}

/**
 * The widest segment whose rows stay in the heap, TOAST aside: the toaster
 * compresses ver (uniform versions shrink to ~31 bytes) and keeps the row
 * inline when what is left fits TOAST_TUPLE_TARGET; wider, dp goes out of
 * line into ts's TOAST table. 242 on 8 kB pages (checked on 15 and 18).
 */
export function widestInlineWidth() {
  return Math.floor((TOAST_TUPLE_BYTES - 24 - 16 - 24 - COMPRESSED_VER_BYTES) / 8)
}

/**
 * @typedef {object} TgresConfig
 * @property {number} series       series in all
 * @property {number} width        series per segment (rra_bundle.width)
 * @property {number} segments
 * @property {number} stepMs       each series' interval (rra_bundle.step_ms)
 * @property {number} slots        ring size (rra_bundle.size)
 * @property {number} fillfactor   of ts
 * @property {number} slice        series a write updates at once
 * @property {number} unitsPerStep writes that give every series its point for one step
 * @property {Int32Array} unitSeg  by unit within a step: its segment
 * @property {Int32Array} unitFrom by unit: the first array index it writes (1-based)
 * @property {Int32Array} unitTo   by unit: the last
 */

/**
 * Checks the options and lays the series out. Throws (one line) what
 * cannot work.
 * @param {{ series: number, segmentWidth: number, step: number, slots: number, fillfactor: number,
 *     slice: number }} options
 * @returns {TgresConfig}
 */
export function layout({ series, segmentWidth: width, step, slots, fillfactor, slice }) {
  if (!(series >= 1)) throw new Error(`--series: at least one series, got ${series}`)
  if (!(slots >= 1)) throw new Error(`--slots: at least one slot, got ${slots}`)
  const stepMs = step * 1000
  if (!Number.isInteger(stepMs) || stepMs < 1) {
    throw new Error(`--step: a whole number of milliseconds of 1 ms or more, got ${step} s`)
  }
  // rra_bundle.step_ms is an int
  if (stepMs > 2147483647) throw new Error(`--step: at most 2147483647 ms (about 24 days), got ${step} s`)
  const rowBytes = tsRowBytes(width)
  if (rowBytes > MAX_HEAP_TUPLE_BYTES) {
    const widest = Math.floor((MAX_HEAP_TUPLE_BYTES - tsRowBytes(0)) / 10)
    throw new Error(
      `--segment-width ${width}: a ts row would take ${rowBytes} bytes uncompressed, more than the ${MAX_HEAP_TUPLE_BYTES} bytes of the largest row an 8 kB page holds (at most ${widest})`
    )
  }
  if (slice > width) {
    throw new Error(`--slice ${slice}: more than the ${width} series of a segment (0: the whole segment)`)
  }
  const perWrite = slice === 0 ? width : slice
  const segments = Math.ceil(series / width)
  const segmentWidth = (/** @type {number} */ seg) => (seg < segments - 1 ? width : series - (segments - 1) * width)
  // Units of a step go round the segments: slice 0 of every segment, then
  // slice 1 of every segment, … Writes to one row are as far apart as the
  // segments allow, so that clients do not queue on one row's lock.
  const slicesOf = (/** @type {number} */ seg) => Math.ceil(segmentWidth(seg) / perWrite)
  let unitsPerStep = 0
  for (let seg = 0; seg < segments; seg++) unitsPerStep += slicesOf(seg)
  const unitSeg = new Int32Array(unitsPerStep)
  const unitFrom = new Int32Array(unitsPerStep)
  const unitTo = new Int32Array(unitsPerStep)
  let unit = 0
  for (let k = 0; unit < unitsPerStep; k++) {
    for (let seg = 0; seg < segments; seg++) {
      if (k >= slicesOf(seg)) continue
      unitSeg[unit] = seg
      unitFrom[unit] = k * perWrite + 1
      unitTo[unit] = Math.min((k + 1) * perWrite, segmentWidth(seg))
      unit++
    }
  }
  return {
    series,
    width,
    segments,
    stepMs,
    slots,
    fillfactor,
    slice: perWrite,
    unitsPerStep,
    unitSeg,
    unitFrom,
    unitTo
  }
}
