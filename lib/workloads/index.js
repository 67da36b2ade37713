import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { InvalidWorkloadError, InputError, reclassified } from '../errors.js'
import { printable, quote } from '../helpers/quote.js'
import { checkWorkload } from './check.js'
/** @typedef {import('./contract.js').Workload} Workload */

// The workloads that ship with pgloadgen, written as any module is, loaded
// when named. The pgbench scripts (`pgbench`) are a workload too;
// lib/pgbench makes it.
/** @type {Record<string, () => Promise<{ default: unknown }>>} */
export const BUILTIN_WORKLOADS = {
  manta: () => import('./manta.js'),
  timeseries: () => import('./timeseries.js'),
  'tsbs-cpu': () => import('./tsbs-cpu/index.js'),
  tgres: () => import('./tgres/index.js'),
  fleet: () => import('./fleet/index.js')
}

/**
 * Whether --workload names a file or a directory rather than a built-in.
 * @param {string} spec
 */
export function isWorkloadPath(spec) {
  return spec.includes('/') || spec.includes(path.sep) || /\.m?js$/.test(spec)
}

/**
 * What a workload's module exports, unchecked: a built-in's, or a file's.
 * @param {string} spec
 * @param {string} [baseDir]
 * @returns {Promise<unknown>}
 */
export async function rawWorkloadModule(spec, baseDir = process.cwd()) {
  if (!isWorkloadPath(spec)) {
    return Object.hasOwn(BUILTIN_WORKLOADS, spec) ? (await BUILTIN_WORKLOADS[spec]()).default : null
  }
  return (await import(pathToFileURL(moduleFile(path.resolve(baseDir, spec), spec)).href)).default
}

/**
 * A built-in workload by name, or a module loaded from a file or directory
 * (relative to baseDir). Loading runs the module's top-level code; a module
 * that fails to load is one line, exit 2.
 * @param {string} spec
 * @param {{ baseDir?: string, defines?: Readonly<Record<string, string>>, options?: Record<string, unknown>,
 *     optionsWhere?: string, taken?: ReadonlySet<string>, seed?: number | null }} [given]
 *   options: values of the workload's own options; seed: the run's --seed (see check.js)
 * @returns {Promise<Workload>}
 */
export async function loadWorkload(spec, given = {}) {
  try {
    return await load(spec, given)
  } catch (err) {
    throw reclassified(err, InvalidWorkloadError)
  }
}

/**
 * @param {string} spec
 * @param {Parameters<typeof loadWorkload>[1]} [given]
 * @returns {Promise<Workload>}
 */
async function load(spec, { baseDir = process.cwd(), ...given } = {}) {
  if (!isWorkloadPath(spec)) {
    const builtin = Object.hasOwn(BUILTIN_WORKLOADS, spec) ? BUILTIN_WORKLOADS[spec] : undefined
    if (!builtin) {
      throw new InputError(
        `unknown workload ${quote(spec)} (built-in: ${[...Object.keys(BUILTIN_WORKLOADS), 'pgbench'].join(', ')}; or give a module's path, e.g. ./my-workload.js)`,
        { code: 'PGLG_INVALID_CHOICE' }
      )
    }
    return checkWorkload((await builtin()).default, spec, given)
  }
  const file = moduleFile(path.resolve(baseDir, spec), spec)
  let exported
  try {
    exported = (await import(pathToFileURL(file).href)).default
  } catch (err) {
    const error = /** @type {Error} */ (err)
    throw new InvalidWorkloadError(
      `cannot load workload ${printable(spec)}: ${error.name}: ` + String(error.message).split('\n')[0],
      { cause: error }
    )
  }
  return checkWorkload(exported, spec, given)
}

/**
 * The module file of a path: the file itself, or a directory's package.json
 * "main" or index.js.
 * @param {string} resolved
 * @param {string} spec   as the user gave it, for errors
 */
function moduleFile(resolved, spec) {
  if (!existsSync(resolved)) {
    throw new InputError(`cannot load workload ${printable(spec)}: no such file or directory`, {
      code: 'PGLG_UNREADABLE_FILE'
    })
  }
  if (!statSync(resolved).isDirectory()) return resolved
  const manifest = path.join(resolved, 'package.json')
  if (existsSync(manifest)) {
    try {
      const main = JSON.parse(readFileSync(manifest, 'utf8')).main
      if (typeof main === 'string') return path.join(resolved, main)
    } catch (err) {
      throw new InputError(`cannot load workload ${printable(spec)}: its package.json is not valid JSON`, {
        code: 'PGLG_UNREADABLE_FILE',
        cause: err
      })
    }
  }
  const index = path.join(resolved, 'index.js')
  if (!existsSync(index)) {
    throw new InvalidWorkloadError(
      `cannot load workload ${printable(spec)}: a directory needs an index.js (or a package.json "main")`
    )
  }
  return index
}
