// Spawns the real CLI (bin/pgloadgen.js) as a child process and collects what
// it prints; the tests drive it exactly as a user would.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { assertValidSummary } from './summary-schema.js'

export const CLI = fileURLToPath(new URL('../../bin/pgloadgen.js', import.meta.url))
export const REPO = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The command line that starts the CLI with args, as a user would start it.
 * tap puts its process-tracking hook into every child's NODE_OPTIONS, at
 * spawn time, whatever env a spawn is given; `env -u` takes it out again
 * before node starts (env execs node: the pid is the CLI's). The hook would
 * cost each CLI process about 0.6 s of CPU (module loading through a loader
 * thread), the largest part of a short command's cost, on a machine whose
 * tests are CPU-bound.
 * @param {string[]} args
 * @returns {string[]}
 */
export function cliCommand(args) {
  return ['env', '-u', 'NODE_OPTIONS', process.execPath, CLI, ...args]
}

// The commands whose --json output is a run summary (docs/summary.schema.json).
const SUMMARY_COMMANDS = ['run', 'merge']

// Variables that would change where the CLI connects or how much it logs: the
// tests always start from none of them, then add what they need.
const HERMETIC_UNSET = ['PGLOADGEN_PG_URL', 'DATABASE_URL', 'LOG_LEVEL']

/** This process's environment without HERMETIC_UNSET: what a CLI under test starts from. */
export function hermeticEnv() {
  const env = { ...process.env }
  for (const name of HERMETIC_UNSET) delete env[name]
  return env
}

/**
 * @typedef {object} CliResult
 * @property {number | null} code
 * @property {NodeJS.Signals | null} signal
 * @property {string} stdout
 * @property {string} stderr
 * @property {number} elapsedMs
 * @property {any} summary   the parsed --json summary, or null
 */

/**
 * A running CLI process.
 */
export class CliRun {
  /**
   * @param {string[]} args
   * @param {{ env?: Record<string, string>, t?: { teardown: (fn: () => unknown) => void }, cwd?: string }} [options]
   */
  constructor(args, { env = {}, t, cwd = REPO } = {}) {
    const childEnv = hermeticEnv()
    Object.assign(childEnv, env)
    this.args = args
    this.stdout = ''
    this.stderr = ''
    this.started = Date.now()
    /** @type {Set<() => void>} */
    this.stderrListeners = new Set()
    const [file, ...argv] = cliCommand(args)
    this.child = spawn(file, argv, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    this.child.stdout.setEncoding('utf8')
    this.child.stderr.setEncoding('utf8')
    this.child.stdout.on('data', chunk => {
      this.stdout += chunk
    })
    this.child.stderr.on('data', chunk => {
      this.stderr += chunk
      for (const listener of this.stderrListeners) listener()
    })
    /** @type {Promise<CliResult>} */
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code, signal) => {
        const elapsedMs = Date.now() - this.started
        const summary = parseSummary(this.stdout)
        try {
          // every summary a test sees follows the published schema
          if (summary !== null && SUMMARY_COMMANDS.includes(args[0])) {
            assertValidSummary(summary, `the --json summary of pgloadgen ${args[0]}`)
          }
        } catch (err) {
          reject(err)
          return
        }
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr, elapsedMs, summary })
      })
    })
    this.running = true
    this.exited
      .finally(() => {
        this.running = false
      })
      .catch(() => {})
    // Never leave a generator behind when a test fails half-way.
    t?.teardown(async () => {
      if (!this.running) return
      this.child.kill('SIGKILL')
      await this.exited
    })
  }

  /** @param {NodeJS.Signals} signal */
  kill(signal) {
    if (this.running) this.child.kill(signal)
  }

  /**
   * Resolves with the first match of pattern in stderr; rejects when the
   * process exits first or after timeoutMs.
   * @param {RegExp} pattern
   * @param {number} [timeoutMs]
   * @returns {Promise<RegExpExecArray>}
   */
  waitForStderr(pattern, timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stderr)
        if (match) {
          cleanup()
          resolve(match)
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms; stderr so far:\n${this.stderr}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.stderrListeners.delete(check)
      }
      this.stderrListeners.add(check)
      this.exited.then(() => {
        check()
        if (this.stderrListeners.has(check)) {
          cleanup()
          reject(new Error(`the CLI exited before ${pattern} appeared on stderr; stderr:\n${this.stderr}`))
        }
      })
      check()
    })
  }

  /** The /metrics URL the CLI logs once its HTTP server listens. */
  async metricsUrl(timeoutMs = 30000) {
    const match = await this.waitForStderr(/pgloadgen info: metrics on (http:\/\/\S+\/metrics)/, timeoutMs)
    return match[1]
  }
}

/**
 * Runs the CLI to completion.
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, t?: { teardown: (fn: () => unknown) => void }, cwd?: string }} [options]
 * @returns {Promise<CliResult>}
 */
export function runCli(args, options) {
  return new CliRun(args, options).exited
}

/** @param {string} stdout */
function parseSummary(stdout) {
  const text = stdout.trim()
  if (!text.startsWith('{')) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/**
 * Non-empty lines of a text.
 * @param {string} text
 */
export function lines(text) {
  return text.split('\n').filter(line => line.trim() !== '')
}

/**
 * Polls fn until it returns a truthy value, which is returned.
 * @template T
 * @param {() => Promise<T> | T} fn
 * @param {{ timeoutMs?: number, intervalMs?: number, what?: string }} [options]
 * @returns {Promise<T>}
 */
export async function waitFor(fn, { timeoutMs = 20000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs
  let lastError
  for (;;) {
    try {
      const value = await fn()
      if (value) return value
    } catch (err) {
      lastError = err
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ''}`)
    }
    await sleep(intervalMs)
  }
}

/** @param {number} ms */
export function sleep(ms) {
  return new Promise(resolve => setTimeout(resolve, ms))
}
