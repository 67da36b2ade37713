import path from 'node:path'
import { timeline } from '../results/timeline.js'
import { findAction } from '../results/run-actions.js'
import { mean, ratio, spread } from '../results/arithmetic.js'
import { round } from '../helpers/numbers.js'
import { CAPACITY_METHOD, capacitySpread, runCapacity } from './capacity.js'
import { runWhole, wholeSpread, WHOLE_RUN_METHOD } from '../results/whole-run.js'
import { compareVariants, STATISTICS_METHOD, variantStatistics } from '../results/statistics.js'
import { variantServer } from './servers-section.js'

// Before / during / after an action: what a vacuum (or analyze, checkpoint)
// did to the load, per run, and across the repetitions of a variant.
//
// Definitions (also written into the experiment's summary.json, `method`):
// - the action (actions.js): the first vacuum the sidecar ran, from its
//   start event to its end event (or the end of the load when it never
//   ended); else the first analyze or checkpoint; else the first retention
//   run (drop-partitions or delete); else the first vacuum seen in the
//   samples' PostgreSQL figures (an autovacuum), to the resolution of the
//   statistics polls;
// - a sample covers the second before its time stamp. "During" holds the
//   samples whose middle falls inside the action (for an action shorter than
//   a sample: the samples overlapping it); "before" the samples that ended
//   by the action's start, within a window as long as the action but at
//   least BEFORE_MIN_S seconds, capped to what was recorded; "after" the
//   samples that started once the action had ended, to the end of the load.
//   The run's first sample (connections being set up) and paused seconds
//   are left out of all three;
// - throughput: the mean of the per-second rates (requests done per
//   second, all types);
// - latency: the mean of the per-second all-type p50 and p99 (each second's
//   figure is the done-weighted mean of the per-type percentiles, see
//   timeline.js allTypes);
// - degradation_ratio: throughput during / before; p99_ratio: p99 during /
//   before (above 1: slower);
// - across repetitions: mean, min, max and spread = (max − min) / mean.

const BEFORE_MIN_S = 10

export const METHOD = {
  action:
    'the first vacuum the sidecar ran (start to end event); else its first analyze or checkpoint; else its first retention run (drop-partitions or delete); else the first vacuum seen in the PostgreSQL figures of the samples (an autovacuum, to the resolution of the stats polls)',
  before: `samples ending by the action start, within a window as long as the action (at least ${BEFORE_MIN_S} s)`,
  during:
    'samples whose middle falls between the action start and end (those overlapping it when the action is shorter than a sample)',
  after: 'samples starting after the action end, to the end of the load',
  excluded: 'the first sample of each run and paused seconds',
  throughput: 'mean of per-second rates, requests done per second, all types',
  latency_us:
    "mean of per-second all-type percentiles; a second's all-type percentile is the done-weighted mean of the per-type percentiles",
  degradation_ratio: 'throughput during / before',
  p99_ratio: 'p99 latency during / before',
  spread: '(max - min) / mean across repetitions'
}

/** @typedef {import('../results/statistics.js').Phased} Phased */
/** @typedef {import('../results/statistics.js').RunPhases} RunPhases */

/**
 * @typedef {import('../results/arithmetic.js').Spread} Spread
 * @typedef {{ before: Spread, during: Spread, after: Spread }} PhasedSpread
 */

/**
 * Before / during / after figures of one run.
 * @param {import('../results/read.js').RunData} run
 * @returns {RunPhases}
 */
