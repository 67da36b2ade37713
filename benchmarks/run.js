#!/usr/bin/env node
// npm run bench: pgloadgen against pgbench on the same server, same mix,
// same concurrency, alternating A B A B so that drift cancels out.
import { parseArgs } from 'node:util'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { EmbeddedServer } from '../lib/embedded/server.js'
import { resolveProfile } from '../lib/embedded/profile.js'
import { createLogger } from '../lib/log.js'
import { manta } from '../lib/workloads/manta.js'
import { prepareSchema, readMaxId } from '../lib/workloads/schema.js'
import { runPgbench } from './pgbench.js'
import { spread } from './stats.js'
import { runSoak } from './soak.js'

const CLI = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))
// pgbench cannot send the error probe, so neither side does here.
const WEIGHTS = { insert_row: 60, read_row: 20, update_row: 18, fetch_max: 1 }
const MIX = Object.entries(WEIGHTS).map(([t, w]) => `${t}=${w}`).join(',')

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', short: 'c', default: '8' },
    duration: { type: 'string', short: 'd', default: '15' },
    rounds: { type: 'string', short: 'r', default: '5' },
    'data-dir': { type: 'string', default: './.pgloadgen/bench-pgdata' },
    profile: { type: 'string', default: 'lab' },
    json: { type: 'boolean', default: false },
    'soak-concurrency': { type: 'string', default: '256' },
    'soak-duration': { type: 'string', default: '60' },
    'no-soak': { type: 'boolean', default: false },
    'no-stats-compare': { type: 'boolean', default: false }
  }
})

const log = createLogger({ level: process.env.LOG_LEVEL ?? 'info' })
const concurrency = Number(values.concurrency)
const durationS = Number(values.duration)
const rounds = Number(values.rounds)
if (![concurrency, durationS, rounds].every(n => Number.isInteger(n) && n > 0)) {
  process.stderr.write('bench: --concurrency, --duration and --rounds must be positive whole numbers\n')
  process.exit(2)
}

const url = positionals[0] ?? process.env.PGLOADGEN_PG_URL
const embedded = url ? null : new EmbeddedServer({ dataDir: /** @type {string} */ (values['data-dir']), profileFile: resolveProfile(/** @type {string} */ (values.profile)), log })
const connectionString = url ?? await /** @type {EmbeddedServer} */ (embedded).start()

try {
  const client = new pg.Client({ connectionString })
  await client.connect()
  // The bench's own server starts from an empty table every time, so that
  // figures of two runs compare; a server given by URL is left as it is.
  await prepareSchema(client, manta, { reset: embedded !== null })
  // One uncounted run first: a cold cache and a table without rows would
  // fall on the first pair.
  await runGenerator(['--no-pg-stats'], durationS)
  const serverVersion = (await client.query('SHOW server_version')).rows[0].server_version

  const pairs = []
  for (let round = 1; round <= rounds; round++) {
    // A B, then B A: the order alternates too, so that a drift within a
    // round does not always favour the same side.
    const runBench = async () => runPgbench({ url: connectionString, concurrency, durationS, maxId: await readMaxId(client, manta), weights: WEIGHTS })
    let generator, bench
    if (round % 2 === 1) {
      generator = await runGenerator(['--no-pg-stats'])
      bench = await runBench()
    } else {
      bench = await runBench()
      generator = await runGenerator(['--no-pg-stats'])
    }
    const ratio = generator.throughput / bench.throughput
    log.info(`round ${round}/${rounds}: pgloadgen ${generator.throughput} req/s, pgbench ${bench.throughput.toFixed(1)} req/s, ratio ${ratio.toFixed(3)}`)
    pairs.push({ generator, pgbench: bench, ratio })
  }
  // The stats collector polling every second against none at all, A B A B:
  // its cost on the generator's throughput and p99.
  const statsPairs = []
  if (!values['no-stats-compare']) {
    for (let round = 1; round <= rounds; round++) {
      const withStats = await runGenerator(['--stats-interval', '1'])
      const without = await runGenerator(['--no-pg-stats'])
      log.info(`stats round ${round}/${rounds}: with 1 s polling ${withStats.throughput} req/s (p99 ${withStats.latency_us.p99} µs), without ${without.throughput} req/s (p99 ${without.latency_us.p99} µs)`)
      statsPairs.push({ withStats, without })
    }
  }
  await client.end()

  const soak = values['no-soak']
    ? null
    : await runSoak({ url: connectionString, concurrency: Number(values['soak-concurrency']), durationS: Number(values['soak-duration']) })

  const result = {
    server_version: serverVersion,
    concurrency,
    duration_s: durationS,
    rounds,
    mix: MIX,
    ratio: spread(pairs.map(p => p.ratio)),
    pgloadgen: {
      throughput: spread(pairs.map(p => p.generator.throughput)),
      cpu_us_per_request: spread(pairs.map(p => p.generator.process.cpu_us_per_request)),
      peak_rss_bytes: Math.max(...pairs.map(p => p.generator.process.peak_rss_bytes)),
      latency_us: { p50: spread(pairs.map(p => p.generator.latency_us.p50)), p99: spread(pairs.map(p => p.generator.latency_us.p99)) }
    },
    pgbench: {
      throughput: spread(pairs.map(p => p.pgbench.throughput)),
      cpu_us_per_request: pairs.every(p => p.pgbench.process) ? spread(pairs.map(p => p.pgbench.process?.us_per_request ?? 0)) : null,
      peak_rss_bytes: pairs.every(p => p.pgbench.process) ? Math.max(...pairs.map(p => p.pgbench.process?.peak_rss_bytes ?? 0)) : null,
      latency_us: { p50: spread(pairs.map(p => p.pgbench.latency_us.p50 ?? 0)), p99: spread(pairs.map(p => p.pgbench.latency_us.p99 ?? 0)) }
    },
    stats_polling: statsPairs.length === 0
      ? null
      : {
          throughput_ratio: spread(statsPairs.map(p => p.withStats.throughput / p.without.throughput)),
          p99_ratio: spread(statsPairs.map(p => p.withStats.latency_us.p99 / p.without.latency_us.p99)),
          with_1s_polling: { throughput: spread(statsPairs.map(p => p.withStats.throughput)), p99_us: spread(statsPairs.map(p => p.withStats.latency_us.p99)) },
          without: { throughput: spread(statsPairs.map(p => p.without.throughput)), p99_us: spread(statsPairs.map(p => p.without.latency_us.p99)) }
        },
    soak
  }
  if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else printTable(result)
} finally {
  await embedded?.stop()
}

