import { UsageError } from '../cli/usage-error.js'
import { manta } from './manta.js'
import { timeseries } from './timeseries.js'

/** @type {Record<string, import('./workload.js').Workload>} */
export const WORKLOADS = { manta, timeseries }

/** @param {string} name */
export function getWorkload (name) {
  const workload = Object.hasOwn(WORKLOADS, name) ? WORKLOADS[name] : undefined
  if (!workload) throw new UsageError(`unknown workload "${name}" (known: ${Object.keys(WORKLOADS).join(', ')})`)
  return workload
}
