// TSBS cpu-only ingest: pgloadgen's tsbs-cpu workload against psql's \copy
// of the same rows, the way TSBS's data would be loaded by hand. In a
// database of its own on the server: the rows made once into a file of
// COPY text (the workload's own generator and seed, so both sides write the
// very same rows), then rounds alternating A B, B A on a freshly emptied
// tsbs_cpu (TSBS's shape, its two indexes): psql -c "\copy … FROM file",
// and pgloadgen run -w tsbs-cpu -c 1 -t N/batch by binary COPY and by text
// COPY. One stream on each side, as TSBS's loader with one worker.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, open, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { TextRows } from '../lib/workloads/tsbs-cpu/copy-rows.js'
import { CPU_TABLE, FIELDS, ROW_COLUMNS } from '../lib/workloads/tsbs-cpu/schema.js'
import { CpuStream } from '../lib/workloads/tsbs-cpu/stream.js'
import { TSBS_START } from '../lib/workloads/tsbs-cpu/config.js'
import { spread, againstGoal } from './stats.js'
import { checkpointer } from './checkpoint.js'

const CLI = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))
const PSQL = '/usr/bin/psql'
const TIME = '/usr/bin/time'
const DATABASE = 'pgloadgen_bench_ingest'
const SEED = 20160101
const INTERVAL_MS = 10000
// The share of psql's \copy rate each of our methods must reach.
export const INGEST_GOAL = 0.9
export const METHODS = ['copy-binary', 'copy']
// The figures this is read next to: a TimescaleDB talk (PostgreSQL 9.6.2,
// 8 cores, premium SSD, batch inserts) and the sample in TSBS's README (8
// workers, hardware not named).
export const ANCHORS = {
  timescaledb_talk_metrics_per_s: 1110000,
  timescaledb_talk_cores: 8,
  tsbs_readme_metrics_per_s: 1107000,
  tsbs_readme_workers: 8
}

/**
 * @typedef {object} IngestOptions
 * @property {string} url        the server (its maintenance database, say)
 * @property {number} rows       rows each side writes (rounded up to whole batches)
 * @property {number} rounds
 * @property {number} [hosts]
 * @property {number} [batchSize]
 * @property {import('../lib/log.js').Logger} log
 */

/**
 * @typedef {object} Side
 * @property {number} rows_per_s
 * @property {number} cpu_us_per_row   the client's CPU
 * @property {number | null} peak_rss_bytes
 */

/** @param {IngestOptions} options */
export async function compareIngest({ url, rows, rounds, hosts = 100, batchSize = 10000, log }) {
  const batches = Math.ceil(rows / batchSize)
  rows = batches * batchSize
  const benchUrl = await freshDatabase(url)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-ingest-'))
  const admin = new pg.Client({ connectionString: benchUrl })
  try {
    // One batch makes the tables and the hosts' tags; the file uses their ids.
    await runGenerator(benchUrl, [
      '--insert-method',
      'copy-binary',
      '--hosts',
      String(hosts),
      '--batch-size',
      String(batchSize),
      '-t',
      '1'
    ])
    await admin.connect()
    const file = path.join(dir, 'cpu.tsv')
    const bytes = await writeRows(file, await tagIds(admin, hosts), rows, batchSize)
    log.info(`ingest: ${rows} rows (${(bytes / 2 ** 20).toFixed(0)} MiB of COPY text) in ${file}`)
    const checkpoint = checkpointer(admin, log)
    const empty = async () => {
      await admin.query(`TRUNCATE ${CPU_TABLE}`)
      await checkpoint.run()
    }
    const stored = async () => Number((await admin.query(`SELECT count(*) AS n FROM ${CPU_TABLE}`)).rows[0].n)
    /** @type {Record<string, () => Promise<Side>>} */
    const sides = {
      psql: async () => {
        await empty()
        const side = await runPsqlCopy(benchUrl, file, rows)
        if ((await stored()) !== rows) throw new Error(`psql \\copy left ${await stored()} rows, not ${rows}`)
        return side
      }
    }
    for (const method of METHODS) {
      sides[method] = async () => {
        await empty()
        const summary = await runGenerator(benchUrl, [
          '--insert-method',
          method,
          '--hosts',
          String(hosts),
          '--batch-size',
          String(batchSize),
          '-t',
          String(batches),
          '--seed',
          String(SEED)
        ])
        if (summary.rows_written !== rows || (await stored()) !== rows || summary.unexpected_failures !== 0) {
          throw new Error(
            `pgloadgen ${method} wrote ${summary.rows_written} rows (${await stored()} in the table, ` +
              `${summary.unexpected_failures} failures), not ${rows}`
          )
        }
        return {
          rows_per_s: summary.rows_per_s,
          cpu_us_per_row: ((summary.process.cpu_user_s + summary.process.cpu_system_s) * 1e6) / rows,
          peak_rss_bytes: summary.process.peak_rss_bytes
        }
      }
    }
    const order = Object.keys(sides)
    // An uncounted run of each side first: caches warm, the file in the page cache.
    for (const name of order) await sides[name]()
    /** @type {Array<Record<string, Side>>} */
    const results = []
    for (let round = 1; round <= rounds; round++) {
      /** @type {Record<string, Side>} */
      const result = {}
      for (const name of round % 2 === 1 ? order : [...order].reverse()) result[name] = await sides[name]()
      log.info(
        `ingest round ${round}/${rounds}: ` +
          `${order.map(name => `${name} ${Math.round(result[name].rows_per_s)} rows/s`).join(', ')}`
      )
      results.push(result)
    }
    /** @param {string} name */
    const summarize = name => ({
      rows_per_s: spread(results.map(r => r[name].rows_per_s)),
      metrics_per_s: spread(results.map(r => r[name].rows_per_s * FIELDS.length)),
      cpu_us_per_row: spread(results.map(r => r[name].cpu_us_per_row)),
      peak_rss_bytes: results.every(r => r[name].peak_rss_bytes !== null)
        ? Math.max(...results.map(r => /** @type {number} */ (r[name].peak_rss_bytes)))
        : null
    })
    /** @param {string} method the rounds' ratios of a method to psql's \copy */
    const ratios = method => results.map(r => r[method].rows_per_s / r.psql.rows_per_s)
    return {
      rows,
      bytes,
      hosts,
      batch_size: batchSize,
      rounds,
      checkpoints: checkpoint.used,
      psql: summarize('psql'),
      pgloadgen: Object.fromEntries(METHODS.map(method => [method, summarize(method)])),
      ratio: Object.fromEntries(METHODS.map(method => [method, spread(ratios(method))])),
      goal: Object.fromEntries(METHODS.map(method => [method, againstGoal(ratios(method), INGEST_GOAL)])),
      anchors: ANCHORS
    }
  } finally {
    await admin.end().catch(() => {})
    await rm(dir, { recursive: true, force: true })
    await dropDatabase(url)
  }
}

