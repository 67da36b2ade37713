// The p99 window rule against known answers (lib/analysis/tail-cases.js):
// steady loads whose requests draw from one heavy-tailed latency, each point
// the p99 of its requests. A per-second p99 of 50 requests (its slowest)
// reports changes of steady runs; windows of WINDOW_REQUESTS do not. No server.
import t from 'tap'
import { steadyTailRate } from '../../lib/analysis/tail-cases.js'
import { WINDOW_REQUESTS } from '../../lib/recorder/p99-windows.js'

const TAILS = [
  { tailShare: 0.01, tailIndex: 0.8 },
  { tailShare: 0.02, tailIndex: 1.5 }
]
const CASES = 200

t.test('windows of WINDOW_REQUESTS: at most 1 % of steady series report a change', async t => {
  let reported = 0
  let run = 0
  let seed = 11
  for (const tail of TAILS) {
    // 120 s of a type at 100 and at 200 requests a second
    for (const points of [24, 48]) {
      reported += Math.round(steadyTailRate({ ...tail, requests: WINDOW_REQUESTS, points }, CASES, seed++) * CASES)
      run += CASES
    }
  }
  t.ok(reported / run <= 0.01, `${reported} of ${run} steady series of windows with a change`)
})

t.test('the slowest of 50 requests a second does report changes of steady series', async t => {
  let reported = 0
  let seed = 31
  for (const tail of TAILS) {
    reported += Math.round(steadyTailRate({ ...tail, requests: 50, points: 117 }, CASES, seed++) * CASES)
  }
  t.ok(reported / (TAILS.length * CASES) >= 0.03, `${reported} of ${TAILS.length * CASES}: what the windows prevent`)
})
