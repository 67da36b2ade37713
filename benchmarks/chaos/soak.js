// One chaos soak: the server made (server.js), one pgloadgen run against
// it with the insert audit and a request timeout, recorded; the faults of
// the schedule done to the server at their moments while the generator's
// resident memory is sampled; then the run stopped, and what the end
// checks read gathered: the run's summary, the backends of the run left on
// the server, the rows the table holds, the changes the run's summary
// found.
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ChaosServer, Teardown } from './server.js'
import { FAULTS } from './faults.js'
import { RssSampler } from './rss.js'

const CLI = fileURLToPath(new URL('../../bin/pgloadgen.js', import.meta.url))
// how long the end may wait for the server to drop the run's backends
const BACKENDS_GONE_MS = 90000
// how long the generator may take to stop and check its inserts
const EXIT_MS = 600000

/**
 * @typedef {object} SoakOptions
 * @property {number} lengthS                     the load's length
 * @property {import('./schedule.js').PlannedFault[]} schedule
 * @property {number} concurrency
 * @property {number} requestTimeoutS
 * @property {(line: string) => void} say
 */

/**
 * @typedef {object} DoneFault
 * @property {import('./schedule.js').PlannedFault} planned
 * @property {number} from_s    when it began, seconds after the load began
 * @property {number} to_s      when it was over
 * @property {string} detail    what it did, or why it could not
 * @property {boolean} done
 */

/**
 * @typedef {object} SoakOutcome
 * @property {any} summary                  the run's JSON summary (null when there is none)
 * @property {number | null} exitCode
 * @property {string} stderrTail
 * @property {DoneFault[]} faults
 * @property {import('./rss.js').RssSample[]} rss
 * @property {Array<{ t_s: number, memory: import('../../lib/recorder/records.js').MemoryFigures }>} memory
 *   the generator's own figures, from its recorded samples
 * @property {number} backendsAtEnd        client backends of the run before it stopped, once settled
 * @property {number} backendsAfter        backends of the run left after it exited, once settled
 * @property {number | null} tableRows     rows in the load's table after the run
 * @property {any[]} changes               what the run's summary.json found changed
 */

/**
 * @param {SoakOptions} options
 * @returns {Promise<SoakOutcome>}
 */
export async function runSoak(options) {
  const teardown = new Teardown()
  // interrupted: the server, its pool and its namespace go all the same
  const interrupted = () => {
    teardown.run().finally(() => process.exit(130))
  }
  process.once('SIGINT', interrupted)
  process.once('SIGTERM', interrupted)
  try {
    options.say('making the server: a network namespace, a ZFS pool for pg_wal, initdb')
    const server = await ChaosServer.create(teardown)
    return await soakOn(server, teardown, options)
  } finally {
    process.off('SIGINT', interrupted)
    process.off('SIGTERM', interrupted)
    await teardown.run()
  }
}

/**
 * @param {ChaosServer} server
 * @param {Teardown} teardown
 * @param {SoakOptions} options
 * @returns {Promise<SoakOutcome>}
 */
async function soakOn(server, teardown, { lengthS, schedule, concurrency, requestTimeoutS, say }) {
  const recordDir = path.join(server.root, 'record')
  const stderrFile = path.join(server.root, 'generator.log')
  const generator = startGenerator(server, { recordDir, stderrFile, concurrency, requestTimeoutS })
  teardown.add(() => generator.stop('SIGKILL'))
  const startedAt = await loadStart(recordDir, generator)
  say(`the load began; ${schedule.length} faults over ${lengthS} s`)
  const rss = new RssSampler(/** @type {number} */ (generator.child.pid))
  /** @type {DoneFault[]} */
  const faults = []
  try {
    for (const planned of schedule) {
      await sleepUntil(startedAt + planned.at_s * 1000)
      faults.push(await doFault(server, planned, { startedAt, requestTimeoutS }))
      const last = /** @type {DoneFault} */ (faults.at(-1))
      say(`${last.from_s} s: ${planned.kind} until ${last.to_s} s: ${last.detail}`)
    }
    await sleepUntil(startedAt + lengthS * 1000)
  } finally {
    rss.stop()
  }
  const backendsAtEnd = await settledCount(server, 'runAtEnd', concurrency)
  generator.stop('SIGTERM')
  const exitCode = await generator.exited(EXIT_MS)
  const backendsAfter = await settledCount(server, 'runAny', 0)
  const stderr = await readFile(stderrFile, 'utf8').catch(() => '')
  say(`the run ended (exit ${exitCode}); backends of the run left: ${backendsAfter}`)
  return {
    summary: generator.summary(),
    exitCode,
    stderrTail: stderr.slice(-3000),
    faults,
    rss: rss.samples,
    memory: await readMemory(recordDir, startedAt),
    backendsAtEnd,
    backendsAfter,
    tableRows: await server
      .query('SELECT count(*)::int AS n FROM test_table')
      .then(rows => rows[0].n)
      .catch(() => null),
    changes: await readChanges(recordDir)
  }
}