/**
 * An empty database of the bench's own on the server: nothing of the
 * user's is touched.
 * @param {string} url
 */
async function freshDatabase(url) {
  await dropDatabase(url)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${DATABASE}`)
  } finally {
    await client.end()
  }
  const copy = new URL(url)
  copy.pathname = `/${DATABASE}`
  return copy.href
}

/** @param {string} url */
async function dropDatabase(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

/**
 * The tags ids of host_0 … host_{hosts-1}.
 * @param {pg.Client} client
 * @param {number} hosts
 */
async function tagIds(client, hosts) {
  const ids = new Int32Array(hosts)
  const found = (
    await client.query(
      "SELECT id, substring(hostname FROM 6)::int AS n FROM tsbs_tags WHERE hostname ~ '^host_[0-9]+$'"
    )
  ).rows
  for (const { id, n } of found) if (n < hosts) ids[n] = id
  return ids
}

/**
 * The rows pgloadgen's tsbs-cpu makes for the seed, as COPY text in a file.
 * @param {string} file
 * @param {Int32Array} ids
 * @param {number} rows
 * @param {number} batchSize
 * @returns {Promise<number>} bytes
 */
async function writeRows(file, ids, rows, batchSize) {
  const stream = new CpuStream({
    tagIds: ids,
    intervalMs: INTERVAL_MS,
    startMs: Date.parse(TSBS_START),
    firstEpoch: 0,
    clock: 'simulated',
    seed: SEED,
    missing: 0,
    outOfOrder: 0
  })
  const sink = new TextRows()
  const handle = await open(file, 'w')
  let bytes = 0
  try {
    for (let done = 0; done < rows; done += batchSize) {
      sink.begin()
      stream.take(Math.min(batchSize, rows - done), sink)
      const chunks = sink.end()
      await handle.writev(chunks)
      for (const chunk of chunks) bytes += chunk.length
    }
  } finally {
    await handle.close()
  }
  return bytes
}

/**
 * psql -c "\copy tsbs_cpu (…) FROM file": its wall time, and its CPU and
 * peak RSS from /usr/bin/time when there is one.
 * @param {string} url
 * @param {string} file
 * @param {number} rows
 * @returns {Promise<Side>}
 */
async function runPsqlCopy(url, file, rows) {
  const target = new URL(url)
  const password = decodeURIComponent(target.password)
  target.password = ''
  const timeFile = `${file}.time`
  const useTime = existsSync(TIME)
  const psqlArgs = [
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-d',
    target.href,
    '-c',
    `\\copy ${CPU_TABLE} (${ROW_COLUMNS.join(', ')}) FROM '${file}'`
  ]
  const started = performance.now()
  await run(
    useTime ? TIME : PSQL,
    useTime ? ['-f', '%U %S %M', '-o', timeFile, PSQL, ...psqlArgs] : psqlArgs,
    password ? { PGPASSWORD: password } : {}
  )
  const seconds = (performance.now() - started) / 1000
  let cpuUs = NaN
  let rss = null
  if (useTime) {
    const [user, system, maxRssKb] =
      (await readFile(timeFile, 'utf8')).trim().split('\n').pop()?.split(' ').map(Number) ?? []
    cpuUs = (user + system) * 1e6
    rss = maxRssKb * 1024
  }
  return { rows_per_s: rows / seconds, cpu_us_per_row: cpuUs / rows, peak_rss_bytes: rss }
}

/**
 * pgloadgen run -w tsbs-cpu, batches only, one client; its JSON summary.
 * @param {string} url   in the environment: a password on a command line shows in ps
 * @param {string[]} args
 * @returns {Promise<any>}
 */
async function runGenerator(url, args) {
  const out = await run(
    process.execPath,
    [
      CLI,
      'run',
      '-w',
      'tsbs-cpu',
      '--mix',
      'insert_batch=1',
      '-c',
      '1',
      '-d',
      '3600',
      '--json',
      '-p',
      '0',
      '--no-pg-stats',
      '--log-level',
      'warn',
      ...args
    ],
    { PGLOADGEN_PG_URL: url }
  )
  return JSON.parse(out)
}

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<string>} stdout
 */
function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    let out = ''
    let err = ''
    child.stdout.on('data', c => {
      out += c
    })
    child.stderr.on('data', c => {
      err += c
    })
    child.on('error', reject)
    child.on('close', code =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(
              `${path.basename(args[0] === CLI ? 'pgloadgen' : cmd)} exited with ${code}: ` +
                `${err.trim().split('\n').slice(-2).join(' ')}`
            )
          )
    )
  })
}
