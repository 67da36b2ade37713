// pgloadgen --threads N against pgbench -j N, the manta mix on both sides
// (without the error probe, which pgbench cannot send), for N = 1 and 2:
// rounds alternating A B, B A, throughput and CPU per request of each.
import pg from 'pg'
import { loadWorkload } from '../lib/workloads/index.js'
import { readMaxId } from '../lib/workloads/schema.js'
import { runPgbench, mantaScripts } from './pgbench.js'
import { runGenerator, prepareMantaTable, MANTA_MIX, MANTA_WEIGHTS } from './manta.js'
import { alternated, spread, againstGoal, againstCeiling } from './stats.js'
import { checkpointer } from './checkpoint.js'

// The ratio each thread count must reach.
export const THREADS_GOAL = 0.95
// The most CPU per request pgloadgen may spend, as a multiple of pgbench's.
export const CPU_GOAL = 1.2

/**
 * @param {{ url: string, reset: boolean, concurrency: number, durationS: number, rounds: number, threads: number[],
 *     log: import('../lib/log.js').Logger }} options
 */
export async function compareThreads({ url, reset, concurrency, durationS, rounds, threads, log }) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const workload = await loadWorkload('manta')
    const results = []
    const checkpoint = checkpointer(client, log)
    for (const n of threads) {
      // The bench's own server starts each thread count from an empty table,
      // so that the rows' absolute figures compare (the table grows by a
      // million rows or so per thread count); a server given by URL is left
      // as it is.
      await prepareMantaTable(client, workload, reset)
      const ours = async () => {
        await checkpoint.run()
        return runGenerator(url, [
          '--no-pg-stats',
          '--threads',
          String(n),
          '-c',
          String(concurrency),
          '-d',
          String(durationS)
        ])
      }
      const theirs = async () => {
        await checkpoint.run()
        return runPgbench({
          url,
          concurrency,
          durationS,
          jobs: n,
          scripts: mantaScripts({ maxId: await readMaxId(client, 'test_table'), weights: MANTA_WEIGHTS })
        })
      }
      await ours() // warm-up, uncounted
      const pairs = []
      for (let round = 1; round <= rounds; round++) {
        const [a, b] = await alternated(round, ours, theirs)
        const ratio = a.throughput / b.throughput
        // CPU seconds (user + system) per request, pgloadgen's over pgbench's, in the same pair
        const cpuRatio = a.process.cpu_us_per_request / (b.process.us_per_request ?? NaN)
        log.info(
          `threads ${n} round ${round}/${rounds}: pgloadgen --threads ${n} ${a.throughput} req/s ` +
            `(${a.process.cpu_us_per_request} µs CPU/req), pgbench -j ${n} ${b.throughput.toFixed(1)} req/s ` +
            `(${b.process?.us_per_request?.toFixed(1)} µs CPU/req), ratio ${ratio.toFixed(3)}`
        )
        pairs.push({ a, b, ratio, cpuRatio })
      }
      results.push({
        threads: n,
        ratio: spread(pairs.map(p => p.ratio)),
        goal: againstGoal(
          pairs.map(p => p.ratio),
          THREADS_GOAL
        ),
        cpu_ratio: spread(pairs.map(p => p.cpuRatio)),
        cpu_goal: againstCeiling(
          pairs.map(p => p.cpuRatio),
          CPU_GOAL
        ),
        pgloadgen: {
          throughput: spread(pairs.map(p => p.a.throughput)),
          cpu_us_per_request: spread(pairs.map(p => p.a.process.cpu_us_per_request))
        },
        pgbench: {
          throughput: spread(pairs.map(p => p.b.throughput)),
          cpu_us_per_request: spread(pairs.map(p => p.b.process.us_per_request ?? NaN))
        }
      })
    }
    return {
      mix: MANTA_MIX,
      rounds,
      duration_s: durationS,
      checkpoints: checkpoint.used,
      autovacuum_off: reset,
      results
    }
  } finally {
    await client.end()
  }
}
