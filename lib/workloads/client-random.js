// Each client's random numbers: Math.random when the run has no seed (as
// before --seed existed), else a generator of the client's own, seeded from
// the run's seed and the client's number in the whole load, so that client
// k of a run with --seed N draws the same numbers on every server, in every
// thread and in every instance. The generator is sfc32 (128 bits of state,
// 32-bit arithmetic) in a closure: a draw allocates nothing and costs about
// what Math.random does.

const TWO_TO_MINUS_32 = 2 ** -32

/**
 * A function giving uniform numbers in [0, 1), like Math.random.
 * @typedef {() => number} RandomSource
 */

/**
 * @param {number | null} seed      the run's --seed, or null: Math.random
 * @param {number} clientId         the client's number in the whole load
 * @returns {RandomSource}
 */
export function clientRandom(seed, clientId) {
  if (seed === null) return Math.random
  // splitmix32 over the seed and the client's number spreads them over the
  // four words of state: neighbouring seeds or clients give unrelated streams.
  let s = (Math.imul(seed >>> 0, 0x2c1b3c6d) ^ Math.imul(clientId + 1, 0x297a2d39)) | 0
  const next = () => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) | 0
  }
  let a = next()
  let b = next()
  let c = next()
  let d = next()
  const random = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (((c << 21) | (c >>> 11)) + t) | 0
    return (t >>> 0) * TWO_TO_MINUS_32
  }
  // the first draws of sfc32 still show the seed: skip them
  for (let i = 0; i < 12; i++) random()
  return random
}
