import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const CLI = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))

/**
 * Runs the generator at high concurrency and samples its resident memory
 * every few seconds, to show that nothing grows without bound.
 * @param {{ url: string, concurrency: number, durationS: number, sampleS?: number }} options
 */
export async function runSoak({ url, concurrency, durationS, sampleS = 5 }) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      '-c',
      String(concurrency),
      '-d',
      String(durationS),
      '--json',
      '-p',
      '0',
      '--log-level',
      'warn',
      '--no-pg-stats'
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PGLOADGEN_PG_URL: url }
    }
  )
  let out = ''
  child.stdout.on('data', c => {
    out += c
  })
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', code => (code === 0 ? resolve(undefined) : reject(new Error(`pgloadgen exited with ${code}`))))
  })
  /** @type {Array<{ t_s: number, rss_bytes: number }>} */
  const samples = []
  const started = Date.now()
  const timer = setInterval(async () => {
    const rss = await residentBytes(/** @type {number} */ (child.pid))
    if (rss !== null) samples.push({ t_s: Math.round((Date.now() - started) / 1000), rss_bytes: rss })
  }, sampleS * 1000)
  try {
    await exited
  } finally {
    clearInterval(timer)
  }
  const summary = JSON.parse(out)
  // The first samples include start-up (JIT, first allocations); growth is
  // judged after a warm-up of a fifth of the run.
  const steady = samples.filter(s => s.t_s >= durationS / 5)
  const first = steady[0]?.rss_bytes ?? null
  const last = steady[steady.length - 1]?.rss_bytes ?? null
  return {
    concurrency,
    duration_s: durationS,
    throughput: summary.throughput,
    unexpected_failures: summary.unexpected_failures,
    connections_ok: summary.reconnects === 0,
    rss_samples: samples,
    rss_growth_after_warmup_bytes: first !== null && last !== null ? last - first : null,
    peak_rss_bytes: summary.process.peak_rss_bytes
  }
}

/** @param {number} pid */
async function residentBytes(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1])
    return Number.isFinite(kb) ? kb * 1024 : null
  } catch {
    return null
  }
}
