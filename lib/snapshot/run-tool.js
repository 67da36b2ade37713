import { execFile } from 'node:child_process'
import { RuntimeError, MissingToolError } from '../errors.js'

/**
 * Runs a system tool and returns its stdout; a failure becomes one line
 * naming the tool and what it said.
 * @param {string} file
 * @param {string[]} args
 * @returns {Promise<string>}
 */
export function runTool(file, args) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout)
      const code = /** @type {NodeJS.ErrnoException} */ (err).code
      if (code === 'ENOENT') return reject(new MissingToolError(`${file} is not installed`, { cause: err }))
      const said =
        String(stderr || stdout)
          .trim()
          .split('\n')
          .pop() || err.message
      reject(new RuntimeError(`${file} ${args[0]} failed: ${said}`, { code: 'PGLG_TOOL_FAILED', cause: err }))
    })
  })
}
