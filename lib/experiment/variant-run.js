import { performance } from 'node:perf_hooks'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { EventLog } from '../recorder/event-log.js'
import { runAction } from '../sidecar/actions.js'
import { currentValue, holds } from '../sidecar/conditions.js'
import { statsView } from '../pgstats/stats-view.js'
import { isSameTable } from '../sidecar/retention-spec.js'
import { configureFor } from './server-groups.js'
import { rampStep } from './ramp-step.js'
import { runCapacityStep } from '../capacity/plan-step.js'
import { openSession, serverRecord } from './phase-session.js'

// One repetition of one variant of a plan, from the rollback to the
// snapshot to the summary, and the steps it runs on its load.

/** @typedef {import('./phase-session.js').ExperimentContext} ExperimentContext */
/** @typedef {import('../lab/load-session.js').LoadSession} LoadSession */

/**
 * One repetition of one variant: roll back, load, run the steps, record.
 * @param {ExperimentContext} context
 * @param {import('./plan.js').Plan['variants'][number]} variant
 * @param {number} rep
 */
export async function runVariant(context, variant, rep) {
  const { plan, log, stop } = context
  const dir = path.join(context.out, 'variants', variant.name, `rep-${rep}`)
  await mkdir(dir, { recursive: true })
  const events = new EventLog({ file: path.join(dir, 'events.ndjson'), log })
  log.info(`variant ${variant.name}, repetition ${rep}: rolling back to "${plan.prepare.snapshot}"`)
  const beforeStart = configureFor(context.group, variant)
  await events.timed(
    { action: 'rollback', detail: { snapshot: plan.prepare.snapshot, ...(beforeStart && { own_settings: true }) } },
    () => context.snapshots.rollback(plan.prepare.snapshot, { yes: true, beforeStart })
  )
  await context.diskThrottle?.attach()
  const t0 = new Date()

  // A variant with options of its own gets its tables made afresh, in its own shape.
  if (variant.workload) {
    log.info(`variant ${variant.name}: its own options; the ${variant.workload.name} tables are made afresh`)
  }
  const session = await openSession(context, dir, {
    load: { reset: variant.workload !== null, ...(variant.workload && { workload: variant.workload }) },
    describe: {
      phase: 'variant',
      variant: variant.name,
      repetition: rep,
      label: `${variant.name} #${rep}`,
      t0: t0.toISOString(),
      server: serverRecord(context.group, variant),
      ...(variant.workload && { options: variant.workload.options })
    }
  })
  /** @type {Promise<unknown>[]} */
  const actions = []
  try {
    await session.start()
    context.onPhase?.({ phase: 'variant', variant: variant.name, repetition: rep, session })
    for (const step of variant.steps) {
      if (stop.requested) break
      if (step.capacity)
        await runCapacityStep({
          target: { connectionString: context.connectionString, display: context.display, embedded: context.embedded },
          session,
          spec: step.capacity,
          label: step.label,
          dir,
          events,
          stop,
          log
        })
      else await runStep(context, session, events, step, actions)
    }
    await Promise.allSettled(actions)
    const summary = await session.finish()
    log.info(
      `variant ${variant.name}, repetition ${rep}: ${summary.throughput} requests/s, ${summary.unexpected_failures} unexpected failures`
    )
  } finally {
    await session.close()
    await events.flush()
  }
}

/**
 * @param {ExperimentContext} context
 * @param {LoadSession} session
 * @param {EventLog} events
 * @param {import('./plan-steps.js').Step} step
 * @param {Promise<unknown>[]} actions  started actions, awaited by wait: action
 */
async function runStep(context, session, events, step, actions) {
  const { log, stop } = context
  switch (step.kind) {
    case 'load':
      if (step.concurrency) await setConcurrency(session, events, step.concurrency, log)
      if (step.ramp)
        await rampStep(session.generator, { to: step.ramp, seconds: step.seconds ?? 0 }, { events, log, stop })
      else await stop.wait(step.seconds ?? 0)
      return
    case 'concurrency': {
      const next = step.factor
        ? Math.max(1, Math.round(session.generator.concurrency * step.factor))
        : /** @type {number} */ (step.concurrency)
      await setConcurrency(session, events, next, log)
      return
    }
    case 'action':
      actions.push(
        runAction(/** @type {import('../sidecar/actions.js').ActionSpec} */ (step.action), {
          connectionString: context.connectionString,
          events,
          log,
          // retention during the load: the row audit must not count its removals as missing
          onRowsRemoved: (rows, table) => {
            if (isSameTable(table, session.spec.workload.auditTable)) session.noteRowsRemoved(rows)
          }
        })
      )
      return
    case 'wait': {
      const deadline = performance.now() + (step.timeoutS ?? 3600) * 1000
      if (step.until === 'action') {
        await stop.wait(step.timeoutS ?? 3600, Promise.allSettled(actions))
        return
      }
      const condition = /** @type {import('../sidecar/conditions.js').Condition} */ (step.until)
      while (!stop.requested && performance.now() < deadline) {
        const value = await currentValue(condition, statsView(session.latestStats()), context.dataDir)
        if (value !== null && holds(condition, value)) {
          log.info(`${step.label}: "${condition.text}" holds (${value})`)
          await events.record({ kind: 'point', action: 'condition', detail: { condition: condition.text, value } })
          return
        }
        await stop.wait(1)
      }
      if (!stop.requested) {
        log.warn(
          `${step.label}: "${condition.text}" did not hold within ${step.timeoutS} s; going on`,
          'PGLG_W_CONDITION'
        )
      }
    }
  }
}

/**
 * @param {LoadSession} session
 * @param {EventLog} events
 * @param {number} next
 * @param {import('../log.js').Logger} log
 */
async function setConcurrency(session, events, next, log) {
  const previous = session.generator.concurrency
  if (previous === next) return
  session.generator.setConcurrency(next)
  log.info(`concurrency ${previous} → ${next}`)
  await events.record({ kind: 'point', action: 'concurrency', detail: { from: previous, to: next } })
}
