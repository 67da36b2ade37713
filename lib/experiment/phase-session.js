import path from 'node:path'
import client from 'prom-client'
import { parseMix } from '../config/mix.js'
import { LoadSession } from '../lab/load-session.js'
import { loadOptions } from '../lab/run-assembly.js'
import { zfsSpaceProbeFor } from '../snapshot/zfs-space.js'

// What each phase of an experiment (the prepare phase, one repetition of a
// variant) is given, and the load session it opens: the plan's settings,
// the phase's record directory and what run.json says of its server.

export const LIMITS = { shutdownTimeoutS: 10, verifyTimeoutS: 60 }

/**
 * @typedef {object} ExperimentContext
 * @property {import('./plan.js').Plan} plan
 * @property {string} out
 * @property {string} connectionString
 * @property {string} display
 * @property {boolean} embedded
 * @property {string} dataDir
 * @property {import('../snapshot/snapshots.js').Snapshots} snapshots
 * @property {import('../lab/disk-throttle.js').DiskThrottle | null} diskThrottle  the server's slower disk, set again
 *   after every restart
 * @property {import('./server-groups.js').ServerGroup} group   the server this phase runs on
 * @property {import('../helpers/stop-signal.js').StopSignal} stop
 * @property {import('../log.js').Logger} log
 * @property {OnPhase} [onPhase]
 */

/**
 * Told when a phase's load starts: what shows the experiment's progress.
 * @typedef {(phase: { phase: 'prepare' | 'variant', variant?: string, repetition?: number,
 *     session: LoadSession }) => void} OnPhase
 */

/**
 * @param {ExperimentContext} context
 * @param {string} dir
 * @param {{ reset: boolean, workload: import('../workloads/contract.js').Workload, mix: string, concurrency: number,
 *     requestsPerClient?: number | null, warmupS?: number | null, describe: Record<string, unknown> }} options
 *   warmupS: a variant's warm-up (the prepare phase has none: it only fills the table)
 */
export async function openSession(
  context,
  dir,
  { reset, workload, mix, concurrency, requestsPerClient = null, warmupS = null, describe }
) {
  const { plan } = context
  const registry = new client.Registry()
  // the data directory on ZFS (the zfs snapshot driver's, or an embedded server's): its pool's free space and metaslabs
  const zfs = await zfsSpaceProbeFor(context.dataDir, { registry, log: context.log })
  return LoadSession.open(
    loadOptions({
      target: { connectionString: context.connectionString, display: context.display, embedded: context.embedded },
      workload,
      mix: parseMix(mix, workload.types),
      settings: {
        protocol: plan.protocol,
        concurrency,
        requestsPerClient,
        seed: plan.seed,
        statsIntervalS: plan.statsIntervalS,
        requestTimeoutS: plan.requestTimeoutS,
        warmupS
      },
      reset,
      connectTimeoutS: 30,
      pgStats: { pgstattuple: false },
      recordDir: dir,
      serverLogDir: context.dataDir,
      probes: zfs ? [zfs] : [],
      describe: { command: 'experiment', experiment: plan.name, ...describe },
      registry,
      log: context.log
    })
  )
}

/**
 * What run.json says of the server a phase ran on: its major, profile and
 * the settings the plan gave (what SHOW reports is in run.json's settings),
 * and which variants share its snapshot.
 * @param {import('./server-groups.js').ServerGroup} group
 * @param {import('./plan.js').Plan['variants'][number] | null} variant   null: the prepare phase
 */
export function serverRecord(group, variant) {
  const own = variant?.server ?? group.base
  return {
    major: group.major,
    ...(own && { profile: own.profile, settings: own.settings }),
    snapshot: path.basename(group.prepareDir),
    shares_snapshot_with: group.variants
  }
}
