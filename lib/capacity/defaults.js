// The defaults, and why (docs/capacity.md):
export const CAPACITY_DEFAULTS = {
  // low enough for any workload on a small machine to hold
  startRate: 100,
  // doubling reaches 100 000/s from 100 in 10 steps
  factor: 2,
  maxRate: 1e6,
  minRate: 1,
  // the bracket is narrowed to within 10 %: finer than the step-to-step
  // noise of a shared machine seldom settles
  resolution: 0.1,
  // 5 steps at each end, all agreeing, give 1 − 2/32 ≈ 94 % (sign test); an
  // end a notch further out, 1 − 3/32 ≈ 91 %
  repeats: 5,
  // 5 s measured after 2 s at the new rate: a p99 from 500 requests or more at 100/s
  stepS: 5,
  settleS: 2,
  // a step's percentile should be at least its 10th slowest request (1000 requests for a p99): while the bracket
  // is confirmed a step is measured long enough for that, up to twice --step within the time left; a --step step
  // with fewer widens the resolution in proportion, up to 3 times (lib/capacity/step-length.js)
  tailRequests: 10,
  maxStepFactor: 2,
  maxWiden: 3,
  // the search ends by this many seconds after its session began to open, settled or not: an answer within 3
  // minutes, with the process's start and end
  maxTimeS: 170,
  // open loop: enough clients that they are not what limits the rate (at
  // 10 000/s and 2 ms each, about 20 are busy), few enough for a small server
  concurrency: 32
}
