// Random version-4 UUID strings for the rows of the dense-table workloads,
// several at a time. They must be random, not secret: what matters is where
// they land in the indexes, and Math.random (xorshift128+), or a client's
// seeded generator (client-random.js), spreads them as well as a
// cryptographic source does. crypto.randomUUID costs more, in its
// generator's bytes and in the 20 joined pieces of each string, which the
// wire writer must then flatten; here the hex digits of a whole row are
// written into one buffer and read out as one string, whose slices are
// the UUIDs.

const HEX_DIGITS = Buffer.from('0123456789abcdef')
const UUID_LENGTH = 36
const STRIDE = UUID_LENGTH + 1 // one separator between a row's UUIDs, never read
const DASH = 0x2d

let scratch = Buffer.alloc(STRIDE * 8)

/**
 * Appends count random v4 UUIDs (lower-case, hyphenated) to row.
 * @template {Array<string | number>} Row
 * @param {Row} row
 * @param {number} count
 * @param {() => number} [random]  uniform in [0, 1): the client's (ctx.random)
 * @returns {Row} row
 */
export function pushRandomUuids(row, count, random = Math.random) {
  if (scratch.length < STRIDE * count) scratch = Buffer.alloc(STRIDE * count)
  for (let u = 0; u < count; u++) writeUuid(scratch, u * STRIDE, random)
  const text = scratch.toString('latin1', 0, STRIDE * count)
  for (let u = 0; u < count; u++) row.push(text.slice(u * STRIDE, u * STRIDE + UUID_LENGTH))
  return row
}

/**
 * One UUID's 36 characters at offset: 128 random bits in four words, with
 * the version (4) and variant (10) bits set as RFC 9562 says.
 * @param {Buffer} out
 * @param {number} offset
 * @param {() => number} random
 */
function writeUuid(out, offset, random) {
  let at = offset
  for (let word = 0; word < 4; word++) {
    let bits = (random() * 4294967296) >>> 0
    if (word === 1) bits = ((bits & 0xffff0fff) | 0x00004000) >>> 0
    else if (word === 2) bits = ((bits & 0x3fffffff) | 0x80000000) >>> 0
    for (let shift = 28; shift >= 0; shift -= 4) {
      out[at++] = HEX_DIGITS[(bits >>> shift) & 15]
      const written = at - offset
      if (written === 8 || written === 13 || written === 18 || written === 23) out[at++] = DASH
    }
  }
}
