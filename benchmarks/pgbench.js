import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { quantileSorted } from './stats.js'

const SCRIPTS = fileURLToPath(new URL('./pgbench/', import.meta.url))

/**
 * The pgbench arguments of the manta mix as weighted scripts.
 * @param {{ maxId: number, weights: Record<string, number> }} options
 */
export function mantaScripts({ maxId, weights }) {
  return [
    '-D',
    `maxid=${Math.max(1, maxId)}`,
    ...Object.entries(weights)
      .filter(([, w]) => w > 0)
      .flatMap(([type, w]) => ['-f', `${path.join(SCRIPTS, type)}.sql@${w}`])
  ]
}

// GNU time gives pgbench's CPU seconds and peak resident memory; the bench
// compares both, so a machine without it stops the bench (apt-get install -y time).
export const TIME = '/usr/bin/time'

/**
 * Runs pgbench with the given scripts (prepared protocol, one thread, like
 * the generator's one event loop, no vacuum before the run) and reads back
 * its per-transaction log for percentiles.
 * @param {{ url: string, concurrency: number, durationS: number, scripts: string[], jobs?: number,
 *   time?: string }} options  scripts: pgbench's script arguments (-f, -b, -D); jobs: pgbench's -j
 *   (default 1); time: GNU time's path
 */
export async function runPgbench({ url, concurrency, durationS, scripts, jobs = 1, time = TIME }) {
  if (!existsSync(time)) {
    throw new Error(`${time} is missing: pgbench's CPU and peak memory need GNU time (apt-get install -y time)`)
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-bench-'))
  try {
    const args = [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(concurrency),
      '-j',
      String(jobs),
      '-T',
      String(durationS),
      '-l',
      '--log-prefix',
      path.join(dir, 'tx'),
      ...scripts,
      withoutPassword(url)
    ]
    const timeFile = path.join(dir, 'time')
    const output = await run(time, ['-f', '%U %S %M', '-o', timeFile, 'pgbench', ...args], dir, passwordOf(url))
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1])
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(output)?.[1])
    const latencies = await readLatencies(dir)
    const timeLine = (await readFile(timeFile, 'utf8')).trim().split('\n').pop() ?? ''
    const [user, system, maxRssKb] = timeLine.split(' ').map(Number)
    const cpu = {
      user_s: user,
      system_s: system,
      us_per_request: transactions ? ((user + system) * 1e6) / transactions : null,
      peak_rss_bytes: maxRssKb * 1024
    }
    return {
      throughput: tps,
      requests: transactions,
      latency_us: { p50: quantileSorted(latencies, 0.5), p99: quantileSorted(latencies, 0.99) },
      process: cpu
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** @param {string} dir */
async function readLatencies(dir) {
  const values = []
  for (const name of await readdir(dir)) {
    if (!name.startsWith('tx')) continue
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      const fields = line.split(' ')
      if (fields.length >= 3) values.push(Number(fields[2]))
    }
  }
  return Float64Array.from(values).sort()
}

/** @param {string} url */
function withoutPassword(url) {
  const copy = new URL(url)
  copy.password = ''
  return copy.href
}

/** @param {string} url */
function passwordOf(url) {
  return decodeURIComponent(new URL(url).password)
}

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {string} cwd
 * @param {string} password  given to pgbench in PGPASSWORD, not on its command line
 * @returns {Promise<string>}
 */
function run(cmd, args, cwd, password) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(password && { PGPASSWORD: password }) }
    })
    let output = ''
    child.stdout.on('data', c => {
      output += c
    })
    child.stderr.on('data', c => {
      output += c
    })
    child.on('error', reject)
    child.on('close', code =>
      code === 0
        ? resolve(output)
        : reject(new Error(`pgbench exited with ${code}: ${output.trim().split('\n').slice(-2).join(' ')}`))
    )
  })
}
