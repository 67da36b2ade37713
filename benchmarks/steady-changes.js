// How often a steady run reports a change: N recorded runs of D seconds of
// the default workload with nothing done to them, each one's summary.json
// read for its changes. Prints the machine and server the figures came
// from, each run's changes and the load average before and after it, and the share of runs with any change.
//   node benchmarks/steady-changes.js URL [runs] [seconds] [keep-dir]
// With keep-dir, the recorded runs are kept there (to replay the analysis).
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const [url, runsText = '5', secondsText = '120', keep] = process.argv.slice(2)
if (!url) {
  console.error('usage: node benchmarks/steady-changes.js URL [runs] [seconds]')
  process.exit(2)
}
const cli = fileURLToPath(new URL('../bin/pgloadgen.js', import.meta.url))
const runs = Number(runsText)
const seconds = Number(secondsText)
const work = keep ?? (await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-steady-')))
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}; ${new Date().toISOString()}`
)
let withChange = 0
for (let i = 1; i <= runs; i++) {
  const dir = path.join(work, `run-${i}`)
  const loadBefore = os.loadavg()[0]
  try {
    execFileSync(
      process.execPath,
      [cli, 'run', url, '-d', String(seconds), '-c', '4', '-p', '0', '--reset', '--record', dir, '--log-level', 'warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] }
    )
  } catch (error) {
    const stderr = String(/** @type {{ stderr?: Buffer }} */ (error).stderr ?? '').trim()
    console.error(`run ${i} failed: ${stderr.split('\n').pop() || String(error)}`)
    process.exit(1)
  }
  const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8'))
  if (i === 1) console.log(`server: PostgreSQL ${summary.server_version}`)
  const changes = summary.changes ?? []
  if (changes.length > 0) withChange++
  const described = changes.map((/** @type {any} */ c) => {
    const causes = c.causes.map((/** @type {any} */ x) => x.label).join('; ') || 'no cause seen'
    return `${c.metric} at ${c.at_s} s (${c.effect}; ${causes})`
  })
  const load = `load ${loadBefore.toFixed(1)}–${os.loadavg()[0].toFixed(1)}`
  console.log(
    `run ${i} (${load}): ${summary.throughput} requests/s, ${changes.length} change(s)` +
      (changes.length ? `: ${described.join(', ')}` : '')
  )
}
console.log(
  `steady runs with a change: ${withChange} of ${runs} (${((100 * withChange) / runs).toFixed(0)} %), ${seconds} s each`
)
if (!keep) await rm(work, { recursive: true, force: true })