/**
 * @param {string[]} extra
 * @param {number} [seconds]
 * @returns {Promise<any>} the generator's JSON summary
 */
function runGenerator (extra, seconds = durationS) {
  return new Promise((resolve, reject) => {
    // The URL goes in the environment: a password on a command line shows in ps.
    const child = spawn(process.execPath, [CLI, 'run', '-c', String(concurrency), '-d', String(seconds), '--json', '-p', '0', '--mix', MIX, '--log-level', 'warn', ...extra], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PGLOADGEN_PG_URL: connectionString }
    })
    let out = ''
    child.stdout.on('data', c => { out += c })
    child.on('error', reject)
    child.on('close', code => code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`pgloadgen exited with ${code}`)))
  })
}

/** @param {any} r */
function printTable (r) {
  /** @param {{ min: number, median: number, max: number }} s @param {number} [d] */
  const f = (s, d = 0) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`
  const mib = (/** @type {number | null} */ b) => b === null ? 'n/a' : `${(b / 1048576).toFixed(0)} MiB`
  const lines = [
    `PostgreSQL ${r.server_version}, concurrency ${r.concurrency}, ${r.rounds} rounds of ${r.duration_s} s each, mix ${r.mix}`,
    '',
    '| | pgloadgen | pgbench |',
    '|---|---|---|',
    `| throughput (req/s), median (min–max) | ${f(r.pgloadgen.throughput)} | ${f(r.pgbench.throughput)} |`,
    `| CPU µs per request | ${f(r.pgloadgen.cpu_us_per_request, 1)} | ${r.pgbench.cpu_us_per_request ? f(r.pgbench.cpu_us_per_request, 1) : 'n/a'} |`,
    `| peak RSS | ${mib(r.pgloadgen.peak_rss_bytes)} | ${mib(r.pgbench.peak_rss_bytes)} |`,
    `| p50 latency (µs) | ${f(r.pgloadgen.latency_us.p50)} | ${f(r.pgbench.latency_us.p50)} |`,
    `| p99 latency (µs) | ${f(r.pgloadgen.latency_us.p99)} | ${f(r.pgbench.latency_us.p99)} |`,
    '',
    `ratio pgloadgen / pgbench: ${f(r.ratio, 3)}`
  ]
  if (r.stats_polling) {
    const p = r.stats_polling
    lines.push('', `stats polling every 1 s vs none (${r.rounds} pairs): throughput ratio ${f(p.throughput_ratio, 3)}, p99 ratio ${f(p.p99_ratio, 3)}`,
      `  with polling ${f(p.with_1s_polling.throughput)} req/s, p99 ${f(p.with_1s_polling.p99_us)} µs; without ${f(p.without.throughput)} req/s, p99 ${f(p.without.p99_us)} µs`)
  }
  if (r.soak) {
    const s = r.soak
    lines.push('', `soak: concurrency ${s.concurrency} for ${s.duration_s} s, ${s.throughput} req/s, ${s.unexpected_failures} unexpected failures`,
      `  RSS every 5 s (MiB): ${s.rss_samples.map((/** @type {{ rss_bytes: number }} */ x) => (x.rss_bytes / 1048576).toFixed(0)).join(' ')}`,
      `  growth after warm-up: ${mib(s.rss_growth_after_warmup_bytes)}, peak ${mib(s.peak_rss_bytes)}`)
  }
  process.stdout.write(lines.join('\n') + '\n')
}
