import path from 'node:path'
import client from 'prom-client'
import { LoadSession } from '../lab/load-session.js'
import { runSpecWith } from '../lab/run-spec.js'
import { zfsSpaceProbeFor } from '../snapshot/zfs-space.js'

// What each phase of an experiment (the prepare phase, one repetition of a
// variant) is given, and the load session it opens: the plan's settings,
// the phase's record directory and what run.json says of its server.

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

// A phase waits longer for its server than a run: it has just been started or rolled back.
const PHASE_CONNECT_TIMEOUT_S = 30

/**
 * Opens a phase's session: the plan's load (plan.load) with the phase's
 * own clients, mix, workload and directory.
 * @param {ExperimentContext} context
 * @param {string} dir
 * @param {{ load: Partial<import('../lab/run-spec.js').RunSpec>, describe: Record<string, unknown> }} phase
 *   load: what the phase changes (the prepare phase: its clients, fill mix, -t; a variant: its workload)
 */
export async function openSession(context, dir, { load, describe }) {
  const { plan } = context
  const registry = new client.Registry()
  // the data directory on ZFS (the zfs snapshot driver's, or an embedded server's): its pool's free space and metaslabs
  const zfs = await zfsSpaceProbeFor(context.dataDir, { registry, log: context.log })
  const spec = runSpecWith(plan.load, { ...load, recordDir: dir, connectTimeoutS: PHASE_CONNECT_TIMEOUT_S })
  return LoadSession.open(spec, {
    target: { connectionString: context.connectionString, display: context.display, embedded: context.embedded },
    serverLogDir: context.dataDir,
    probes: zfs ? [zfs] : [],
    describe: { command: 'experiment', experiment: plan.name, ...describe },
    registry,
    log: context.log
  })
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
