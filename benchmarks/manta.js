// The original experiment's mix, pgloadgen against pgbench running the same
// statements as weighted scripts, and the cost of polling the statistics.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { loadWorkload } from '../lib/workloads/index.js'
import { prepareSchema, readMaxId } from '../lib/workloads/schema.js'
import { runPgbench, mantaScripts } from './pgbench.js'
import { alternated, spread, againstGoal } from './stats.js'
import { checkpointer } from './checkpoint.js'
import { holdAutovacuum } from './quiet-table.js'

const CLI = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))
// pgbench cannot send the error probe, so neither side does here.
export const MANTA_WEIGHTS = { insert_row: 60, read_row: 20, update_row: 18, fetch_max: 1 }
export const MANTA_MIX = Object.entries(MANTA_WEIGHTS)
  .map(([t, w]) => `${t}=${w}`)
  .join(',')
// The most resident memory a run at the bench's concurrency may reach.
export const MEMORY_GOAL_MIB = 70

/**
 * @typedef {object} MantaOptions
 * @property {string} url
 * @property {boolean} reset       empty the table first (the bench's own server)
 * @property {number} concurrency
 * @property {number} durationS
 * @property {number} rounds
 * @property {boolean} statsCompare
 * @property {import('../lib/log.js').Logger} log
 */

/**
 * The manta table, ready for a part's runs: on the bench's own server
 * (reset) emptied, with its autovacuum held off (quiet-table.js says why);
 * on a server given by URL created if missing and otherwise left as it is.
 * @param {import('pg').Client} client
 * @param {import('../lib/workloads/contract.js').Workload} workload
 * @param {boolean} reset
 */
export async function prepareMantaTable(client, workload, reset) {
  await prepareSchema(client, workload, { reset })
  if (reset) await holdAutovacuum(client, 'test_table')
}

/** @param {MantaOptions} options */
export async function compareManta({ url, reset, concurrency, durationS, rounds, statsCompare, log }) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    // The bench's own server starts from an empty table every time, so that
    // figures of two runs compare; a server given by URL is left as it is.
    await prepareMantaTable(client, await loadWorkload('manta'), reset)
    // Every timed run starts right after a checkpoint (checkpoint.js says why).
    const checkpoint = checkpointer(client, log)
    /** @param {string[]} extra */
    const generator = async extra => {
      await checkpoint.run()
      return runGenerator(url, [...extra, '-c', String(concurrency), '-d', String(durationS)])
    }
    // One uncounted run first: a cold cache and a table without rows would
    // fall on the first pair.
    await generator(['--no-pg-stats'])
    const pairs = []
    for (let round = 1; round <= rounds; round++) {
      const bench = async () => {
        await checkpoint.run()
        return runPgbench({
          url,
          concurrency,
          durationS,
          scripts: mantaScripts({ maxId: await readMaxId(client, 'test_table'), weights: MANTA_WEIGHTS })
        })
      }
      const [ours, theirs] = await alternated(round, () => generator(['--no-pg-stats']), bench)
      const ratio = ours.throughput / theirs.throughput
      log.info(
        `manta round ${round}/${rounds}: pgloadgen ${ours.throughput} req/s, ` +
          `pgbench ${theirs.throughput.toFixed(1)} req/s, ratio ${ratio.toFixed(3)}`
      )
      pairs.push({ ours, theirs, ratio })
    }
    // The stats collector polling every second against none at all, A B A B:
    // its cost on the generator's throughput and p99.
    const statsPairs = []
    for (let round = 1; statsCompare && round <= rounds; round++) {
      const withStats = await generator(['--stats-interval', '1'])
      const without = await generator(['--no-pg-stats'])
      log.info(
        `stats round ${round}/${rounds}: with 1 s polling ${withStats.throughput} req/s ` +
          `(p99 ${withStats.latency_us.p99} µs), without ${without.throughput} req/s (p99 ${without.latency_us.p99} µs)`
      )
      statsPairs.push({ withStats, without })
    }
    return {
      mix: MANTA_MIX,
      checkpoints: checkpoint.used,
      autovacuum_off: reset,
      ratio: spread(pairs.map(p => p.ratio)),
      // no goal is set for this part: the interval says how far the figure can be trusted
      ratio_interval: againstGoal(
        pairs.map(p => p.ratio),
        null
      ),
      pgloadgen: {
        throughput: spread(pairs.map(p => p.ours.throughput)),
        cpu_us_per_request: spread(pairs.map(p => p.ours.process.cpu_us_per_request)),
        peak_rss_bytes: Math.max(...pairs.map(p => p.ours.process.peak_rss_bytes)),
        latency_us: {
          p50: spread(pairs.map(p => p.ours.latency_us.p50)),
          p99: spread(pairs.map(p => p.ours.latency_us.p99))
        }
      },
      pgbench: {
        throughput: spread(pairs.map(p => p.theirs.throughput)),
        cpu_us_per_request: pairs.every(p => p.theirs.process)
          ? spread(pairs.map(p => p.theirs.process?.us_per_request ?? 0))
          : null,
        peak_rss_bytes: pairs.every(p => p.theirs.process)
          ? Math.max(...pairs.map(p => p.theirs.process?.peak_rss_bytes ?? 0))
          : null,
        latency_us: {
          p50: spread(pairs.map(p => p.theirs.latency_us.p50 ?? 0)),
          p99: spread(pairs.map(p => p.theirs.latency_us.p99 ?? 0))
        }
      },
      memory: peakMemory(
        concurrency,
        pairs.map(p => p.ours),
        statsPairs.map(p => p.withStats),
        pairs.map(p => p.theirs)
      ),
      stats_polling:
        statsPairs.length === 0
          ? null
          : {
              throughput_ratio: spread(statsPairs.map(p => p.withStats.throughput / p.without.throughput)),
              p99_ratio: spread(statsPairs.map(p => p.withStats.latency_us.p99 / p.without.latency_us.p99)),
              with_1s_polling: {
                throughput: spread(statsPairs.map(p => p.withStats.throughput)),
                p99_us: spread(statsPairs.map(p => p.withStats.latency_us.p99))
              },
              without: {
                throughput: spread(statsPairs.map(p => p.without.throughput)),
                p99_us: spread(statsPairs.map(p => p.without.latency_us.p99))
              }
            }
    }
  } finally {
    await client.end()
  }
}

