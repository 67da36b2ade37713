// The level of a stretch of a series (lib/analysis/levels.js): its median and
// the order-statistic interval, and the sorted window a scan slides over a
// series, which must give every window's level exactly as sorting it would.
// No server.
import t from 'tap'
import { SortedWindow, intervalRank, levelOf } from '../../lib/analysis/levels.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'

t.test('levelOf: the median and the 95 % interval of the order statistics', async t => {
  t.same(levelOf([3, 1, 2]), { median: 2, low: 1, high: 3, n: 3 }, 'below 6 values: [min, max]')
  t.equal(levelOf([4, 1, 3, 2]).median, 2.5, 'an even count: the mean of the middle two')
  // n = 10: P(B ≤ 1) = 11/1024 ≤ 2.5 % < P(B ≤ 2) = 56/1024, so j = 2
  t.equal(intervalRank(10), 2, 'n = 10: the second smallest and the second largest')
  t.same(levelOf([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]), { median: 5.5, low: 2, high: 9, n: 10 })
  t.equal(levelOf([]).n, 0, 'no values: n 0')
})

t.test('a sliding sorted window gives the level of every window as sorting it would', async t => {
  const random = mulberry32(5)
  let compared = 0
  let wrong = 0
  for (let round = 0; round < 80; round++) {
    const n = 20 + Math.floor(random() * 300)
    // ties on purpose: values from a few distinct ones in half the rounds
    const x = Float64Array.from({ length: n }, () => (round % 2 ? Math.floor(random() * 5) : random() * 100 - 50))
    const width = 1 + Math.floor(random() * 30)
    const stride = 1 + Math.floor(random() * 2 * width)
    const window = new SortedWindow(x, width)
    for (let from = 0; from + width <= n; from += stride) {
      window.moveTo(from, from + width)
      const want = levelOf(x, from, from + width)
      compared++
      if (JSON.stringify(window.level()) !== JSON.stringify(want) || window.median() !== want.median) wrong++
    }
  }
  t.ok(compared > 1000, `${compared} windows compared`)
  t.equal(wrong, 0, 'every one the same level, including strides that skip values and windows that jump past the last')
})

t.test('a window centred on each point, narrower at the ends', async t => {
  const x = Float64Array.from([5, 1, 4, 2, 3, 9, 0])
  const window = new SortedWindow(x, 3)
  const medians = []
  for (let i = 0; i < x.length; i++) {
    window.moveTo(Math.max(0, i - 1), Math.min(x.length, i + 2))
    medians.push(window.median())
  }
  t.same(medians, [3, 4, 2, 3, 3, 3, 4.5], 'the running median of three, two at each end')
})
