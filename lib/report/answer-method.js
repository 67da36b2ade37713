import { LEVEL } from '../results/bootstrap-interval.js'

// The known-answer error of the interval behind an experiment's answer
// (lib/results/t-interval.js), measured on generated repetitions with a known
// effect by the known-answer suite (benchmarks/known-answers/plans.js, its
// table in docs/results.md; the method and the machine in
// docs/experiments.md#the-answer-first). The suite checks these figures
// against a fresh measurement each time it runs.
export const MEASURED = Object.freeze({
  // the settings: 3 repetitions a side; normal and log-normal noise; spread (coefficient of variation) 2, 10 and
  // 30 %; true ratio 1 and 0.8; 4 000 cases each, the suite's seed 1
  repetitions: 3,
  casesPerSetting: 4000,
  // the lowest and highest share of the cases whose interval held the true ratio, over the settings
  coverageLow: 0.962,
  coverageHigh: 0.969,
  // the share, at a true ratio of 1, of cases said to show a lower figure ("appeared"), over the settings
  falseAppeared: 0.019
})

/** @param {number} share */
const pct = share => `${(share * 100).toFixed(1)} %`

/**
 * The method and its measured error, in one sentence.
 * @returns {string}
 */
export function methodSentence() {
  return `Intervals: Welch's t, ${LEVEL * 100} %; on generated repetitions with a known effect (${MEASURED.repetitions} a side, 2-30 % noise) they held the true effect in ${pct(MEASURED.coverageLow)}-${pct(MEASURED.coverageHigh)} of cases, and said "appeared" of no effect in ${pct(MEASURED.falseAppeared)} (docs/experiments.md#the-answer-first).`
}
