import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'

// What an argument of `pgloadgen compare` names, before anything is read:
// a recorded run (a `pgloadgen run --record DIR` directory), or a variant
// of an experiment, given as EXPDIR/variants/NAME or EXPDIR:NAME, whose
// repetitions (rep-1 … rep-n) are that entry's repetitions. Every refusal
// is one line (InputError, exit 2).

/**
 * @typedef {object} EntryPath
 * @property {string} arg          as given
 * @property {'run' | 'variant'} kind
 * @property {string} dir          the run's directory, or the variant's (EXPDIR/variants/NAME)
 * @property {string | null} experiment   EXPDIR of a variant
 * @property {string | null} variant      NAME of a variant
 * @property {string[]} runDirs    the run directories: the run itself, or the repetitions in order
 */

/**
 * @param {string} arg
 * @returns {Promise<EntryPath>}
 */
export async function resolveEntryPath(arg) {
  if (arg.trim() === '') {
    throw new InputError('compare: an empty argument: give a run directory or EXPDIR:VARIANT', {
      code: 'PGLG_MISSING_VALUE'
    })
  }
  const info = await stat(arg).catch(() => null)
  if (info) {
    if (!info.isDirectory()) throw new InputError(`compare: not a directory: ${arg}`, { code: 'PGLG_INVALID_RUN_DIR' })
    if (await exists(path.join(arg, 'run.json'))) {
      return { arg, kind: 'run', dir: arg, experiment: null, variant: null, runDirs: [await endedRun(arg, arg)] }
    }
    const parent = path.dirname(path.resolve(arg))
    if (path.basename(parent) === 'variants' && (await exists(path.join(path.dirname(parent), 'experiment.json')))) {
      return variantEntry(arg, path.dirname(parent), path.basename(path.resolve(arg)))
    }
    if (await exists(path.join(arg, 'experiment.json'))) {
      throw new InputError(
        `compare: ${arg} is an experiment: give one of its variants as ${arg}:NAME or ${path.join(arg, 'variants', 'NAME')} (${await variantList(arg)})`,
        { code: 'PGLG_INVALID_RUN_DIR' }
      )
    }
    throw new InputError(
      `compare: ${arg} is not a recorded run (no run.json: pgloadgen run --record DIR writes one) nor an experiment's variant`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  const colon = arg.lastIndexOf(':')
  if (colon > 0 && colon < arg.length - 1) {
    const experiment = arg.slice(0, colon)
    const name = arg.slice(colon + 1)
    const expInfo = await stat(experiment).catch(() => null)
    if (expInfo) {
      if (!expInfo.isDirectory() || !(await exists(path.join(experiment, 'experiment.json')))) {
        throw new InputError(
          `compare: ${experiment} is not an experiment directory (no experiment.json), so ${arg} names no variant`,
          { code: 'PGLG_INVALID_RUN_DIR' }
        )
      }
      return variantEntry(arg, experiment, name)
    }
  }
  // EXPDIR/variants/NAME of an experiment that has no such variant
  const parent = path.dirname(path.resolve(arg))
  if (path.basename(parent) === 'variants' && (await exists(path.join(path.dirname(parent), 'experiment.json')))) {
    return variantEntry(arg, path.dirname(parent), path.basename(path.resolve(arg)))
  }
  throw new InputError(`compare: no such directory: ${arg}`, { code: 'PGLG_INVALID_RUN_DIR' })
}

/**
 * A variant and its repetitions, each an ended run.
 * @param {string} arg
 * @param {string} experiment
 * @param {string} name
 * @returns {Promise<EntryPath>}
 */
async function variantEntry(arg, experiment, name) {
  const dir = path.join(experiment, 'variants', name)
  const info = await stat(dir).catch(() => null)
  if (!info || !info.isDirectory() || name.includes('/') || name === '.' || name === '..') {
    throw new InputError(
      `compare: the experiment ${experiment} has no variant "${name}" (${await variantList(experiment)})`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  const reps = (await readdir(dir, { withFileTypes: true }))
    .filter(e => e.isDirectory() && /^rep-\d+$/.test(e.name))
    .map(e => e.name)
    .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
  if (reps.length === 0) {
    throw new InputError(`compare: the variant ${name} of ${experiment} has no repetitions (no rep-1 directory)`, {
      code: 'PGLG_INVALID_RUN_DIR'
    })
  }
  const runDirs = []
  for (const rep of reps) runDirs.push(await endedRun(path.join(dir, rep), arg))
  return { arg, kind: 'variant', dir, experiment, variant: name, runDirs }
}

/**
 * A run directory that has run.json and summary.json (its run ended).
 * @param {string} dir
 * @param {string} arg   named in the refusal
 */
async function endedRun(dir, arg) {
  if (!(await exists(path.join(dir, 'run.json')))) {
    throw new InputError(
      `compare: ${dir} has no run.json: not a recorded run (pgloadgen run --record DIR)${dir === arg ? '' : `, in ${arg}`}`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  if (!(await exists(path.join(dir, 'summary.json')))) {
    throw new InputError(
      `compare: ${dir} has no summary.json: its run did not end${dir === arg ? '' : ` (in ${arg})`}`,
      { code: 'PGLG_INVALID_RUN_DIR' }
    )
  }
  return dir
}

/**
 * "its variants: a, b", or that it has none.
 * @param {string} experiment
 */
async function variantList(experiment) {
  const entries = await readdir(path.join(experiment, 'variants'), { withFileTypes: true }).catch(() => [])
  const names = entries
    .filter(e => e.isDirectory())
    .map(e => e.name)
    .sort()
  return names.length ? `its variants: ${names.join(', ')}` : 'it has no variants'
}

/** @param {string} file */
async function exists(file) {
  return stat(file).then(
    () => true,
    () => false
  )
}
