import { performance } from 'node:perf_hooks'
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InputError, RuntimeError } from '../errors.js'
import { withControlClient } from '../pg/control-client.js'
import { redactUrl } from '../config/pg-url.js'
import { EventLog } from '../recorder/event-log.js'
import { runAction } from '../sidecar/actions.js'
import { statsView } from '../pgstats/stats-view.js'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'
import { writeReport } from '../report/index.js'
import { MIN_REPETITIONS } from '../results/bootstrap-interval.js'
import { verdictLines } from '../results/statistics.js'
import { initPgbench, InitError } from '../pgbench/init.js'
import { checkDiskThrottle } from '../lab/disk-throttle.js'
import { groupOf, openServerGroups } from './server-groups.js'
import { LIMITS, openSession, serverRecord } from './phase-session.js'
import { runVariant } from './variant-run.js'

/** @typedef {import('./phase-session.js').ExperimentContext} ExperimentContext */
/** @typedef {import('./phase-session.js').OnPhase} OnPhase */

/**
 * Runs a plan end to end: start (or reach) the server, prepare and
 * snapshot, then each variant and repetition from a rollback to that
 * snapshot, recording everything; then the report.
 * @param {import('./plan.js').Plan} plan
 * @param {{ out: string, stop: import('../helpers/stop-signal.js').StopSignal, log: import('../log.js').Logger,
 *     onPhase?: OnPhase }} options
 */
export async function runExperiment(plan, { out, stop, log, onPhase }) {
  const outDir = path.resolve(out)
  if (existsSync(outDir) && (await readdir(outDir)).length > 0) {
    throw new InputError(`--out ${out} is not empty; give a new directory`)
  }
  // root, a cgroup controller and a block device, before anything is made
  if (plan.server.kind === 'embedded' && plan.server.diskLimit) await checkDiskThrottle(plan.server.dataDir ?? outDir)
  await mkdir(outDir, { recursive: true })
  const startedAt = new Date()
  /** @type {import('./server-groups.js').ServerGroup[]} */
  const groups = []
  try {
    await openServerGroups(plan, outDir, groups, log)
    /** @param {import('./server-groups.js').ServerGroup} group @returns {ExperimentContext} */
    const contextOf = group => ({
      plan,
      out: outDir,
      connectionString: group.connectionString,
      display: redactUrl(new URL(group.connectionString)),
      embedded: group.server !== null,
      dataDir: group.dataDir,
      snapshots: group.snapshots,
      diskThrottle: group.diskThrottle,
      group,
      stop,
      log,
      onPhase
    })
    const servers = []
    for (const group of groups)
      servers.push({
        major: group.major,
        version: await showVersion(group.connectionString),
        variants: group.variants,
        prepare: path.relative(outDir, group.prepareDir)
      })
    const info = {
      name: plan.name,
      plan: planForRecord(plan),
      started_at: startedAt.toISOString(),
      ended_at: null,
      pgloadgen_version: PGLOADGEN_VERSION,
      postgres_version: servers.map(s => s.version).join(', '),
      servers
    }
    await writeFile(path.join(outDir, 'experiment.json'), JSON.stringify(info, null, 2) + '\n')

    if (plan.repetitions < MIN_REPETITIONS) {
      log.warn(
        `repetitions: ${plan.repetitions}, fewer than ${MIN_REPETITIONS}: the report gives no confidence interval ` +
          `and cannot tell the variants apart`
      )
    }
    // one prepare phase per major, with the same row counts
    for (const group of groups) if (!stop.requested) await prepare(contextOf(group))
    // Variants interleaved per repetition (A1 B1 A2 B2), so that a drift
    // of the machine does not fall on one variant.
    for (let rep = 1; rep <= plan.repetitions && !stop.requested; rep++) {
      for (const variant of plan.variants) {
        if (stop.requested) break
        await runVariant(contextOf(groupOf(groups, variant.name)), variant, rep)
      }
    }
    await writeFile(
      path.join(outDir, 'experiment.json'),
      JSON.stringify({ ...info, ended_at: new Date().toISOString(), interrupted: stop.requested }, null, 2) + '\n'
    )
    const written = await writeReport(outDir)
    // the verdicts in words: worse only when the intervals do not overlap
    if (written.summary) {
      for (const line of verdictLines(JSON.parse(await readFile(written.summary, 'utf8')))) log.info(line)
    }
    log.info(`report: ${path.join(outDir, 'report.html')}`)
    return stop.requested ? 1 : 0
  } finally {
    for (const { server, diskThrottle } of groups) {
      await server?.stop().catch(err => log.warn(`stopping the embedded server: ${err.message}`))
      if (diskThrottle) {
        const io = await diskThrottle.counters().catch(() => null)
        if (io) {
          log.info(
            `disk limit: the server read ${(io.readBytes / 1e6).toFixed(0)} MB in ${io.reads} reads and wrote ` +
              `${(io.writeBytes / 1e6).toFixed(0)} MB in ${io.writes} writes through it`
          )
        }
        await diskThrottle.release().catch(err => log.warn(`disk limit: ${err.message}`))
      }
    }
  }
}

