// What of some files is in the kernel's page cache, from util-linux's fincore.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { lines } from './cli.js'

const run = promisify(execFile)

/**
 * Bytes of the files in the page cache, and their size.
 * @param {string[]} files
 */
export async function residency(files) {
  const { stdout } = await run('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'RES,SIZE', ...files])
  let resident = 0
  let size = 0
  for (const line of lines(stdout)) {
    const [res, bytes] = line.trim().split(/\s+/).map(Number)
    resident += res
    size += bytes
  }
  return { resident, size, fraction: size > 0 ? resident / size : 0 }
}
