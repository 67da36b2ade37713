// What the ZFS tools print, read: `zdb -mm`'s metaslabs (free space, free
// segments, the largest free segment), zfs's rounded sizes, and
// `zpool get`'s pool figures, in either of its two forms. No tool is run
// here (lib/snapshot/zfs-tools.js runs them for zfs-space.js).

/**
 * One metaslab as `zdb -mm` prints it.
 * @typedef {object} Metaslab
 * @property {number} vdev
 * @property {number} id
 * @property {number} offset          bytes from the start of its vdev
 * @property {number} freeBytes       to zdb's rounding (three significant digits)
 * @property {number | null} segments      free segments (null: zdb printed no count)
 * @property {number | null} maxSegmentBytes  the largest free segment
 * @property {number | null} freePct  zdb's freepct (whole percent)
 */

/**
 * What one sample says of the metaslabs.
 * @typedef {object} MetaslabFigures
 * @property {number} metaslabs
 * @property {number | null} metaslabBytes          the size of one metaslab (null: not known)
 * @property {number} freeBytes                     the metaslabs' free space added up
 * @property {number | null} freeSegments
 * @property {number | null} largestFreeSegmentBytes
 * @property {number | null} medianFreeShare        the median of each metaslab's free / size
 */

/**
 * A size as zfs's nicenum prints it (1024-based, rounded to about three
 * significant digits): 0, 512, 80.0K, 3.85M, 4M, 1.50G.
 * @param {string} text
 * @returns {number | null}
 */
export function parseZfsSize(text) {
  const match = /^(\d+(?:\.\d+)?)([KMGTPE])?$/.exec(text.trim())
  if (!match) return null
  const power = match[2] ? ' KMGTPE'.indexOf(match[2]) : 0
  return Math.round(Number(match[1]) * 1024 ** power)
}

/**
 * The metaslabs in the output of `zdb -mm <pool>`: for each vdev, a line per
 * metaslab (offset in hex, space map object, free space) followed by one of
 * free segments, the largest segment and the free share.
 * @param {string} text
 * @returns {Metaslab[]}
 */
export function parseZdbMetaslabs(text) {
  /** @type {Metaslab[]} */
  const metaslabs = []
  let vdev = 0
  /** @type {Metaslab | null} */
  let last = null
  for (const line of text.split('\n')) {
    const vdevLine = /^\s*vdev\s+(\d+)\s*$/.exec(line)
    if (vdevLine) {
      vdev = Number(vdevLine[1])
      last = null
      continue
    }
    const metaslab = /^\s*metaslab\s+(\d+)\s+offset\s+([0-9a-fA-F]+)\s+spacemap\s+(\d+)\s+free\s+(\S+)/.exec(line)
    if (metaslab) {
      const freeBytes = parseZfsSize(metaslab[4])
      if (freeBytes === null) {
        throw new Error(`zdb: cannot read the free space of metaslab ${metaslab[1]}: ${JSON.stringify(metaslab[4])}`)
      }
      last = {
        vdev,
        id: Number(metaslab[1]),
        offset: parseInt(metaslab[2], 16),
        freeBytes,
        segments: null,
        maxSegmentBytes: null,
        freePct: null
      }
      metaslabs.push(last)
      continue
    }
    const segments = /^\s*segments\s+(\d+)\s+maxsize\s+(\S+)\s+freepct\s+(\d+)%/.exec(line)
    if (segments && last) {
      last.segments = Number(segments[1])
      last.maxSegmentBytes = parseZfsSize(segments[2])
      last.freePct = Number(segments[3])
      last = null
    }
  }
  return metaslabs
}

/**
 * The sizes of a vdev's metaslabs: all the same, metaslab k starting at
 * k × size; from the first with k > 0.
 * @param {Metaslab[]} metaslabs
 * @returns {Map<number, number>} vdev → bytes
 */
function metaslabSizes(metaslabs) {
  /** @type {Map<number, number>} */
  const sizes = new Map()
  for (const m of metaslabs) if (m.id > 0 && !sizes.has(m.vdev)) sizes.set(m.vdev, m.offset / m.id)
  return sizes
}

/**
 * @param {number[]} values
 * @returns {number | null}
 */
function median(values) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * The pool's figures from its metaslabs.
 * @param {Metaslab[]} metaslabs
 * @returns {MetaslabFigures}
 */
export function summariseMetaslabs(metaslabs) {
  const sizes = metaslabSizes(metaslabs)
  const withSegments = metaslabs.filter(m => m.segments !== null)
  const counted = withSegments.length === metaslabs.length && metaslabs.length > 0
  const shares = metaslabs
    .map(m => {
      const size = sizes.get(m.vdev)
      if (size) return Math.min(1, m.freeBytes / size)
      return m.freePct === null ? null : m.freePct / 100
    })
    .filter(share => share !== null)
  const distinct = new Set(sizes.values())
  return {
    metaslabs: metaslabs.length,
    metaslabBytes: distinct.size === 1 ? [...distinct][0] : null,
    freeBytes: metaslabs.reduce((sum, m) => sum + m.freeBytes, 0),
    freeSegments: counted ? withSegments.reduce((sum, m) => sum + /** @type {number} */ (m.segments), 0) : null,
    largestFreeSegmentBytes: counted ? Math.max(...withSegments.map(m => m.maxSegmentBytes ?? 0)) : null,
    medianFreeShare: shares.length === metaslabs.length ? median(/** @type {number[]} */ (shares)) : null
  }
}

/**
 * The output of `zpool get -Hp size,free,allocated,fragmentation POOL`
 * (tab-separated, exact) or of `zpool get size,free,allocated POOL` (a
 * table, rounded sizes).
 * @param {string} text
 * @param {boolean} parsable
 * @returns {{ size: number | null, free: number | null, allocated: number | null, fragmentationPct: number | null }}
 */
export function parseZpoolGet(text, parsable) {
  /** @type {Record<string, string>} */
  const values = {}
  for (const line of text.split('\n')) {
    const fields = parsable ? line.split('\t') : line.trim().split(/\s+/)
    if (fields.length >= 3 && fields[1] !== 'PROPERTY') values[fields[1]] = fields[2]
  }
  /** @param {string | undefined} value */
  const bytes = value =>
    value === undefined ? null : parsable ? (/^\d+$/.test(value) ? Number(value) : null) : parseZfsSize(value)
  const fragmentation = /^(\d+(?:\.\d+)?)%?$/.exec(values.fragmentation ?? '')
  return {
    size: bytes(values.size),
    free: bytes(values.free),
    allocated: bytes(values.allocated),
    fragmentationPct: fragmentation ? Number(fragmentation[1]) : null
  }
}