/**
 * The generator: pgloadgen run against the server's address, recorded.
 * @param {ChaosServer} server
 * @param {{ recordDir: string, stderrFile: string, concurrency: number, requestTimeoutS: number }} options
 */
function startGenerator(server, { recordDir, stderrFile, concurrency, requestTimeoutS }) {
  const args = [
    CLI,
    'run',
    server.url,
    '-c',
    String(concurrency),
    '--request-timeout',
    String(requestTimeoutS),
    '--record',
    recordDir,
    '--events',
    path.join(server.root, 'events.ndjson'),
    // the disk watch: the free space of the data directory and of pg_wal
    '--data-dir',
    server.dataDir,
    '--verify-timeout',
    '300',
    '--json',
    '-p',
    '0',
    '--log-level',
    'warn'
  ]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const log = createWriteStream(stderrFile)
  child.stderr.pipe(log)
  let out = ''
  child.stdout.on('data', chunk => {
    out += chunk
  })
  /** @type {Promise<number | null>} */
  const closed = new Promise(resolve => child.on('close', code => resolve(code)))
  return {
    child,
    /** @param {NodeJS.Signals} signal */
    stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
    /** @param {number} ms */
    async exited(ms) {
      const timer = setTimeout(() => child.kill('SIGKILL'), ms)
      try {
        return await closed
      } finally {
        clearTimeout(timer)
      }
    },
    running: () => child.exitCode === null && child.signalCode === null,
    summary() {
      try {
        return JSON.parse(out)
      } catch {
        return null
      }
    }
  }
}

/**
 * When the load began, from its first recorded samples (a loaded machine
 * may take a while to start it): the moment the schedule counts from.
 * @param {string} recordDir
 * @param {{ running: () => boolean }} generator
 */
async function loadStart(recordDir, generator) {
  const deadline = Date.now() + 180000
  for (;;) {
    const samples = await readSamples(recordDir)
    const first = samples[0]
    if (first && samples.length >= 3) return Date.parse(first.t) - (first.elapsed_s ?? 1) * 1000
    if (!generator.running()) throw new Error('the generator ended before its load began')
    if (Date.now() > deadline) throw new Error('the load did not begin within 3 minutes')
    await sleep(500)
  }
}

/**
 * Does one fault and times it against the load's start.
 * @param {ChaosServer} server
 * @param {import('./schedule.js').PlannedFault} planned
 * @param {{ startedAt: number, requestTimeoutS: number }} options
 * @returns {Promise<DoneFault>}
 */
async function doFault(server, planned, { startedAt, requestTimeoutS }) {
  const seconds = () => Math.round((Date.now() - startedAt) / 100) / 10
  const from = seconds()
  try {
    const detail = await FAULTS[planned.kind]({ server, planned, requestTimeoutS })
    return { planned, from_s: from, to_s: seconds(), detail, done: true }
  } catch (err) {
    return { planned, from_s: from, to_s: seconds(), detail: `failed: ${errorText(err)}`, done: false }
  }
}

const COUNTS = {
  // the run's client connections while it runs
  runAtEnd:
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'pgloadgen' " +
    "AND backend_type = 'client backend'",
  // every connection of the run (its clients, its statistics, its checks) once it has exited
  runAny: "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'pgloadgen%'"
}

/**
 * The count of backends, waited for (bounded) until it is at most `most`:
 * the server ends a backend whose client went only when it next hears from
 * it. The last count read.
 * @param {ChaosServer} server
 * @param {keyof typeof COUNTS} which
 * @param {number} most
 */
async function settledCount(server, which, most) {
  const deadline = Date.now() + BACKENDS_GONE_MS
  let n = -1
  for (;;) {
    try {
      n = (await server.query(COUNTS[which]))[0].n
      if (n <= most) return n
    } catch {
      // the server may be recovering still
    }
    if (Date.now() > deadline) return n
    await sleep(1000)
  }
}

/** @param {string} recordDir */
async function readSamples(recordDir) {
  const text = await readFile(path.join(recordDir, 'samples.ndjson'), 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
}

/**
 * The generator's memory figures from its recorded samples, at seconds
 * from the load's start.
 * @param {string} recordDir
 * @param {number} startedAt
 */
async function readMemory(recordDir, startedAt) {
  return (await readSamples(recordDir))
    .filter(sample => sample.memory)
    .map(sample => ({ t_s: (Date.parse(sample.t) - startedAt) / 1000, memory: sample.memory }))
}

/**
 * The changes summary.json found, with the moment of the load's start.
 * @param {string} recordDir
 */
async function readChanges(recordDir) {
  try {
    return JSON.parse(await readFile(path.join(recordDir, 'summary.json'), 'utf8')).changes ?? []
  } catch {
    return []
  }
}

/** @param {unknown} err */
function errorText(err) {
  // a command's own words are on its stderr, after the message's first line
  const stderr = String(/** @type {any} */ (err)?.stderr ?? '')
    .trim()
    .split('\n')
    .pop()
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]
  return stderr ? `${first}: ${stderr}` : first
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** @param {number} when   epoch ms */
function sleepUntil(when) {
  return sleep(Math.max(0, when - Date.now()))
}
