import { performance } from 'node:perf_hooks'
import { runningFigures } from '../summary/running-figures.js'
import { evaluateThresholds, failedForGood } from '../summary/threshold-verdicts.js'
import { statsAfterWarmup } from '../summary/warmup.js'

// --threshold-abort: the thresholds judged on the running figures once a
// second, so that a run already failed stops there instead of spending
// the rest of its duration (and a CI job's minutes) on it.

/** @typedef {import('../summary/threshold-verdicts.js').ThresholdAbort} ThresholdAbort */

/**
 * @typedef {object} RunningLoad
 * @property {import('../metrics/request-stats.js').RequestStats} stats
 * @property {import('../generator/generator.js').LoadGenerator} generator
 * @property {number} started   performance.now() at the start of the load
 * @property {import('../summary/warmup.js').WarmupMark | null} [warmupMark]  set when --warmup ends
 */

/**
 * Starts judging; `failed` resolves with the first threshold failed for
 * good (and never otherwise), which `failure` then holds; stop() ends the
 * checks.
 * @param {RunningLoad} load
 * @param {readonly import('../config/thresholds.js').Threshold[]} thresholds
 * @param {{ scheduled: boolean, warmupS?: number | null, everyMs?: number }} options
 *   warmupS: --warmup; its seconds are left out of the summary, so they are not judged either
 * @returns {{ failed: Promise<ThresholdAbort>, readonly failure: ThresholdAbort | null, stop: () => void }}
 */
export function watchThresholds(load, thresholds, { scheduled, warmupS = null, everyMs = 1000 }) {
  /** @type {(abort: ThresholdAbort) => void} */
  let resolve = () => {}
  /** @type {Promise<ThresholdAbort>} */
  const failed = new Promise(r => {
    resolve = r
  })
  /** @type {ThresholdAbort | null} */
  let failure = null
  const check = () => {
    const loadS = (performance.now() - load.started) / 1000
    const mark = load.warmupMark ?? null
    if (warmupS && !mark) return
    // the figures the summary will have: those after the warm-up
    const elapsedS = loadS - (mark?.seconds ?? 0)
    const figures = runningFigures(mark ? statsAfterWarmup(load.stats, mark) : load.stats, {
      elapsedS,
      reconnects: load.generator.reconnects - (mark?.reconnects ?? 0),
      skipped: load.generator.skipped - (mark?.skipped ?? 0),
      scheduled
    })
    const failing = evaluateThresholds(thresholds, figures).find(result => failedForGood(result, elapsedS))
    if (!failing) return
    clearInterval(timer)
    failure = { expr: failing.expr, value: failing.value, unit: failing.unit, at_s: Math.round(loadS * 10) / 10 }
    resolve(failure)
  }
  const timer = setInterval(check, everyMs)
  timer.unref()
  return {
    failed,
    get failure() {
      return failure
    },
    stop: () => clearInterval(timer)
  }
}
