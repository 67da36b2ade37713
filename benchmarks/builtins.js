// pgbench's built-in scripts run by pgloadgen against pgbench itself: the
// tables made by pgloadgen init, then for each script rounds alternating
// A B, B A, … on the same server, with the TPC-B invariant checked after
// every run of either side.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { runPgbench } from './pgbench.js'
import { alternated, spread, againstGoal } from './stats.js'

const CLI = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))
export const BUILTINS = ['tpcb-like', 'simple-update', 'select-only']
// The share of pgbench's rate each script must reach.
export const BUILTINS_GOAL = 0.9

/**
 * @typedef {object} BuiltinOptions
 * @property {string} url
 * @property {number} scale
 * @property {number} concurrency
 * @property {number} durationS
 * @property {number} rounds
 * @property {boolean} reinit   make the tables even when some exist (the bench's own server)
 * @property {import('../lib/log.js').Logger} log
 */

/**
 * @param {BuiltinOptions} options
 */
export async function compareBuiltins({ url, scale, concurrency, durationS, rounds, reinit, log }) {
  // A server given by URL keeps pgbench tables it has: nothing of the user's is dropped.
  const existing = await branches(url)
  const ownTables = reinit || existing === null
  if (!ownTables) {
    log.info(`builtins: using the server's pgbench tables (scale ${existing})`)
    scale = /** @type {number} */ (existing)
  }
  const results = []
  for (const builtin of BUILTINS) {
    // Fresh tables for each script, so that its own invariant can be checked.
    if (ownTables) {
      log.info(`builtins: pgloadgen init -s ${scale} for ${builtin}`)
      await runCli(['init', '-s', String(scale), '--yes', '-q', '--log-level', 'warn'], url)
    }
    const invariant = async () => tpcbInvariant(url, ownTables ? builtin : null)
    // An uncounted run of each side first: caches and plans warm.
    await runGenerator(builtin, { url, concurrency, durationS: Math.min(durationS, 10) })
    await runPgbench({ url, concurrency, durationS: Math.min(durationS, 10), scripts: ['-b', builtin] })
    const pairs = []
    for (let round = 1; round <= rounds; round++) {
      const generatorSide = async () => {
        const summary = await runGenerator(builtin, { url, concurrency, durationS })
        return { summary, invariant: await invariant() }
      }
      const pgbenchSide = async () => ({
        result: await runPgbench({ url, concurrency, durationS, scripts: ['-b', builtin] }),
        invariant: await invariant()
      })
      const [generator, bench] = await alternated(round, generatorSide, pgbenchSide)
      const ratio = generator.summary.throughput / bench.result.throughput
      log.info(
        `${builtin} round ${round}/${rounds}: pgloadgen ${generator.summary.throughput} tps, ` +
          `pgbench ${bench.result.throughput.toFixed(1)} tps, ratio ${ratio.toFixed(3)}; ` +
          `unexpected failures ${generator.summary.unexpected_failures}; ` +
          `invariant ${generator.invariant.holds && bench.invariant.holds ? 'holds' : 'BROKEN'}`
      )
      pairs.push({ generator, bench, ratio })
    }
    results.push({
      builtin,
      ratio: spread(pairs.map(p => p.ratio)),
      goal: againstGoal(
        pairs.map(p => p.ratio),
        BUILTINS_GOAL
      ),
      pgloadgen: {
        throughput: spread(pairs.map(p => p.generator.summary.throughput)),
        cpu_us_per_request: spread(pairs.map(p => p.generator.summary.process.cpu_us_per_request)),
        p50_us: spread(pairs.map(p => p.generator.summary.latency_us.p50)),
        p99_us: spread(pairs.map(p => p.generator.summary.latency_us.p99)),
        unexpected_failures: pairs.reduce((n, p) => n + p.generator.summary.unexpected_failures, 0)
      },
      pgbench: {
        throughput: spread(pairs.map(p => p.bench.result.throughput)),
        cpu_us_per_request: pairs.every(p => p.bench.result.process)
          ? spread(pairs.map(p => p.bench.result.process?.us_per_request ?? 0))
          : null,
        p50_us: spread(pairs.map(p => p.bench.result.latency_us.p50 ?? 0)),
        p99_us: spread(pairs.map(p => p.bench.result.latency_us.p99 ?? 0))
      },
      invariant_held: pairs.every(p => p.generator.invariant.holds && p.bench.invariant.holds),
      last_invariant: pairs.at(-1)?.generator.invariant ?? null
    })
  }
  return { scale, concurrency, duration_s: durationS, rounds, results }
}

/**
 * The scale of the server's pgbench tables, or null when there are none.
 * @param {string} url
 */
async function branches(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const found = (await client.query("SELECT to_regclass('pgbench_branches') IS NOT NULL AS found")).rows[0].found
    if (!found) return null
    const n = Number((await client.query('SELECT count(*) AS n FROM pgbench_branches')).rows[0].n)
    return n > 0 ? n : null
  } finally {
    await client.end()
  }
}

/**
 * TPC-B's books. Every script that changes a balance logs the change in the
 * history, and tpcb-like changes a teller's and its branch's balance by the
 * same amount: so the accounts' sum is the history's, and the tellers' the
 * branches'. On tables that only tpcb-like changed since they were made,
 * all four sums are one number.
 * @param {string} url
 * @param {string | null} onlyScript  the one script that ran since the tables were made, if known
 */
export async function tpcbInvariant(url, onlyScript) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const row = (
      await client.query(`SELECT
      (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts)::bigint AS accounts,
      (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches)::bigint AS branches,
      (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers)::bigint AS tellers,
      (SELECT coalesce(sum(delta), 0) FROM pgbench_history)::bigint AS history`)
    ).rows[0]
    const sums = {
      accounts: Number(row.accounts),
      branches: Number(row.branches),
      tellers: Number(row.tellers),
      history: Number(row.history)
    }
    const books = sums.accounts === sums.history && sums.tellers === sums.branches
    return { ...sums, holds: onlyScript === 'tpcb-like' ? books && sums.accounts === sums.branches : books }
  } finally {
    await client.end()
  }
}

/**
 * @param {string} builtin
 * @param {{ url: string, concurrency: number, durationS: number }} options
 * @returns {Promise<any>} the JSON summary
 */
async function runGenerator(builtin, { url, concurrency, durationS }) {
  const out = await runCli(
    [
      'run',
      '-b',
      builtin,
      '-c',
      String(concurrency),
      '-d',
      String(durationS),
      '--json',
      '-p',
      '0',
      '--no-pg-stats',
      '--log-level',
      'warn'
    ],
    url
  )
  return JSON.parse(out)
}

/**
 * @param {string[]} args
 * @param {string} url  in the environment: a password on a command line shows in ps
 * @returns {Promise<string>} stdout
 */
function runCli(args, url) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PGLOADGEN_PG_URL: url }
    })
    let out = ''
    child.stdout.on('data', c => {
      out += c
    })
    child.on('error', reject)
    child.on('close', code =>
      code === 0 ? resolve(out) : reject(new Error(`pgloadgen ${args[0]} exited with ${code}`))
    )
  })
}
