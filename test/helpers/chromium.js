// Headless Chromium (Debian's `chromium` package) driven from its command
// line: the DOM of a page after its scripts ran, its console output, and a
// screenshot. Each call uses a fresh profile directory, removed afterwards.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { installHint } from './tools.js'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** The browser: PGLOADGEN_CHROMIUM, else the first of CANDIDATES present; null when none. */
export function findChromium() {
  const chosen = process.env.PGLOADGEN_CHROMIUM
  if (chosen) return chosen
  return CANDIDATES.find(file => existsSync(file)) ?? null
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  '--enable-logging=stderr',
  '--v=0',
  '--virtual-time-budget=5000'
]

/**
 * @param {string[]} args
 * @param {number} timeoutMs
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
async function chromium(args, timeoutMs) {
  const browser = findChromium()
  if (!browser) {
    throw new Error(
      `no Chromium found (tried ${CANDIDATES.join(', ')} and PGLOADGEN_CHROMIUM): ${installHint('chromium')}`
    )
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-chromium-'))
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(browser, [...FLAGS, `--user-data-dir=${profile}`, ...args], {
        cwd: profile,
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8')
      child.stderr.setEncoding('utf8')
      child.stdout.on('data', chunk => {
        stdout += chunk
      })
      child.stderr.on('data', chunk => {
        stderr += chunk
      })
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`chromium did not finish within ${timeoutMs} ms; stderr:\n${stderr}`))
      }, timeoutMs)
      child.on('error', err => {
        clearTimeout(timer)
        reject(err)
      })
      child.on('close', code => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
    })
  } finally {
    await rm(profile, { recursive: true, force: true })
  }
}

/**
 * The page's DOM once its scripts ran, and what its scripts wrote to the
 * console (Chromium logs every console message and uncaught error as a
 * CONSOLE line on stderr, whatever its level).
 * @param {string} file
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<{ dom: string, console: string[], stderr: string }>}
 */
export async function renderPage(file, { timeoutMs = 60000 } = {}) {
  const { code, stdout, stderr } = await chromium(['--dump-dom', pathToFileURL(file).href], timeoutMs)
  if (code !== 0) throw new Error(`chromium --dump-dom exited ${code}; stderr:\n${stderr}`)
  const console = stderr.split('\n').filter(line => /:CONSOLE[:(]/.test(line) || /Uncaught/.test(line))
  return { dom: stdout, console, stderr }
}

/**
 * A PNG of the top of the page.
 * @param {string} file
 * @param {string} png
 * @param {{ width?: number, height?: number, timeoutMs?: number }} [options]
 */
export async function screenshot(file, png, { width = 1400, height = 4000, timeoutMs = 60000 } = {}) {
  const { code, stderr } = await chromium(
    [`--screenshot=${png}`, `--window-size=${width},${height}`, pathToFileURL(file).href],
    timeoutMs
  )
  if (code !== 0) throw new Error(`chromium --screenshot exited ${code}; stderr:\n${stderr}`)
}
