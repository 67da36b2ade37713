import { parseMix } from '../config/mix.js'
import { performance } from 'node:perf_hooks'
import path from 'node:path'
import { RuntimeError } from '../errors.js'
import { withControlClient } from '../pg/control-client.js'
import { codedServerError } from '../pg/server-errors.js'
import { EventLog } from '../recorder/event-log.js'
import { runAction } from '../sidecar/actions.js'
import { statsView } from '../pgstats/stats-view.js'
import { initPgbench, InitError } from '../pgbench/init.js'
import { openSession, serverRecord } from './phase-session.js'

// The prepare phase of one server: fill the tables (in batches when the
// plan asks, the load paused after each while its actions run), run the
// actions, checkpoint and take the snapshot every variant rolls back to.

/** @typedef {import('./phase-session.js').ExperimentContext} ExperimentContext */
/** @typedef {import('../sidecar/actions.js').ActionSpec} ActionSpec */

// How long a paused load is given for the requests in flight to end before a batch's actions run.
const PAUSE_SETTLE_S = 1

/**
 * Loads until the plan's size, then takes the snapshot every variant starts from.
 * @param {ExperimentContext} context
 */
export async function preparePhase(context) {
  const { plan, log, stop } = context
  const { prepare } = plan
  if (prepare.init) {
    log.info(`prepare: pgbench's tables at scale ${prepare.init.scale}`)
    await initPgbench(context.connectionString, prepare.init, { log }).catch(err => {
      throw err instanceof InitError
        ? codedServerError(`prepare.pgbench_init: ` + err.message.split('\n')[0], err, 'PGLG_SCHEMA_FAILED')
        : err
    })
  }
  const until = [
    prepare.rows && `${prepare.rows} rows`,
    prepare.tableBytes && `${prepare.tableBytes} bytes`,
    prepare.seconds && `${prepare.seconds} s`
  ]
  const inBatches = prepare.batches > 1 ? ` in ${prepare.batches} batches` : ''
  log.info(`prepare: loading until ${until.filter(Boolean).join(' or ')}${inBatches}`)
  const prepareDir = context.group.prepareDir
  const events = new EventLog({ file: path.join(prepareDir, 'events.ndjson'), log })
  try {
    await load(context, events)
    if (stop.requested) return
    if (prepare.batches === 1) await runActions(context, events, prepare.batchActions, 'prepare.batch_actions')
    await runActions(context, events, prepare.actions, 'prepare.actions')
  } finally {
    await events.flush()
  }
  if (stop.requested) return
  await withControlClient({ connectionString: context.connectionString }, client => client.query('CHECKPOINT'))
  await context.snapshots.create(prepare.snapshot)
  // the copy driver restarted the server: a new postmaster, outside the group
  await context.diskThrottle?.attach()
}

/**
 * The prepare phase's load, until its rows, size or time; with batches,
 * paused after each while the batch's actions run (the last batch's too).
 * @param {ExperimentContext} context
 * @param {EventLog} events
 */
async function load(context, events) {
  const { plan, log, stop } = context
  const { prepare } = plan
  // With a seed, rows of a dense-id table are a fixed share per client, so
  // that every major's prepare phase writes the same rows: each client makes
  // that many requests of the fill mix, and the phase ends when all have,
  // not at the first look past the count (which the interleaving decides).
  const { seed } = plan.load
  const share =
    seed !== null && prepare.rows !== null && plan.workload.idTable !== null
      ? Math.ceil(prepare.rows / prepare.concurrency)
      : null
  if (share !== null) {
    log.info(`prepare: seed ${seed}: each of ${prepare.concurrency} clients makes ${share} requests`)
  }
  // the prepare phase only fills the table: no warm-up
  const session = await openSession(context, context.group.prepareDir, {
    load: {
      reset: true,
      mix: parseMix(prepare.mix, plan.workload.types),
      concurrency: prepare.concurrency,
      requestsPerClient: share,
      warmupS: null
    },
    describe: { phase: 'prepare', server: serverRecord(context.group, null) }
  })
  let allDone = false
  session.generator.limitReached.then(() => {
    allDone = true
  })
  try {
    await session.start()
    context.onPhase?.({ phase: 'prepare', session })
    const started = performance.now()
    let batch = 1
    while (!stop.requested) {
      const table = plan.workload.table === null ? null : statsView(session.latestStats())?.table(plan.workload.table)
      // Rows: the acknowledged inserts of a dense-id table, else what the statistics count.
      const rows = plan.workload.idTable !== null ? session.state.acknowledged.size : (table?.live ?? 0)
      if (batch < prepare.batches && rows >= ((prepare.rows ?? 0) * batch) / prepare.batches) {
        await betweenBatches(context, session, events, batch, rows)
        batch++
        continue
      }
      if (share !== null ? allDone : prepare.rows !== null && rows >= prepare.rows) break
      if (prepare.tableBytes !== null && table && table.bytes >= prepare.tableBytes) break
      if (prepare.seconds !== null && performance.now() - started >= prepare.seconds * 1000) break
      await stop.wait(prepare.batches > 1 ? 0.2 : 1, share === null ? undefined : session.generator.limitReached)
    }
    const summary = await session.finish()
    log.info(
      `prepare: ${plan.workload.idTable !== null ? summary.acknowledged_inserts : summary.rows_written} rows written in ${summary.elapsed_s} s`
    )
    if (prepare.batches > 1 && !stop.requested) {
      await runActions(context, events, prepare.batchActions, `prepare.batch_actions (batch ${batch})`)
    }
  } finally {
    await session.close()
  }
}

/**
 * The load paused while a batch's actions run, then resumed.
 * @param {ExperimentContext} context
 * @param {import('../lab/load-session.js').LoadSession} session
 * @param {EventLog} events
 * @param {number} batch
 * @param {number} rows
 */
async function betweenBatches(context, session, events, batch, rows) {
  const { log, stop } = context
  session.generator.pause()
  await events.record({ kind: 'point', action: 'batch', detail: { batch, rows } })
  log.info(`prepare: batch ${batch} of ${context.plan.prepare.batches} loaded (${rows} rows); load paused`)
  await stop.wait(PAUSE_SETTLE_S)
  try {
    await runActions(context, events, context.plan.prepare.batchActions, `prepare.batch_actions (batch ${batch})`)
  } finally {
    session.generator.resume()
  }
}

/**
 * Runs actions in order; one that fails stops the phase, since every
 * variant would start from a state the plan did not ask for.
 * @param {ExperimentContext} context
 * @param {EventLog} events
 * @param {ActionSpec[]} actions
 * @param {string} field
 */
async function runActions(context, events, actions, field) {
  for (const [i, spec] of actions.entries()) {
    if (context.stop.requested) return
    const outcome = await runAction(spec, { connectionString: context.connectionString, events, log: context.log })
    await events.flush()
    if (!outcome.ok) {
      throw new RuntimeError(
        `${field}[${i}] (${spec.action}${spec.table ? ` of ${spec.table}` : ''}) failed: ${outcome.error}; no snapshot taken`
      )
    }
  }
}
