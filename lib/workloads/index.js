import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { UsageError } from '../errors.js'
import { checkWorkload } from './contract.js'
import manta from './manta.js'
import timeseries from './timeseries.js'

/** @typedef {import('./contract.js').Workload} Workload */

// The workloads that ship with pgloadgen, written as any module is. The
// pgbench scripts (`pgbench`) are a workload too; lib/pgbench makes it.
/** @type {Record<string, import('./contract.js').WorkloadModule>} */
export const BUILTIN_WORKLOADS = { manta, timeseries }

/**
 * Whether --workload names a file or a directory rather than a built-in.
 * @param {string} spec
 */
export function isWorkloadPath (spec) {
  return spec.includes('/') || spec.includes(path.sep) || /\.m?js$/.test(spec)
}

/**
 * A built-in workload by name, or a module loaded from a file or directory
 * (relative to baseDir). Loading runs the module's top-level code; a module
 * that fails to load is one line, exit 2.
 * @param {string} spec
 * @param {{ baseDir?: string, defines?: Readonly<Record<string, string>> }} [options]
 * @returns {Promise<Workload>}
 */
export async function loadWorkload (spec, { baseDir = process.cwd(), defines = {} } = {}) {
  if (!isWorkloadPath(spec)) {
    const builtin = Object.hasOwn(BUILTIN_WORKLOADS, spec) ? BUILTIN_WORKLOADS[spec] : undefined
    if (!builtin) throw new UsageError(`unknown workload "${spec}" (built-in: ${[...Object.keys(BUILTIN_WORKLOADS), 'pgbench'].join(', ')}; or give a module's path, e.g. ./my-workload.js)`)
    return checkWorkload(builtin, spec, { defines })
  }
  const file = moduleFile(path.resolve(baseDir, spec), spec)
  let exported
  try {
    exported = (await import(pathToFileURL(file).href)).default
  } catch (err) {
    const error = /** @type {Error} */ (err)
    throw new UsageError(`cannot load workload ${spec}: ${error.name}: ${String(error.message).split('\n')[0]}`)
  }
  return checkWorkload(exported, spec, { defines })
}

/**
 * The module file of a path: the file itself, or a directory's package.json
 * "main" or index.js.
 * @param {string} resolved
 * @param {string} spec   as the user gave it, for errors
 */
function moduleFile (resolved, spec) {
  if (!existsSync(resolved)) throw new UsageError(`cannot load workload ${spec}: no such file or directory`)
  if (!statSync(resolved).isDirectory()) return resolved
  const manifest = path.join(resolved, 'package.json')
  if (existsSync(manifest)) {
    try {
      const main = JSON.parse(readFileSync(manifest, 'utf8')).main
      if (typeof main === 'string') return path.join(resolved, main)
    } catch {
      throw new UsageError(`cannot load workload ${spec}: its package.json is not valid JSON`)
    }
  }
  const index = path.join(resolved, 'index.js')
  if (!existsSync(index)) throw new UsageError(`cannot load workload ${spec}: a directory needs an index.js (or a package.json "main")`)
  return index
}
