// pgbench's hash functions on 64-bit integers: FNV-1a over the value's
// eight bytes (least significant first) and the 64-bit MurmurHash2 of one
// 8-byte block. Both take an int64 value and a seed used as unsigned, and
// return an int64.

const FNV_OFFSET_BASIS = 0xcbf29ce484222325n
const MM2_MUL = 0xc6a4a7935bd1e995n
const MM2_MUL_TIMES_8 = 0x35253c9ade8f4ca8n
const MM2_ROT = 47n
const MASK = (1n << 64n) - 1n
const TWO_32 = 2 ** 32

/**
 * hash_fnv1a(value, seed). The product by the FNV prime 2^40 + 0x1b3 is
 * done on 32-bit halves, which avoids eight BigInt products.
 * @param {bigint} value
 * @param {bigint} seed
 * @returns {bigint}
 */
export function hashFnv1a(value, seed) {
  const start = FNV_OFFSET_BASIS ^ BigInt.asUintN(64, seed)
  let hi = Number(start >> 32n)
  let lo = Number(start & 0xffffffffn)
  const bits = BigInt.asUintN(64, value)
  const valueHi = Number(bits >> 32n)
  const valueLo = Number(bits & 0xffffffffn)
  for (let i = 0; i < 8; i++) {
    const octet = i < 4 ? (valueLo >>> (8 * i)) & 0xff : (valueHi >>> (8 * (i - 4))) & 0xff
    lo = (lo ^ octet) >>> 0
    // (hi, lo) * 0x1b3 + ((hi, lo) << 40)
    const low = lo * 0x1b3
    const carry = Math.floor(low / TWO_32)
    hi = (hi * 0x1b3 + carry + (lo << 8)) >>> 0
    lo = low >>> 0
  }
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo))
}

/**
 * hash_murmur2(value, seed), and hash(value, seed).
 * @param {bigint} value
 * @param {bigint} seed
 * @returns {bigint}
 */
export function hashMurmur2(value, seed) {
  let result = BigInt.asUintN(64, seed) ^ MM2_MUL_TIMES_8
  let k = BigInt.asUintN(64, value)
  k = (k * MM2_MUL) & MASK
  k ^= k >> MM2_ROT
  k = (k * MM2_MUL) & MASK
  result ^= k
  result = (result * MM2_MUL) & MASK
  result ^= result >> MM2_ROT
  result = (result * MM2_MUL) & MASK
  result ^= result >> MM2_ROT
  return BigInt.asIntN(64, result)
}