export function runPhases(run) {
  const points = timeline(run)
    .slice(1)
    .filter(p => !p.paused)
  const action = findAction(run)
  const empty = { before: null, during: null, after: null }
  if (!action) {
    return {
      action: null,
      samples: { before: 0, during: 0, after: 0 },
      throughput: empty,
      latency_us: { p50: empty, p99: empty },
      degradation_ratio: null,
      p99_ratio: null
    }
  }
  const lastMs = points.length ? points[points.length - 1].endMs : action.startMs
  const endMs = action.endMs ?? Math.max(lastMs, action.startMs)
  const lengthMs = endMs - action.startMs
  const windowMs = Math.max(lengthMs, BEFORE_MIN_S * 1000)

  let during = points.filter(p => {
    const middle = (p.startMs + p.endMs) / 2
    return middle >= action.startMs && middle <= endMs
  })
  if (during.length === 0) during = points.filter(p => p.endMs > action.startMs && p.startMs < endMs)
  const before = points.filter(p => p.endMs <= action.startMs && p.endMs > action.startMs - windowMs)
  const after = action.endMs === null ? [] : points.filter(p => p.startMs >= endMs)

  /** @param {(p: import('../results/timeline.js').Point) => number | null} pick */
  const phased = pick => ({
    before: mean(before.map(pick)),
    during: mean(during.map(pick)),
    after: mean(after.map(pick))
  })
  const throughput = phased(p => p.rate)
  const p50 = phased(p => p.p50)
  const p99 = phased(p => p.p99)
  return {
    action: {
      name: action.name,
      duration_s: action.duration_s === null ? round(lengthMs / 1000, 2) : round(action.duration_s, 2),
      start_s: round((action.startMs - run.t0) / 1000, 2),
      end_s: action.endMs === null ? null : round((action.endMs - run.t0) / 1000, 2),
      ok: action.ok,
      completed: action.endMs !== null,
      source: action.source
    },
    samples: { before: before.length, during: during.length, after: after.length },
    throughput: roundPhased(throughput, 1),
    latency_us: { p50: roundPhased(p50, 0), p99: roundPhased(p99, 0) },
    degradation_ratio: ratio(throughput.during, throughput.before),
    p99_ratio: ratio(p99.during, p99.before)
  }
}

/**
 * Mean, min, max and spread of the repetitions' figures.
 * @param {RunPhases[]} reps
 */
export function aggregate(reps) {
  /** @param {(r: RunPhases) => Phased} pick */
  const phased = pick => ({
    before: spread(reps.map(r => pick(r).before)),
    during: spread(reps.map(r => pick(r).during)),
    after: spread(reps.map(r => pick(r).after))
  })
  return {
    repetitions: reps.length,
    action_duration_s: spread(reps.map(r => r.action?.duration_s ?? null)),
    throughput: phased(r => r.throughput),
    latency_us: { p50: phased(r => r.latency_us.p50), p99: phased(r => r.latency_us.p99) },
    degradation_ratio: spread(reps.map(r => r.degradation_ratio)),
    p99_ratio: spread(reps.map(r => r.p99_ratio))
  }
}

/**
 * The experiment's summary.json: per variant, the figures of each
 * repetition and their aggregate.
 * @param {import('../results/read.js').ExperimentData} experiment
 */
export function experimentSummary(experiment) {
  const { info } = experiment
  const variants = experiment.variants.map(variant => {
    const phases = variant.repetitions.map(runPhases)
    const capacities = variant.repetitions.map(runCapacity)
    const wholes = variant.repetitions.map(runWhole)
    return {
      name: variant.name,
      // the server it ran on: version, settings as SHOW gave them, its snapshot (servers-section.js)
      server: variantServer(variant.repetitions),
      repetitions: variant.repetitions.map((run, i) => ({
        dir: path.relative(experiment.dir, run.dir).split(path.sep).join('/'),
        ...phases[i],
        capacity: capacities[i],
        whole_run: wholes[i]
      })),
      aggregate: aggregate(phases),
      // confidence intervals of the ratios, the machine's noise, short windows (statistics.js)
      statistics: variantStatistics(phases),
      capacity: capacitySpread(capacities),
      // the whole of each run, not only around its action (whole-run.js)
      whole_run: wholeSpread(wholes)
    }
  })
  return {
    name: info.name ?? path.basename(path.resolve(experiment.dir)),
    started_at: info.started_at ?? null,
    ended_at: info.ended_at ?? null,
    pgloadgen_version: info.pgloadgen_version ?? null,
    postgres_version: info.postgres_version ?? null,
    method: METHOD,
    variants,
    // each variant against the first: worse or better only when Welch's interval excludes no difference
    comparisons: compareVariants(variants),
    statistics_method: STATISTICS_METHOD,
    // paced runs that wrote points or rows: where the server stopped keeping up (capacity.js)
    capacity_method: variants.some(v => v.capacity !== null) ? CAPACITY_METHOD : null,
    whole_run_method: WHOLE_RUN_METHOD
  }
}

/**
 * @param {Phased} phased
 * @param {number} digits
 * @returns {Phased}
 */
function roundPhased(phased, digits) {
  return {
    before: phased.before === null ? null : round(phased.before, digits),
    during: phased.during === null ? null : round(phased.during, digits),
    after: phased.after === null ? null : round(phased.after, digits)
  }
}