/**
 * Loads until the plan's size, then takes the snapshot every variant starts from.
 * @param {ExperimentContext} context
 */
async function prepare(context) {
  const { plan, log, stop } = context
  const { prepare } = plan
  if (prepare.init) {
    log.info(`prepare: pgbench's tables at scale ${prepare.init.scale}`)
    await initPgbench(context.connectionString, prepare.init, { log }).catch(err => {
      throw err instanceof InitError
        ? new RuntimeError(`prepare.pgbench_init: ` + err.message.split('\n')[0], { cause: err })
        : err
    })
  }
  const until = [
    prepare.rows && `${prepare.rows} rows`,
    prepare.tableBytes && `${prepare.tableBytes} bytes`,
    prepare.seconds && `${prepare.seconds} s`
  ]
  log.info(`prepare: loading until ${until.filter(Boolean).join(' or ')}`)
  const prepareDir = context.group.prepareDir
  // With a seed, rows of a dense-id table are a fixed share per client, so
  // that every major's prepare phase writes the same rows: each client makes
  // that many requests of the fill mix, and the phase ends when all have,
  // not at the first look past the count (which the interleaving decides).
  const share =
    plan.seed !== null && prepare.rows !== null && plan.workload.idTable !== null
      ? Math.ceil(prepare.rows / prepare.concurrency)
      : null
  if (share !== null) {
    log.info(`prepare: seed ${plan.seed}: each of ${prepare.concurrency} clients makes ${share} requests`)
  }
  const session = await openSession(context, prepareDir, {
    reset: true,
    workload: plan.workload,
    mix: prepare.mix,
    concurrency: prepare.concurrency,
    requestsPerClient: share,
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
    while (!stop.requested) {
      const table = plan.workload.table === null ? null : statsView(session.latestStats())?.table(plan.workload.table)
      // Rows: the acknowledged inserts of a dense-id table, else what the statistics count.
      const rows = plan.workload.idTable !== null ? session.state.acknowledged.size : (table?.live ?? 0)
      if (share !== null ? allDone : prepare.rows !== null && rows >= prepare.rows) break
      if (prepare.tableBytes !== null && table && table.bytes >= prepare.tableBytes) break
      if (prepare.seconds !== null && performance.now() - started >= prepare.seconds * 1000) break
      await stop.wait(1, share === null ? undefined : session.generator.limitReached)
    }
    const summary = await session.finish(LIMITS)
    log.info(
      `prepare: ${plan.workload.idTable !== null ? summary.acknowledged_inserts : summary.rows_written} rows ` +
        `written in ${summary.elapsed_s} s`
    )
  } finally {
    await session.close()
  }
  if (stop.requested) return
  const events = new EventLog({ file: path.join(prepareDir, 'events.ndjson'), log })
  for (const [i, spec] of prepare.actions.entries()) {
    if (stop.requested) return
    const outcome = await runAction(spec, { connectionString: context.connectionString, events, log })
    await events.flush()
    // Every variant would start from a state the plan did not ask for.
    if (!outcome.ok) {
      throw new RuntimeError(
        `prepare.actions[${i}] (${spec.action}${spec.table ? ` of ${spec.table}` : ''}) failed: ${outcome.error}; ` +
          `no snapshot taken`
      )
    }
  }
  await sql(context.connectionString, 'CHECKPOINT')
  await context.snapshots.create(prepare.snapshot)
  // the copy driver restarted the server: a new postmaster, outside the group
  await context.diskThrottle?.attach()
}

/**
 * The plan as recorded: what was asked, without secrets.
 * @param {import('./plan.js').Plan} plan
 */
function planForRecord(plan) {
  const server = plan.server.kind === 'url' ? { ...plan.server, url: redactUrl(new URL(plan.server.url)) } : plan.server
  return {
    ...plan,
    server,
    workload: plan.workload.name,
    options: plan.workload.options,
    variants: plan.variants.map(variant => ({
      ...variant,
      workload: undefined,
      ...(variant.workload && { options: variant.workload.options })
    }))
  }
}

/**
 * @param {string} connectionString
 * @param {string} text
 */
async function sql(connectionString, text) {
  return await withControlClient({ connectionString }, client => client.query(text))
}

/** @param {string} connectionString */
async function showVersion(connectionString) {
  return (await sql(connectionString, 'SHOW server_version')).rows[0].server_version
}
