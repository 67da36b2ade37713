import { quote } from '../helpers/quote.js'
import { RuntimeError, InputError, InvalidWorkloadError } from '../errors.js'
import { checkWorkload } from './check.js'
import { loadScripts } from '../pgbench/scripts.js'
import { ScriptClient } from '../pgbench/runner.js'
import { Variables, isValidVariableName } from '../pgbench/variables.js'
import { Random, defaultSeedFor, parseRandomSeed } from '../pgbench/random.js'
import { ScriptSyntaxError, RandomSeedError } from '../pgbench/errors.js'

/**
 * @typedef {object} ScriptOptions
 * @property {Array<{ file: string } | { builtin: string }>} specs   -f FILE[@WEIGHT] and -b NAME[@WEIGHT], in
 *   command-line order
 * @property {Record<string, string>} defines  -D NAME=VALUE
 * @property {number | null} scale  -s
 * @property {string | undefined} randomSeed   --random-seed: time, rand or a number
 * @property {import('../config/protocol.js').Protocol} protocol
 * @property {string} [baseDir]
 */

/**
 * pgbench's -D NAME=VALUE, each checked before anything runs.
 * @param {string[]} defines
 * @returns {Record<string, string>}
 */
export function parseDefines(defines) {
  /** @type {Record<string, string>} */
  const byName = {}
  for (const define of defines) {
    const equals = define.indexOf('=')
    // pgbench refuses an empty name and an empty value alike.
    if (equals <= 0 || equals === define.length - 1) {
      throw new InputError(`-D: expected NAME=VALUE, got ${quote(define)}`, { code: 'PGLG_INVALID_VALUE' })
    }
    const name = define.slice(0, equals)
    if (!isValidVariableName(name)) {
      throw new InputError(`-D: invalid variable name ${quote(name)}`, { code: 'PGLG_INVALID_NAME' })
    }
    byName[name] = define.slice(equals + 1)
  }
  return byName
}

/**
 * The workload of pgbench scripts: one request type per script, named after
 * its file (or the builtin), weighted as pgbench weights them, and run whole
 * as one request, so its latency is the script's.
 * @param {ScriptOptions} options
 * @returns {Promise<import('./contract.js').Workload>}
 */
export async function scriptWorkload({ specs, defines, scale, randomSeed, protocol, baseDir }) {
  let scripts, seed
  try {
    scripts = await loadScripts({ specs, baseDir, protocol })
    seed = parseRandomSeed(randomSeed ?? 'time')
  } catch (err) {
    // Scripts and seeds the user gave: bad input, one line, exit 2.
    if (err instanceof ScriptSyntaxError) throw new InvalidWorkloadError(err.message, { cause: err })
    if (err instanceof RandomSeedError) throw new InputError(err.message, { code: 'PGLG_INVALID_VALUE', cause: err })
    throw err
  }
  const names = new Set()
  for (const script of scripts) {
    if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,62}$/.test(script.name)) {
      throw new InputError(
        `${script.file}: the request type is named after the file, and ${quote(script.name)} is not a usable name (letters, digits, _ . -, at most 63); rename the file`,
        { code: 'PGLG_INVALID_NAME' }
      )
    }
    if (names.has(script.name)) {
      throw new InputError(
        `two scripts are named "${script.name}": each script is a request type named after its file; rename one`,
        { code: 'PGLG_INVALID_NAME' }
      )
    }
    names.add(script.name)
  }
  const usesBuiltin = scripts.some(script => script.usesBuiltin)
  /** @type {import('./contract.js').WorkloadModule} */
  const module = {
    name: 'pgbench',
    description: `pgbench scripts: ${scripts.map(s => `${s.name}@${s.weight}`).join(', ')}`,
    table: usesBuiltin ? 'pgbench_accounts' : undefined,
    types: scripts.map(script => ({ name: script.name, weight: script.weight })),
    requests: Object.fromEntries(
      scripts.map(script => [
        script.name,
        /** @type {import('./contract.js').RequestFunction} */
        (db, ctx) => /** @type {ScriptClient} */ (ctx.state.script).run(script, db.connection)
      ])
    ),
    // :default_seed is what pgbench draws after one generator per client,
    // so it depends on the number of clients the run starts with.
    setup: async ({ sql, log, concurrency }) => ({
      scale: await scaleOf(sql, { usesBuiltin, scale, log }),
      seed,
      defaultSeed: defaultSeedFor(seed, concurrency)
    }),
    initClient: ctx => {
      const { scale, seed, defaultSeed } = /** @type {{ scale: number, seed: bigint, defaultSeed: bigint }} */ (
        ctx.shared
      )
      const variables = new Variables()
      for (const [name, value] of Object.entries(defines)) variables.set(name, value)
      // pgbench's automatic variables, unless -D gave them.
      const automatic = {
        scale: BigInt(scale),
        client_id: BigInt(ctx.clientId),
        default_seed: defaultSeed,
        random_seed: BigInt.asIntN(64, seed)
      }
      for (const [name, value] of Object.entries(automatic)) if (!variables.has(name)) variables.set(name, value)
      ctx.state.script = new ScriptClient({
        clientId: ctx.clientId,
        variables,
        random: Random.forClient(seed, ctx.clientId)
      })
    }
  }
  return checkWorkload(
    module,
    specs.length === 1 ? ('file' in specs[0] ? specs[0].file : specs[0].builtin) : 'pgbench scripts',
    { scripts: true, defines }
  )
}

/**
 * pgbench's rule for :scale: with a built-in script, the number of rows of
 * pgbench_branches (-s is then ignored, with a warning); otherwise -s, or 1.
 * @param {(text: string) => Promise<Array<Record<string, unknown>>>} sql
 * @param {{ usesBuiltin: boolean, scale: number | null, log: import('../log.js').Logger }} options
 */
async function scaleOf(sql, { usesBuiltin, scale, log }) {
  if (!usesBuiltin) return scale ?? 1
  let rows
  try {
    rows = await sql('SELECT count(*)::bigint AS n FROM pgbench_branches')
  } catch (err) {
    throw new RuntimeError(
      `the built-in scripts need pgbench's tables: ${/** @type {Error} */ (err).message}; run pgloadgen init first`,
      { code: 'PGLG_SCHEMA_FAILED', cause: err }
    )
  }
  const found = Number(rows[0].n)
  if (found === 0) {
    throw new RuntimeError('pgbench_branches is empty; run pgloadgen init first', { code: 'PGLG_SCHEMA_FAILED' })
  }
  if (scale !== null) {
    log.warn(
      `-s ${scale} ignored: the scale is the number of rows of pgbench_branches (${found}), as pgbench does`,
      'PGLG_W_OPTION_LIMITED'
    )
  }
  return found
}
