import { performance } from 'node:perf_hooks'
import path from 'node:path'
import { writeFile } from 'node:fs/promises'
import { formatMix } from '../config/mix.js'
import { monotonicEpochMs } from '../generator/clock.js'
import { errorMessage } from '../helpers/error-message.js'
import { countInDoubtRows, countTableRows, verifyInserts } from './audit.js'
import { buildSummary } from '../summary/summary.js'
import { summaryJson } from '../summary/summary-json.js'
import { walSince } from './server-wal.js'
import { withoutWarmup } from '../summary/warmup.js'

// The end of a load session: the load stopped and its time taken, the
// acknowledged inserts and the audited rows checked, the summary built.
// What a recorded run (--record) adds to summary.json (its vacuums, change
// points and anti-wraparound autovacuums) is loaded by a recorded run only.

/**
 * Stops the load (waiting for requests in flight up to the grace period),
 * checks the acknowledged inserts, and returns the summary; with a record
 * directory, also writes summary.json and the end time into run.json.
 * judge: fields the summary gains from a look at itself (the thresholds'
 * verdicts), before summary.json is written.
 * @param {import('./load-session.js').LoadSession} session
 * @param {{ judge?: (summary: Record<string, any>) => Record<string, unknown> }} [end]
 */
export async function finishSession(session, { judge } = {}) {
  const { spec, place, generator, state } = session
  const { shutdownTimeoutS, verifyTimeoutS } = spec
  const { connectionString } = place.target
  const finalConcurrency = generator.concurrency
  session.overTime.stop()
  // The ramp and the maintenance end first: no client may start while the others stop.
  await session.services.stop()
  const finished = await generator.stop(shutdownTimeoutS * 1000)
  // Requests completed during the grace period count, so the time does
  // too; closing the connections and the threads afterwards does not.
  const now = monotonicEpochMs()
  const endedMs = Math.min(generator.requestsEndedMs ?? now, now)
  const elapsedS = Math.max(0, endedMs - (performance.timeOrigin + session.started)) / 1000
  const endedAt = new Date(Date.now() - (now - endedMs))
  const cpuUsage = process.cpuUsage(session.cpuAtStart)
  if (!finished) {
    place.log.warn(`requests still in flight after ${shutdownTimeoutS} s were abandoned`, 'PGLG_W_ABANDONED')
  }
  // a start of the server under way ends first: what follows reads the server it brought back
  const serverDown = (await place.serverWatch?.stop()) ?? false
  const serverWalBytes = spec.recordDir && !serverDown ? await walSince(connectionString, session.walAtStart) : null
  await session.recorder?.stop()
  session.disk?.check()
  session.disk?.stop()
  const { idTable, auditTable } = spec.workload
  // a server that stopped on its own and stays down has nothing to read (server-watch.js said why)
  const insertAudit =
    idTable === null || serverDown
      ? null
      : await verifyInserts(
          connectionString,
          idTable,
          spec.workload.idFingerprint,
          state,
          verifyTimeoutS * 1000,
          place.log
        )
  const rowsAfter =
    auditTable === null || serverDown
      ? null
      : await countTableRows(connectionString, auditTable, verifyTimeoutS * 1000, place.log)
  const inDoubtStored =
    auditTable === null || serverDown
      ? null
      : await countInDoubtRows(connectionString, state.inDoubt, verifyTimeoutS * 1000, place.log)
  const summary = buildSummary(
    withoutWarmup(
      {
        stats: session.stats,
        elapsedS,
        workload: spec.workload.name,
        protocol: spec.protocol,
        concurrency: spec.concurrency,
        finalConcurrency,
        target: place.target.display,
        mix: formatMix(spec.mix),
        reconnects: generator.reconnects,
        // every acknowledgement, including those whose rows went since
        acknowledgedInserts: state.acknowledged.acknowledged,
        acknowledgedMissing: insertAudit?.missing ?? null,
        // without the check, what the run itself proved: ids acknowledged twice
        acknowledgedVanished: insertAudit?.vanished ?? state.acknowledged.replaced,
        insertsInDoubt:
          idTable === null
            ? null
            : { writes: state.insertsInDoubt().length, stored: insertAudit?.inDoubtStored ?? null },
        serverVersion: session.serverVersion,
        embedded: place.target.embedded,
        abandonedInFlight: !finished,
        cpuUsage,
        // an instance's rate is its share of the schedule's
        openLoop:
          session.pacer && session.openLoop
            ? { ...session.openLoop, rate: session.pacer.rate, skipped: session.generator.skipped }
            : null,
        startedAt: session.startedAt,
        endedAt,
        instance: spec.instance
          ? { share: spec.instance, totalConcurrency: spec.totalConcurrency, totalRate: spec.rate }
          : null,
        startAtMs: spec.startAtMs,
        pacing: spec.workload.pacing,
        diskFull: session.disk?.summary() ?? null,
        serverRestarts: place.serverWatch?.restarts ?? null,
        rowAudit:
          auditTable === null
            ? null
            : {
                table: auditTable,
                before: session.rowsBefore,
                after: rowsAfter,
                removed: session.rowsRemoved,
                inDoubt: {
                  writes: state.inDoubt.length,
                  rows: state.inDoubt.reduce((sum, write) => sum + write.rows, 0),
                  stored: inDoubtStored
                }
              },
        stages: spec.stages?.stages ?? null
      },
      session.overTime.markAtEnd(() => ({ seconds: elapsedS, cpu: cpuUsage }))
    )
  )
  if (judge) Object.assign(summary, judge(summary))
  const { recordDir } = spec
  if (recordDir) {
    const { recordVacuums } = await import('../recorder/vacuums.js')
    const { recordedChanges } = await import('../analysis/run-changes.js')
    const { recordWraparound } = await import('../recorder/wraparound.js')
    // what each vacuum cost (lib/recorder/vacuums.js)
    const vacuums = await recordVacuums(recordDir, session.logMark ?? null).catch(err => ({
      vacuums: [],
      autovacuum_source: `none: ${errorMessage(err)}`
    }))
    // when the load changed and what the lab saw then (lib/analysis/explain.js)
    const changes = await recordedChanges(recordDir, session.logMark ?? null, spec.statsIntervalS).catch(err => ({
      changes: null,
      changes_method: { error: errorMessage(err) }
    }))
    Object.assign(summary, changes)
    // the anti-wraparound autovacuums of the table, the failsafes and their latency cost (lib/recorder/wraparound.js)
    const wraparound = await recordWraparound(recordDir, session.logMark ?? null, spec.workload.table).catch(err => ({
      error: errorMessage(err)
    }))
    await writeFile(
      path.join(recordDir, 'summary.json'),
      summaryJson({ ...summary, server_wal_bytes: serverWalBytes, ...vacuums, ...(wraparound && { wraparound }) })
    )
    await session.writeRunInfo(new Date())
  }
  return summary
}
