// The bucket a value lands in, against the layout that LOG_HISTOGRAM_SCHEME
// names (summaries of different runs are added bucket by bucket, so the
// layout must not move): values below 64 µs exact, then 32 buckets per
// power of two, up to 2^36 µs. The index is computed one way below 2^32 µs
// (bit length) and another above: both must follow the layout.
import t from 'tap'
import fc from 'fast-check'
import { LogHistogram, LOG_HISTOGRAM_SCHEME, LOG_HISTOGRAM_SIZE } from '../../lib/metrics/log-histogram.js'

/**
 * The layout, spelled out: magnitude m = floor(log2 v) (at most 36), and
 * the top six bits of v (32 to 63) pick one of the 32 buckets of [2^m, 2^(m+1)).
 * @param {number} us
 */
function expectedBucket(us) {
  const v = Math.floor(us)
  if (v < 64) return Math.max(0, v)
  let magnitude = 0
  while (2 ** (magnitude + 1) <= v) magnitude++
  magnitude = Math.min(magnitude, 36)
  const top = Math.min(Math.floor(v / 2 ** (magnitude - 5)), 63)
  return 64 + (magnitude - 6) * 32 + top - 32
}

/** @param {number} us */
function bucketOf(us) {
  const histogram = new LogHistogram()
  histogram.record(us)
  return histogram.counts.findIndex(count => count === 1)
}

t.equal(LOG_HISTOGRAM_SCHEME, 'log-linear-us:sub_bits=5,max_magnitude=36', 'the layout the summaries name')
t.equal(LOG_HISTOGRAM_SIZE, 64 + 31 * 32)

t.test('every value lands in its bucket of the layout', async t => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(fc.double({ min: 0, max: 2 ** 37, noNaN: true }), us => bucketOf(us) === expectedBucket(us)),
        { numRuns: 20000 }
      ),
    '20 000 random values, each in its bucket'
  )
  // the edges: of the exact range, of every power of two, of 2^32 where the
  // computation changes, and past the last magnitude
  const edges = [
    0,
    0.5,
    63,
    63.99,
    64,
    65,
    2 ** 32 - 1,
    2 ** 32 - 0.5,
    2 ** 32,
    2 ** 32 + 1,
    2 ** 36,
    2 ** 37 - 1,
    2 ** 40
  ]
  for (let m = 6; m < 37; m++) edges.push(2 ** m - 1, 2 ** m, 2 ** m + 1, 2 ** (m + 1) - 2 ** (m - 5))
  const wrong = edges.filter(us => bucketOf(us) !== expectedBucket(us))
  t.same(wrong, [], `${edges.length} edge values, each in its bucket`)
  t.equal(bucketOf(2 ** 40), LOG_HISTOGRAM_SIZE - 1, 'a value past the layout lands in the last bucket')
})

t.test('a quantile is within 1/32 above the value recorded', async t => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(fc.integer({ min: 64, max: 2 ** 35 }), fc.integer({ min: 64, max: 2 ** 35 }), (a, b) => {
          const histogram = new LogHistogram()
          histogram.record(Math.min(a, b))
          histogram.record(Math.max(a, b))
          const low = /** @type {number} */ (histogram.quantile(0.5))
          return low >= Math.min(a, b) && low <= Math.min(a, b) * (1 + 1 / 32)
        }),
        { numRuns: 5000 }
      ),
    "5000 random pairs: the lower one's quantile is its bucket's top, at most 1/32 above it"
  )
})
