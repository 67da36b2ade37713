import { rawWorkloadModule } from '../workloads/index.js'
import { camelCase } from '../workloads/options.js'

/**
 * The option declarations of the workload a `run` command line names, read
 * before the command line is parsed, so that its own flags (`--hosts 100`)
 * are known to the parser. A workload that fails to load has none here; the
 * run reports why it failed, once the parse is done.
 * @param {readonly string[]} argv
 * @returns {Promise<Record<string, import('../workloads/options.js').OptionSpec>>}
 */
export async function workloadOptionSpecs(argv) {
  // capacity takes run's workload flags too
  if (argv[0] !== 'run' && argv[0] !== 'capacity') return {}
  const spec = workloadArgument(argv)
  if (spec === null || spec === 'pgbench') return {}
  try {
    const module = await rawWorkloadModule(spec)
    const options = /** @type {{ options?: unknown } | null} */ (module)?.options
    return typeof options === 'object' && options !== null
      ? /** @type {Record<string, import('../workloads/options.js').OptionSpec>} */ (options)
      : {}
  } catch {
    return {}
  }
}

/**
 * The value of -w/--workload in the raw arguments, or null.
 * @param {readonly string[]} argv
 */
function workloadArgument(argv) {
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') break
    if ((token === '-w' || token === '--workload') && i + 1 < argv.length) return argv[i + 1]
    if (token.startsWith('--workload=')) return token.slice('--workload='.length)
    if (token.startsWith('-w') && !token.startsWith('--') && token.length > 2) return token.slice(2).replace(/^=/, '')
  }
  return null
}

/**
 * The values yargs parsed for the workload's flags, by their declared names.
 * @param {Record<string, import('../workloads/options.js').OptionSpec>} specs
 * @param {Record<string, unknown>} args
 */
export function workloadFlagValues(specs, args) {
  /** @type {Record<string, unknown>} */
  const values = {}
  for (const name of Object.keys(specs)) {
    const value = args[camelCase(name)]
    if (value !== undefined) values[name] = value
  }
  return values
}
