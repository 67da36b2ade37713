import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
import { withControlClient } from '../pg/control-client.js'
import { redactUrl } from '../config/pg-url.js'
import { PGLOADGEN_VERSION } from '../recorder/run-info.js'
import { writeReport } from '../report/index.js'
import { MIN_REPETITIONS } from '../results/bootstrap-interval.js'
import { verdictLines } from '../results/statistics.js'
import { checkDiskThrottle } from '../lab/disk-throttle.js'
import { groupOf, openServerGroups } from './server-groups.js'
import { preparePhase } from './prepare-phase.js'
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
    throw new InputError(`--out ${out} is not empty; give a new directory`, { code: 'PGLG_UNUSABLE_OUT_DIR' })
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
    const info = await experimentInfo(plan, groups, outDir, startedAt)
    await writeFile(path.join(outDir, 'experiment.json'), JSON.stringify(info, null, 2) + '\n')

    if (plan.repetitions < MIN_REPETITIONS) {
      log.warn(
        `repetitions: ${plan.repetitions}, fewer than ${MIN_REPETITIONS}: the report gives no confidence interval and cannot tell the variants apart`,
        'PGLG_W_FEW_REPETITIONS'
      )
    }
    // one prepare phase per major, with the same row counts
    for (const group of groups) if (!stop.requested) await preparePhase(contextOf(group))
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
    // the verdicts in words: worse only when Welch's interval excludes no difference
    if (written.summary) {
      for (const line of verdictLines(JSON.parse(await readFile(written.summary, 'utf8')))) log.info(line)
    }
    log.info(`report: ${path.join(outDir, 'report.html')}`)
    return stop.requested ? 1 : 0
  } finally {
    await closeServerGroups(groups, log)
  }
}

/**
 * experiment.json as it is written at the start: the plan, and each
 * server's major, version, variants and prepare directory.
 * @param {import('./plan.js').Plan} plan
 * @param {import('./server-groups.js').ServerGroup[]} groups
 * @param {string} outDir
 * @param {Date} startedAt
 */
async function experimentInfo(plan, groups, outDir, startedAt) {
  const servers = []
  for (const group of groups)
    servers.push({
      major: group.major,
      version: await showVersion(group.connectionString),
      variants: group.variants,
      prepare: path.relative(outDir, group.prepareDir)
    })
  return {
    name: plan.name,
    plan: planForRecord(plan),
    started_at: startedAt.toISOString(),
    ended_at: null,
    pgloadgen_version: PGLOADGEN_VERSION,
    postgres_version: servers.map(s => s.version).join(', '),
    servers
  }
}

/**
 * Stops the embedded servers the experiment started and releases their
 * disk limits, saying what went through them.
 * @param {import('./server-groups.js').ServerGroup[]} groups
 * @param {import('../log.js').Logger} log
 */
async function closeServerGroups(groups, log) {
  for (const { server, diskThrottle } of groups) {
    await server?.stop().catch(err => log.warn(`stopping the embedded server: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    if (diskThrottle) {
      const io = await diskThrottle.counters().catch(() => null)
      if (io) {
        log.info(
          `disk limit: the server read ${(io.readBytes / 1e6).toFixed(0)} MB in ${io.reads} reads and wrote ${(io.writeBytes / 1e6).toFixed(0)} MB in ${io.writes} writes through it`
        )
      }
      await diskThrottle.release().catch(err => log.warn(`disk limit: ${err.message}`, 'PGLG_W_CLEANUP_FAILED'))
    }
  }
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
