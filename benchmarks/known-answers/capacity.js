// The known-answer suite's capacity part: `pgloadgen capacity` against
// servers whose limit is computable. A pgbench script of one
// `SELECT pg_sleep(d)` over c clients is a queue with c servers and a fixed
// service time D (the statement's own time, measured on one connection:
// the sleep, its overshoot and the round trip); fed by the open loop's
// Poisson arrivals it is an M/D/c queue, whose highest rate that keeps the
// objective's percentile is computed by simulation (capacity-truth.js). The
// search's answer is set beside it: its error, whether it settled, its
// stated confidence and the time it took.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { queueCapacity } from './capacity-truth.js'

const CLI = fileURLToPath(new URL('../../bin/pgloadgen.js', import.meta.url))

/**
 * @typedef {object} CapacityCase
 * @property {number} clients    c
 * @property {number} sleepMs    d
 * @property {number} limitMs    the objective: p99 below this
 */

/** The sizes: the issue's own, a faster one with more clients, a slower one with fewer. */
export const CAPACITY_CASES = [
  { clients: 4, sleepMs: 10, limitMs: 60 },
  { clients: 8, sleepMs: 5, limitMs: 20 },
  { clients: 2, sleepMs: 20, limitMs: 100 }
]

// the targets
const WITHIN = 0.1
const MIN_CONFIDENCE = 0.9
const MAX_SECONDS = 180

/**
 * @typedef {object} CapacityCaseResult
 * @property {CapacityCase} size
 * @property {number} serviceMs      D as measured: the statement's mean time on one connection
 * @property {number} truth          requests/s: M/D/c with that D
 * @property {number} truthGeneral   requests/s: M/G/c with the measured times themselves (their spread too)
 * @property {number} stable         c / D
 * @property {any} out               the command's --json
 * @property {number} seconds        the search's wall time
 */

/**
 * One size: D measured, the truth computed, the search run.
 * @param {string} url
 * @param {CapacityCase} size
 * @param {number} seed
 * @param {string} dir
 * @returns {Promise<CapacityCaseResult>}
 */
export async function runCapacityCase(url, size, seed, dir) {
  const samples = await measureService(url, size.sleepMs, 200)
  const serviceMs = samples.reduce((a, b) => a + b, 0) / samples.length
  const queue = { servers: size.clients, serviceMs, quantile: 0.99, limitMs: size.limitMs, seed }
  const truth = queueCapacity(queue)
  const general = queueCapacity({ ...queue, serviceSamples: samples })
  const script = path.join(dir, `sleep-${size.sleepMs}.sql`)
  await writeFile(script, `SELECT pg_sleep(${size.sleepMs / 1000});\n`)
  // a start the search does not know: between a tenth and a half of the stable rate
  const u = mulberry32(seed)
  const startRate = Math.round(truth.stable * (0.1 + 0.4 * u()))
  const args = [
    'capacity',
    url,
    '-f',
    script,
    '-c',
    String(size.clients),
    '--objective',
    `p99<${size.limitMs}ms`,
    '--start-rate',
    String(startRate),
    '--seed',
    String(seed),
    '--json'
  ]
  const started = performance.now()
  const { code, stdout, stderr } = await runCli(args)
  const seconds = (performance.now() - started) / 1000
  if (code !== 0) throw new Error(`pgloadgen capacity exited ${code}: ${stderr.trim().split('\n').pop()}`)
  const out = JSON.parse(stdout)
  return { size, serviceMs, truth: truth.rate, truthGeneral: general.rate, stable: truth.stable, out, seconds }
}

/**
 * The times of the sleep statement on one connection, ms: D of the queue is their mean.
 * @param {string} url
 * @param {number} sleepMs
 * @param {number} n
 * @returns {Promise<number[]>}
 */
export async function measureService(url, sleepMs, n) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const sql = `SELECT pg_sleep(${sleepMs / 1000})`
    for (let i = 0; i < 10; i++) await client.query(sql)
    const times = []
    for (let i = 0; i < n; i++) {
      const started = performance.now()
      await client.query(sql)
      times.push(performance.now() - started)
    }
    return times
  } finally {
    await client.end()
  }
}

/**
 * The row of one size.
 * @param {CapacityCaseResult} r
 * @returns {import('./contract.js').KnownAnswerRow}
 */
export function capacityRow(r) {
  const { size, out } = r
  const found = out.capacity
  const settled = out.verdict === 'bracketed'
  const confidence = out.interval?.confidence ?? null
  const error = found === null ? null : found / r.truth - 1
  const pct = (/** @type {number} */ x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`
  const result =
    found === null
      ? `${out.verdict}, ${Math.round(r.seconds)} s`
      : `${found} req/s [${out.interval.low}–${out.interval.high}], ${out.verdict}, ` +
        `${Math.round((confidence ?? 0) * 100)} % conf., ${Math.round(r.seconds)} s`
  return {
    part: 'capacity',
    scenario: `pg_sleep(${size.sleepMs / 1000}) -c ${size.clients}, p99<${size.limitMs}ms`,
    cases: 1,
    result,
    truth:
      `${r.truth.toFixed(0)} req/s (M/D/${size.clients}, D ${r.serviceMs.toFixed(2)} ms; ` +
      `M/G/${size.clients} ${r.truthGeneral.toFixed(0)})`,
    error: error === null ? 'no capacity' : pct(error),
    target: `±10 %, settled, ≥ 90 % conf., ≤ ${MAX_SECONDS / 60} min`,
    met:
      error !== null &&
      Math.abs(error) <= WITHIN &&
      settled &&
      (confidence ?? 0) >= MIN_CONFIDENCE &&
      r.seconds <= MAX_SECONDS
  }
}

/**
 * @param {import('./contract.js').KnownAnswerContext} context
 * @returns {Promise<import('./contract.js').KnownAnswerRow[]>}
 */
export async function run({ seed, quick, say }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-capacity-known-'))
  const server = new EmbeddedServer({
    dataDir: dir,
    profileFile: resolveProfile('default'),
    log: createLogger({ level: 'warn' })
  })
  try {
    const url = await server.start()
    /** @type {import('./contract.js').KnownAnswerRow[]} */
    const rows = []
    const cases = quick ? CAPACITY_CASES.slice(0, 1) : CAPACITY_CASES
    for (const [i, size] of cases.entries()) {
      say(`capacity: pg_sleep(${size.sleepMs / 1000}) over ${size.clients} clients, p99<${size.limitMs}ms`)
      const row = capacityRow(await runCapacityCase(url, size, seed + i, dir))
      say(`capacity: ${row.result}; truth ${row.truth}; error ${row.error}`)
      rows.push(row)
    }
    return rows
  } finally {
    await server.shutdown().catch(() => {})
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The CLI as a child process, without the caller's NODE_OPTIONS (a test runner's hooks).
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runCli(args) {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  delete env.LOG_LEVEL
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => (stdout += chunk))
    child.stderr.on('data', chunk => (stderr += chunk))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}
