// pgbench's permute(i, size, seed): the position of i (modulo size) in a
// pseudorandom permutation of [0, size) chosen by seed: six rounds of a
// random odd multiply, xor and rotate on the overlapping lower and upper
// power-of-two halves of the range, and a random offset, drawn from a
// pg_prng generator seeded with seed.
import { PgPrng } from './prng.js'

// Sizes up to 2^26 keep every product under 2^53: plain numbers suffice.
const SMALL_SIZE = 2 ** 26

const generator = new PgPrng()

/**
 * @param {bigint} value
 * @param {bigint} size  > 0
 * @param {bigint} seed
 * @returns {bigint}
 */
export function permute(value, size, seed) {
  if (size < 2n) return 0n
  generator.seed(seed)
  if (size <= SMALL_SIZE) {
    const v = Number(BigInt.asUintN(64, value) % size)
    return BigInt(permuteSmall(generator, v, Number(size)))
  }
  return permuteBig(generator, BigInt.asUintN(64, value) % size, size)
}

/**
 * @param {PgPrng} state
 * @param {number} v
 * @param {number} size  in [2, 2^26]
 */
function permuteSmall(state, v, size) {
  const maskLength = 31 - Math.clz32(size)
  const mask = 2 ** maskLength - 1
  const modulus = mask + 1
  const rotate = maskLength - 1
  for (let round = 0; round < 6; round++) {
    // Only the low bits of each draw matter: they are in the low half.
    state.step()
    let m = (state.lo & mask) | 1
    state.step()
    let r = state.lo & mask
    if (v <= mask) {
      v = (((v * m) % modulus) ^ r) & mask
      v = ((v << 1) & mask) | (v >>> rotate)
    }
    state.step()
    m = (state.lo & mask) | 1
    state.step()
    r = state.lo & mask
    let t = size - 1 - v
    if (t <= mask) {
      t = (((t * m) % modulus) ^ r) & mask
      t = ((t << 1) & mask) | (t >>> rotate)
      v = size - 1 - t
    }
    r = state.offset(size - 1)
    v = (v + r) % size
  }
  return v
}

/**
 * @param {PgPrng} state
 * @param {bigint} v
 * @param {bigint} size  > 2^26
 */
function permuteBig(state, v, size) {
  const maskLength = BigInt(size.toString(2).length - 1)
  const mask = (1n << maskLength) - 1n
  const rotate = maskLength - 1n
  for (let round = 0; round < 6; round++) {
    let m = (state.uint64() & mask) | 1n
    let r = state.uint64() & mask
    if (v <= mask) {
      v = ((v * m) ^ r) & mask
      v = ((v << 1n) & mask) | (v >> rotate)
    }
    m = (state.uint64() & mask) | 1n
    r = state.uint64() & mask
    let t = size - 1n - v
    if (t <= mask) {
      t = ((t * m) ^ r) & mask
      t = ((t << 1n) & mask) | (t >> rotate)
      v = size - 1n - t
    }
    r = state.offsetBig(size - 1n)
    v = (v + r) % size
  }
  return v
}
