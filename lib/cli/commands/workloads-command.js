import { BUILTIN_WORKLOADS, loadWorkload } from '../../workloads/index.js'
import { checkWorkload } from '../../workloads/check.js'
import { formatMix, mixOf } from '../../config/mix.js'

/**
 * @typedef {object} WorkloadListing
 * @property {string} name
 * @property {string} description
 * @property {Array<{ name: string, weight: number, expected_error?: string }>} types
 * @property {string} default_mix
 * @property {Record<string, { type: string, default?: unknown, describe: string, choices?: string[], min?: number,
 *     max?: number }>} [options]
 * @property {string} [usage]
 */

/** @param {import('yargs').Argv} y */
export function workloadsBuilder(y) {
  return y
    .positional('module', {
      type: 'string',
      describe: 'describe this workload module instead of listing the built-ins'
    })
    .option('json', { type: 'boolean', default: false, describe: 'print the listing as JSON' })
}

/**
 * pgloadgen workloads [MODULE]: the built-in workloads with their request
 * types and default mixes (pgbench's built-in scripts among them), or what
 * one module declares.
 * @type {import('./action-commands.js').CommandRun}
 */
export async function workloadsCommand(args, { stdout }) {
  /** @type {WorkloadListing[]} */
  const listings = []
  if (args.module) {
    listings.push(listing(await loadWorkload(args.module), `pgloadgen run --workload ${args.module}`))
  } else {
    for (const [name, load] of Object.entries(BUILTIN_WORKLOADS))
      listings.push(listing(await checkWorkload((await load()).default, name), `pgloadgen run --workload ${name}`))
    const { BUILTIN_SCRIPTS } = await import('../../pgbench/builtins.js')
    listings.push({
      name: 'pgbench',
      description:
        'pgbench scripts, each one a request type: the built-in ones below (-b NAME[@WEIGHT]) or your files (-f FILE[@WEIGHT]); tables from pgloadgen init',
      types: BUILTIN_SCRIPTS.map(script => ({ name: script.name, weight: 1 })),
      default_mix: 'tpcb-like=1',
      usage: 'pgloadgen init -s 10 && pgloadgen run -b tpcb-like'
    })
  }
  if (args.json) {
    stdout.write(JSON.stringify(args.module ? listings[0] : listings, null, 2) + '\n')
    return 0
  }
  const lines = []
  for (const item of listings) {
    lines.push(`${item.name}: ${item.description}`)
    const width = Math.max(...item.types.map(type => type.name.length))
    for (const type of item.types)
      lines.push(
        `  ${type.name.padEnd(width)}  weight ${type.weight}${type.expected_error ? `, expected error ${type.expected_error}` : ''}`
      )
    lines.push(`  default mix: ${item.default_mix}`)
    for (const [name, spec] of Object.entries(item.options ?? {})) {
      const kind = spec.choices ? spec.choices.join('|') : spec.type
      const fallback = spec.default === undefined ? '' : `, default ${spec.default}`
      lines.push(`  --${name} (${kind}${fallback}): ${spec.describe}`)
    }
    if (item.usage) lines.push(`  ${item.usage}`)
    lines.push('')
  }
  stdout.write(lines.join('\n'))
  return 0
}

/**
 * @param {import('../../workloads/contract.js').Workload} workload
 * @param {string} usage
 * @returns {WorkloadListing}
 */
function listing(workload, usage) {
  return {
    name: workload.name,
    description: workload.description,
    types: workload.types.map((name, i) => ({
      name,
      weight: workload.weights[i],
      ...(workload.expectedErrors[i] && { expected_error: /** @type {string} */ (workload.expectedErrors[i]) })
    })),
    default_mix: formatMix(mixOf(workload.types, workload.weights)),
    ...(Object.keys(workload.optionSpecs).length > 0 && { options: workload.optionSpecs }),
    usage
  }
}
