// A real Prometheus server (Debian's `prometheus` package) started by a test:
// its own temporary config and storage, a free port on 127.0.0.1, stopped and
// removed in the test's teardown. Also the HTTP API calls the tests make.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { waitFor } from './cli.js'
import { installHint } from './tools.js'

export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus'
export const PROMTOOL_BIN = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool'

/**
 * Why a binary cannot be used, or null when it can.
 * @param {string} bin
 * @returns {string | null}
 */
export function missingBinary(bin) {
  if (!existsSync(bin)) return `${bin} not found (or set PROMETHEUS_BIN / PROMTOOL_BIN): ${installHint('prometheus')}`
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' })
  if (probe.status !== 0) return `${bin} --version failed: ${probe.stderr || probe.error}`
  return null
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address())
      server.close(() => resolve(address.port))
    })
  })
}

/**
 * @typedef {object} PromSeries
 * @property {Record<string, string>} metric
 * @property {[number, string][]} [values]   range queries
 * @property {[number, string]} [value]      instant queries
 */

/**
 * @typedef {object} Prometheus
 * @property {string} url          base URL, e.g. http://127.0.0.1:PORT
 * @property {() => string} log    what the server printed
 * @property {(expr: string, time?: number) => Promise<PromSeries[]>} query
 * @property {(expr: string, start: number, end: number, stepS: number) => Promise<PromSeries[]>} queryRange
 * @property {() => Promise<void>} stop
 */

/**
 * Starts Prometheus scraping the given targets (host:port, path /metrics).
 * Resolves once the server is ready.
 * @param {{ teardown: (fn: () => unknown) => void }} t
 * @param {{ targets: string[], scrapeIntervalS?: number, ruleFiles?: string[] }} options  ruleFiles: recording rules to
 *   evaluate
 * @returns {Promise<Prometheus>}
 */
export async function startPrometheus(t, { targets, scrapeIntervalS = 1, ruleFiles = [] }) {
  const dir = await mkdtemp(join(tmpdir(), 'pgloadgen-prometheus-'))
  const config = [
    'global:',
    `  scrape_interval: ${scrapeIntervalS}s`,
    `  scrape_timeout: ${scrapeIntervalS}s`,
    `  evaluation_interval: ${scrapeIntervalS}s`,
    ...(ruleFiles.length > 0 ? ['rule_files:', ...ruleFiles.map(file => `  - '${file}'`)] : []),
    'scrape_configs:',
    '  - job_name: pgloadgen',
    '    metrics_path: /metrics',
    '    static_configs:',
    `      - targets: [${targets.map(target => `'${target}'`).join(', ')}]`,
    ''
  ].join('\n')
  const configFile = join(dir, 'prometheus.yml')
  await writeFile(configFile, config)
  const port = await freePort()
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn'
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let output = ''
  child.stdout.setEncoding('utf8').on('data', chunk => {
    output += chunk
  })
  child.stderr.setEncoding('utf8').on('data', chunk => {
    output += chunk
  })
  let running = true
  /** @type {Promise<void>} */
  const exited = new Promise(resolve =>
    child.on('close', () => {
      running = false
      resolve()
    })
  )
  child.on('error', err => {
    output += `\nspawn error: ${err}`
  })

  const stop = async () => {
    if (running) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000)
      await exited
      clearTimeout(timer)
    }
    await rm(dir, { recursive: true, force: true })
  }
  t.teardown(stop)

  const url = `http://127.0.0.1:${port}`
  await waitFor(
    async () => {
      if (!running) throw new Error(`prometheus exited:\n${output}`)
      const response = await fetch(`${url}/-/ready`)
      await response.text()
      return response.status === 200
    },
    { timeoutMs: 30000, what: `Prometheus on port ${port} to be ready` }
  )

  /**
   * @param {string} path
   * @param {Record<string, string>} params
   */
  const api = async (path, params) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', body: new URLSearchParams(params) })
    const body = /** @type {any} */ (await response.json())
    if (body.status !== 'success') {
      throw new Error(`${body.errorType ?? response.status}: ${body.error ?? JSON.stringify(body)}`)
    }
    return body.data
  }

  return {
    url,
    log: () => output,
    stop,
    async query(expr, time) {
      const params = /** @type {Record<string, string>} */ ({ query: expr })
      if (time !== undefined) params.time = String(time)
      const data = await api('/api/v1/query', params)
      if (data.resultType === 'scalar') return [{ metric: {}, value: data.result }]
      return data.result
    },
    async queryRange(expr, start, end, stepS) {
      const data = await api('/api/v1/query_range', {
        query: expr,
        start: String(start),
        end: String(end),
        step: String(stepS)
      })
      return data.result
    }
  }
}

/**
 * Points of a query result whose value is a finite number.
 * @param {PromSeries[]} series
 */
export function finitePoints(series) {
  let n = 0
  for (const s of series) {
    for (const [, value] of s.values ?? (s.value ? [s.value] : [])) {
      if (Number.isFinite(Number(value))) n++
    }
  }
  return n
}
