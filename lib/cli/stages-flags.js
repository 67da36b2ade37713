import { checkSetting, parseRunSettings } from '../config/run-setting-checks.js'
import { InputError } from '../errors.js'
import { profileOf, stagesSeconds } from '../config/stages.js'

// --stages and --warmup of pgloadgen run, checked together with what they
// depend on: the loop (the stages are clients, or requests/s with --rate),
// the flags they cannot go with, and the run's duration (the stages', or
// -d's, which the warm-up must be shorter than). The values themselves are
// checked as every setting is (config/run-setting-checks.js).

/** A closed loop's stages start from this many clients, as k6's ramping-vus starts from its startVUs. */
export const STAGES_START_CLIENTS = 1

/**
 * The flags of run that the stages and the warm-up are checked with.
 * @typedef {object} StagesFlags
 * @property {unknown} [stages]
 * @property {unknown} [warmup]
 * @property {unknown} [duration]
 * @property {unknown} [concurrency]
 * @property {unknown} [transactions]
 * @property {unknown} [instance]
 */

/**
 * @param {StagesFlags} args
 * @param {{ workload: import('../workloads/contract.js').Workload, rate: number | null }} run   rate: --rate, checked
 * @returns {{ stages: { stages: import('../config/stages.js').Stage[],
 *     profile: import('../config/stages.js').Profile } | null, warmupS: number | null, durationS: number | null,
 * startClients: number | null }}
 *   startClients: the clients a closed loop's stages start from (null: -c's)
 */
export function loadOverTime(args, { workload, rate }) {
  const flags = /** @type {Record<string, unknown>} */ (args)
  const given = parseRunSettings('flag', flags, { only: ['warmupS', 'durationS'] })
  const warmupS = /** @type {number | undefined} */ (given.warmupS) || null
  const givenS = /** @type {number | undefined} */ (given.durationS) ?? null
  if (args.stages === undefined) {
    return {
      stages: null,
      warmupS: checkedWarmup(warmupS, givenS, '--duration'),
      durationS: givenS,
      startClients: null
    }
  }
  const openLoop = rate !== null
  if (!openLoop && args.concurrency !== undefined) {
    throw new InputError(
      '--stages with --concurrency: the stages set the clients (with --rate the stages are requests/s, and -c the clients that serve them)',
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (args.transactions !== undefined) {
    throw new InputError(
      '--stages with --transactions: a run of stages ends with them (or at -d), not after a count of requests',
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (args.instance !== undefined) {
    throw new InputError(
      '--stages with --instance: a load split over instances cannot ramp (give each instance its -c or its share of --rate)',
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (!openLoop && (workload.clients !== null || workload.ramp !== null)) {
    throw new InputError(`--stages: the ${workload.name} workload starts its clients itself; see its options`, {
      code: 'PGLG_NOT_FOR_WORKLOAD'
    })
  }
  const stages = /** @type {import('../config/stages.js').Stage[]} */ (
    checkSetting('stages', args.stages, 'flag', { openLoop })
  )
  // -d cuts the stages short, or holds the last target after them
  const durationS = givenS ?? stagesSeconds(stages)
  return {
    stages: { stages, profile: profileOf(stages, openLoop ? rate : STAGES_START_CLIENTS) },
    warmupS: checkedWarmup(warmupS, durationS, givenS === null ? '--stages' : '--duration'),
    durationS,
    startClients: openLoop ? null : STAGES_START_CLIENTS
  }
}

/**
 * A warm-up as long as the run would leave nothing to summarise.
 * @param {number | null} warmupS
 * @param {number | null} durationS   null: the run lasts until stopped
 * @param {string} source   what set the duration
 */
function checkedWarmup(warmupS, durationS, source) {
  if (warmupS !== null && durationS !== null && warmupS >= durationS) {
    throw new InputError(
      `--warmup ${warmupS} s is not shorter than the run (${durationS} s, from ${source}): nothing would be left for the summary`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  return warmupS
}
