import { InvalidWorkloadError, InputError, reclassified } from '../errors.js'
import { printable } from '../helpers/quote.js'
import { loadWorkload } from './index.js'

/**
 * @typedef {object} WorkloadChoice
 * @property {string | undefined} workload   --workload: a built-in, `pgbench`, or a module's path
 * @property {string[]} files                -f FILE[@WEIGHT]
 * @property {string[]} builtins             -b NAME[@WEIGHT], -S, -N
 * @property {Array<{ file: string } | { builtin: string }>} [order]  the same in command-line order
 * @property {string[]} defines              -D NAME=VALUE
 * @property {number | null} scale           -s
 * @property {string | undefined} randomSeed --random-seed
 * @property {number | null} [seed]         --seed (a plan's seed:): the workload's data and each client's random
 *   numbers; pgbench scripts' --random-seed
 * @property {import('../config/protocol.js').Protocol} protocol  -M: some scripts need a given one
 * @property {Record<string, unknown>} [options]   values of the workload's own options
 * @property {string} [optionsWhere]         how they were given: '--' (flags) or 'options.' (a plan)
 * @property {ReadonlySet<string>} [taken]   names the workload's options may not have
 * @property {string} [baseDir]              where relative paths start
 */

/**
 * The workload a command line asks for, loaded and checked: pgbench
 * scripts when -f or -b are given (or --workload pgbench), else a built-in
 * or a module. Everything here happens before a database is touched.
 * @param {WorkloadChoice} choice
 * @returns {Promise<import('./contract.js').Workload>}
 */
export async function chooseWorkload(choice) {
  try {
    return await choose(choice)
  } catch (err) {
    throw reclassified(err, InvalidWorkloadError)
  }
}

/**
 * @param {WorkloadChoice} choice
 * @returns {Promise<import('./contract.js').Workload>}
 */
async function choose({
  workload,
  files,
  builtins,
  order,
  defines,
  scale,
  randomSeed,
  seed = null,
  protocol,
  options = {},
  optionsWhere = '--',
  taken,
  baseDir
}) {
  const scripted = files.length > 0 || builtins.length > 0
  // the pgbench script parser and runner are loaded only when a run uses them (or -D)
  const definesByName = defines.length > 0 ? (await import('./script-workload.js')).parseDefines(defines) : {}
  if (scripted && workload !== undefined && workload !== 'pgbench') {
    throw new InputError(
      `-f and -b make a workload of pgbench scripts; they cannot be combined with --workload ${printable(workload)}`,
      { code: 'PGLG_CONFLICTING_OPTIONS' }
    )
  }
  if (scripted || workload === 'pgbench') {
    const given = Object.keys(options)
    if (given.length > 0) {
      throw new InputError(`${optionsWhere}${given[0]}: pgbench scripts have no such option`, {
        code: 'PGLG_UNKNOWN_OPTION'
      })
    }
    // --seed is the scripts' --random-seed when that is not given; both would say two things
    if (randomSeed !== undefined && seed !== null) {
      throw new InputError(
        "--seed and --random-seed: give one (--seed seeds the scripts' random functions as --random-seed does)",
        { code: 'PGLG_CONFLICTING_OPTIONS' }
      )
    }
    // pgbench runs tpcb-like when no script is given; so do we.
    const { scriptWorkload } = await import('./script-workload.js')
    const specs = scripted
      ? (order ?? [...files.map(file => ({ file })), ...builtins.map(builtin => ({ builtin }))])
      : [{ builtin: 'tpcb-like' }]
    const scriptSeed = randomSeed ?? (seed === null ? undefined : String(seed))
    return scriptWorkload({ specs, defines: definesByName, scale, randomSeed: scriptSeed, protocol, baseDir })
  }
  if (scale !== null) {
    throw new InputError(
      '-s/--scale sets :scale of pgbench scripts; it does not apply to --workload ' + printable(workload ?? 'manta'),
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  if (randomSeed !== undefined) {
    throw new InputError(
      '--random-seed seeds pgbench scripts; it does not apply to --workload ' + printable(workload ?? 'manta'),
      { code: 'PGLG_NOT_FOR_WORKLOAD' }
    )
  }
  return loadWorkload(workload ?? 'manta', { baseDir, defines: definesByName, options, optionsWhere, taken, seed })
}
