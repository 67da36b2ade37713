// The system tools the tests run, from Debian's packages, and the words a
// test fails with when one is missing: which tool, which package, and that
// `npm test` installs it (its first step, test/setup/system.sh). A missing
// tool is a failure, never a skip.
import { spawnSync } from 'node:child_process'

/**
 * How to get a Debian package.
 * @param {string} pkg
 */
export function installHint(pkg) {
  return (
    `install Debian's ${pkg} package (apt-get install -y --no-install-recommends ${pkg}), or run npm test, ` +
    `whose set-up (test/setup/system.sh) installs what is missing`
  )
}

/**
 * Why a tool cannot be run, or null when `tool ...args` exits 0.
 * @param {string} tool   a name looked up on PATH, or a path
 * @param {string} pkg    the Debian package that has it
 * @param {string[]} [args]
 * @returns {string | null}
 */
export function missingTool(tool, pkg, args = ['--version']) {
  const probe = spawnSync(tool, args, { encoding: 'utf8', timeout: 60000 })
  if (probe.error)
    return (
      `${tool} cannot be run ` +
      `(${/** @type {NodeJS.ErrnoException} */ (probe.error).code ?? probe.error.message}): ${installHint(pkg)}`
    )
  if (probe.status !== 0) {
    return `${tool} ${args.join(' ')} failed (exit ${probe.status ?? probe.signal}): ${probe.stderr}`
  }
  return null
}

/**
 * Throws, naming the tool and its package, when it cannot be run. Called at
 * the top of a test file, it fails the file with that message.
 * @param {string} tool
 * @param {string} pkg
 * @param {string[]} [args]
 */
export function requireTool(tool, pkg, args) {
  const problem = missingTool(tool, pkg, args)
  if (problem) throw new Error(problem)
}
