// One test file at a time for the measurements that another file's load
// would disturb (a steady run that must show no change, a run whose change
// must stand out): the test files run three at a time, so such a file waits
// here for another to finish its measurement. A directory made with
// mkdir is the lock (atomic on every filesystem); one whose process is
// gone is taken over.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { sleep } from './cli.js'
import { isAlive } from './process.js'

const LOCK = path.join(os.tmpdir(), 'pgloadgen-test-measurement.lock')

/**
 * Runs fn while no other test file runs a measurement of its own.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {{ timeoutMs?: number }} [options]  how long to wait for the other (then run anyway)
 * @returns {Promise<T>}
 */
export async function measuringAlone(fn, { timeoutMs = 120000 } = {}) {
  const deadline = Date.now() + timeoutMs
  let held = false
  while (!held && Date.now() < deadline) {
    try {
      await mkdir(LOCK)
      await writeFile(path.join(LOCK, 'pid'), String(process.pid))
      held = true
    } catch {
      const owner = Number(await readFile(path.join(LOCK, 'pid'), 'utf8').catch(() => ''))
      if (owner > 0 && !isAlive(owner)) await rm(LOCK, { recursive: true, force: true })
      else await sleep(250)
    }
  }
  try {
    return await fn()
  } finally {
    if (held) await rm(LOCK, { recursive: true, force: true })
  }
}