/**
 * Peak resident memory of every timed run: pgloadgen's from its summary
 * (the kernel's high-water mark of the process, as VmHWM), pgbench's from
 * GNU time; the goal is met when no pgloadgen run went above it.
 * @param {number} concurrency
 * @param {any[]} ours  pgloadgen's summaries, without stats polling
 * @param {any[]} polled  pgloadgen's summaries with the collector polling every second
 * @param {any[]} theirs  pgbench's results
 */
export function peakMemory(concurrency, ours, polled, theirs) {
  /** @param {any[]} runs @param {(run: any) => number} peak */
  const peaks = (runs, peak) => (runs.length === 0 ? null : spread(runs.map(peak)))
  const pgloadgen = peaks(ours, run => run.process.peak_rss_bytes)
  const withPolling = peaks(polled, run => run.process.peak_rss_bytes)
  const highest = Math.max(pgloadgen?.max ?? 0, withPolling?.max ?? 0)
  return {
    goal_mib: MEMORY_GOAL_MIB,
    concurrency,
    runs: ours.length + polled.length,
    pgloadgen_peak_rss_bytes: pgloadgen,
    with_stats_polling_peak_rss_bytes: withPolling,
    pgbench_peak_rss_bytes: peaks(theirs, run => run.process.peak_rss_bytes),
    met: highest > 0 && highest <= MEMORY_GOAL_MIB * 2 ** 20
  }
}

/**
 * @param {string} url
 * @param {string[]} extra
 * @returns {Promise<any>} the generator's JSON summary
 */
export function runGenerator(url, extra) {
  return new Promise((resolve, reject) => {
    // The URL goes in the environment: a password on a command line shows in ps.
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--json', '-p', '0', '--mix', MANTA_MIX, '--log-level', 'warn', ...extra],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, PGLOADGEN_PG_URL: url }
      }
    )
    let out = ''
    child.stdout.on('data', c => {
      out += c
    })
    child.on('error', reject)
    child.on('close', code =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`pgloadgen exited with ${code}`))
    )
  })
}
