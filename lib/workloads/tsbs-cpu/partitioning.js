import { ensurePartitions } from '../partitions.js'
import { CPU_TABLE } from './schema.js'

// With --partition-interval: partitions kept ahead of the stream by the
// lab's maintenance pass (once before the load, then four times a second):
// --premake intervals, or, whichever is more, the data time every client's
// batch in flight and its next one span (taken all at once when the load
// starts) plus as much as five seconds of ingest write at the pace
// measured between passes (simulated time runs hours of data a second).
// --premake 0 makes none ahead: only the partitions the data handed out so
// far needs, to study what happens when time outruns them. It can: a batch that reaches a time no partition
// holds fails with PostgreSQL's message and is counted, never written
// elsewhere.

export const MAINTAIN_EVERY_S = 0.25
// wall-clock seconds of ingest the partitions ahead must hold
const LEAD_S = 5

// a pace measured over much less than a pass apart (the pass before the
// load, passes run back to back) says more about batch sizes than speed
const MIN_PACE_WINDOW_MS = (MAINTAIN_EVERY_S * 1000) / 2

/**
 * @type {WeakMap<object, { at: number, frontier: number, speed: number }>} the stream's time and pace at the last
 * measured pass
 */
const paces = new WeakMap()

/**
 * @param {import('../contract.js').MaintenanceContext} context
 * @param {number} [now]  the wall clock, ms (the pace is measured on it)
 */
export async function maintainPartitions({ sql, config, shared }, now = Date.now()) {
  const c = /** @type {import('./config.js').TsbsConfig} */ (config)
  if (c.partitionIntervalS === null) return
  const { stream, clients } = /** @type {import('./setup.js').Shared} */ (shared)
  // from the newest point handed to a batch (older ones have theirs), to the next point's time and the lead more
  const fromMs = stream.timeOf(stream.newestTakenEpoch >= stream.firstEpoch ? stream.newestTakenEpoch : stream.epoch)
  const frontier = stream.frontierMs()
  // data milliseconds per wall-clock millisecond since the last pass
  let pace = paces.get(stream)
  if (!pace) {
    pace = { at: now, frontier, speed: 0 }
    paces.set(stream, pace)
  } else if (now - pace.at >= MIN_PACE_WINDOW_MS) {
    pace = { at: now, frontier, speed: Math.max(0, (frontier - pace.frontier) / (now - pace.at)) }
    paces.set(stream, pace)
  }
  const batchSpanMs = Math.ceil(c.batchSize / stream.hosts) * stream.intervalMs
  const inFlightMs = 2 * clients * batchSpanMs
  const leadMs =
    c.premake === 0 ? 0 : Math.max(c.premake * c.partitionIntervalS * 1000, inFlightMs + pace.speed * LEAD_S * 1000)
  const toMs = frontier + 1 + leadMs
  await ensurePartitions(sql, {
    table: CPU_TABLE,
    intervalS: c.partitionIntervalS,
    from: new Date(fromMs),
    to: new Date(toMs)
  })
}

/**
 * @param {import('./config.js').TsbsConfig} config
 * @returns {import('../contract.js').WorkloadStatistic[]}
 */
export function partitionStatistics(config) {
  if (config.partitionIntervalS === null) return []
  return [
    {
      name: 'pgloadgen_workload_tsbs_cpu_partitions',
      help: 'Partitions of tsbs_cpu',
      sql: `SELECT count(*) AS value FROM pg_inherits WHERE inhparent = to_regclass('${CPU_TABLE}')`
    }
  ]
}
