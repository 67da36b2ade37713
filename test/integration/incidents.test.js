// Two incidents with a known start and cause in one recorded run on an
// embedded server: busy-loop processes take the CPU for 12 seconds, 10
// seconds after the first sample, then, 10 seconds later, the server's
// processes are stopped (SIGSTOP) for 10 seconds; the run is stopped
// (SIGINT) 12 seconds after that.
// The lab must see both where they began, name the busy processes as
// children of this test's process, and name the stopped server as the
// cause of the fall of throughput at the pause.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { startEmbedded } from '../helpers/embedded.js'
import { CliRun, sleep, waitFor } from '../helpers/cli.js'
import { measuringAlone } from '../helpers/exclusive.js'
import { readRunSummary } from '../helpers/summary-schema.js'
import { observe } from '../../lib/analysis/observations.js'
import { causesAt } from '../../lib/analysis/explain.js'
import { serverPids } from '../../benchmarks/known-answers/incidents/kinds.js'

// Enough spinners to take a share of a machine whose run queue is already
// long (a 2-core machine at load 25 gives each of 24 about 4 % of a core,
// and the load loses about half its share); shells, which cost little memory.
const SPINNERS = 24
const CPU_AFTER_S = 10
const CPU_FOR_S = 12
const PAUSE_AFTER_S = 10
const PAUSE_FOR_S = 10
const THEN_S = 12

const { url, dataDir } = await startEmbedded(t, { profile: 'lab' })
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-incidents-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/** @param {string} dir */
async function samplesOf(dir) {
  const text = await readFile(path.join(dir, 'samples.ndjson'), 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
}

t.test('another process taking the CPU, then a paused server: seen and named', async t => {
  const dir = path.join(work, 'run')
  // alone: its busy processes would disturb another file's measurement, and
  // another file's load would blur where the contention began
  const { result, cpuAt, pauseAt } = await measuringAlone(async () => {
    const run = new CliRun(
      ['run', url, '-c', '4', '-p', '0', '-P', '0', '--reset', '--record', dir, '--log-level', 'warn'],
      { t }
    )
    await waitFor(async () => (await samplesOf(dir)).length >= 1, { timeoutMs: 60000, what: 'the first sample' })
    const first = (await samplesOf(dir))[0]
    const t0 = Date.parse(first.t) - first.elapsed_s * 1000
    const since = () => (Date.now() - t0) / 1000

    // from when the first sample is seen: a loaded machine may show it late
    await sleep(CPU_AFTER_S * 1000)
    // before the spawns: on a loaded machine two dozen of them take seconds
    const cpuAt = since()
    const spinners = Array.from({ length: SPINNERS }, () =>
      spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' })
    )
    const stopSpinners = () => {
      for (const child of spinners) if (child.exitCode === null) child.kill('SIGKILL')
    }
    t.teardown(stopSpinners)
    await sleep(CPU_FOR_S * 1000)
    stopSpinners()

    await sleep(PAUSE_AFTER_S * 1000)
    const pids = serverPids(dataDir)
    const resume = () => pids.forEach(pid => signal(pid, 'SIGCONT'))
    t.teardown(resume)
    pids.forEach(pid => signal(pid, 'SIGSTOP'))
    const pauseAt = since()
    await sleep(PAUSE_FOR_S * 1000)
    resume()
    await sleep(THEN_S * 1000)
    run.kill('SIGINT')

    return { result: await run.exited, cpuAt, pauseAt }
  })
  t.equal(result.code, 0, `the run succeeds (stderr: ${result.stderr.trim().slice(-400)})`)
  const samples = await samplesOf(dir)
  const seen = observe({ samples, events: [] })

  // the observation that covers the spinners' seconds: it may begin earlier
  // when something else on the machine took the CPU first, and its label
  // must name the spinners
  const cpu = seen.find(
    o => o.kind === 'cpu_contention' && o.from_s <= cpuAt + 4 && (o.to_s ?? Infinity) >= cpuAt + CPU_FOR_S / 2
  )
  t.ok(
    cpu,
    `other processes took the CPU from ${cpuAt.toFixed(1)} s for ${CPU_FOR_S} s (seen: ` +
      `${JSON.stringify(seen.filter(o => o.kind === 'cpu_contention'))})`
  )
  t.match(
    cpu?.label ?? '',
    new RegExp(`\\d+ processes sh, children of pid ${process.pid}`),
    'the busy processes are named by their parent'
  )

  const stopped = seen.find(o => o.kind === 'server_stopped')
  t.ok(
    stopped && Math.abs(stopped.from_s - pauseAt) <= 2,
    `the server's processes stopped from ${pauseAt.toFixed(1)} s (${JSON.stringify(stopped)})`
  )

  // the names given at each moment, from what was recorded, whatever the
  // change-point method finds there
  const window = { before: 5, after: 3 }
  t.equal(causesAt(round(cpuAt), seen, window)[0]?.kind, 'cpu_contention', 'at the CPU contention, it comes first')
  t.equal(causesAt(round(pauseAt), seen, window)[0]?.kind, 'server_stopped', 'at the pause, the stopped server first')

  // whether a change is found there is the change-point method's power on
  // a loaded machine (docs/change-points.md); when one is, its first cause
  // must be the true one
  const summary = await readRunSummary(path.join(dir, 'summary.json'))
  t.ok(Array.isArray(summary.changes), 'summary.json has changes')
  const near = (/** @type {number} */ at) =>
    summary.changes.filter((/** @type {any} */ c) => c.at_s >= at - 3 && c.at_s <= at + 5)
  for (const [at, kind] of /** @type {const} */ ([
    [cpuAt, 'cpu_contention'],
    [pauseAt, 'server_stopped']
  ])) {
    const changes = near(at)
    if (changes.length === 0) t.comment(`no change found at ${at.toFixed(1)} s (${kind})`)
    for (const change of changes) {
      t.equal(change.causes[0]?.kind, kind, `a change at ${at.toFixed(1)} s names ${kind} first (${brief(change)})`)
    }
  }
})

/** @param {any} c */
function brief(c) {
  return [c.at_s, c.metric, c.effect, c.causes.map((/** @type {any} */ x) => x.label)]
}

/** @param {number} pid @param {NodeJS.Signals} name */
function signal(pid, name) {
  try {
    process.kill(pid, name)
  } catch {
    // gone meanwhile
  }
}

/** @param {number} value */
function round(value) {
  return Math.round(value * 10) / 10
}
