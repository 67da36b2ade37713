// The ZFS tools the space probe (zfs-space.js) runs: where they are, one
// run bounded in time and output, and the dataset and pool that hold a
// directory.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { statfs } from 'node:fs/promises'
import path from 'node:path'
import { MissingToolError } from '../errors.js'

const LOOKUP_TIMEOUT_MS = 10000
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024

// statfs(2) f_type of a ZFS mount: native ZFS, and FUSE (zfs-fuse mounts
// its datasets through FUSE, as fuse.zfs)
const ZFS_SUPER_MAGIC = 0x2fc12fc1
const FUSE_SUPER_MAGIC = 0x65735546

/**
 * A ZFS tool's path: on PATH, else where zfs-fuse's package puts it (/sbin).
 * @param {string} name
 */
export function toolPath(name) {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/sbin',
    '/usr/sbin',
    '/usr/local/sbin'
  ]
  for (const dir of dirs) if (existsSync(path.join(dir, name))) return path.join(dir, name)
  return name
}

/**
 * Runs a tool, bounded in time and output; resolves with stdout.
 * @param {string} file
 * @param {string[]} args
 * @param {{ timeoutMs: number, signal?: AbortSignal }} options
 * @returns {Promise<string>}
 */
export function runZfsTool(file, args, { timeoutMs, signal }) {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT_BYTES, signal },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout)
        const failure = /** @type {NodeJS.ErrnoException & { killed?: boolean }} */ (err)
        const what = `${path.basename(file)} ${args.join(' ')}`
        if (failure.code === 'ENOENT') {
          return reject(new MissingToolError(`${path.basename(file)} is not installed`, { cause: err }))
        }
        // not coded: zfs-space.js warns of these and keeps its last figures
        if (failure.name === 'AbortError') return reject(new Error(`${what}: stopped`))
        if (failure.killed) return reject(new Error(`${what}: no answer within ${timeoutMs / 1000} s (killed)`))
        const output = String(stderr || stdout).trim()
        const said = output.split('\n').filter(Boolean)[0] || failure.message
        reject(Object.assign(new Error(`${what} failed: ${said}`), { output }))
      }
    )
  })
}

/**
 * The ZFS dataset and pool that hold a directory, or null when it is not on
 * ZFS (or no ZFS tool answers). A directory on another filesystem costs a
 * statfs, nothing more.
 * @param {string} dir
 * @returns {Promise<{ dataset: string, pool: string } | null>}
 */
export async function zfsDatasetOf(dir) {
  const fs = await statfs(dir).catch(() => null)
  if (!fs || (fs.type !== ZFS_SUPER_MAGIC && fs.type !== FUSE_SUPER_MAGIC)) return null
  const out = await runZfsTool(toolPath('zfs'), ['list', '-H', '-o', 'name', dir], {
    timeoutMs: LOOKUP_TIMEOUT_MS
  }).catch(() => null)
  const dataset = out?.trim().split('\n')[0]
  if (!dataset) return null
  return { dataset, pool: dataset.split('/')[0] }
}
