import client from 'prom-client'
import { createRegistry, registerGeneratorMetrics } from '../../lib/metrics/generator-metrics.js'
import { RequestStats } from '../../lib/metrics/request-stats.js'
import { StatsCollector } from '../../lib/pgstats/collector.js'
import { DiskSpaceWatch } from '../../lib/lab/disk-space.js'
import { EventLog } from '../../lib/recorder/event-log.js'
import { ZfsSpaceProbe } from '../../lib/snapshot/zfs-space.js'
import { WorkloadServices } from '../../lib/lab/workload-services.js'
import { BUILTIN_WORKLOADS, loadWorkload } from '../../lib/workloads/index.js'
import { createLogger } from '../../lib/log.js'
import { code, generatedHeader, table } from './markdown.js'

// docs/metrics.md: every metric /metrics can show, read from registries
// filled by the very constructors a run calls (lib/lab/load-session.js,
// lib/experiment/phase-session.js), with nothing started: no connection,
// no timer, no server. Each part registers on a registry of its own, so
// that the page says which part a metric comes from.

const log = createLogger({ level: 'silent' })
// Any request types: labels are named by the metrics, not by the types.
const TYPES = ['insert_row', 'read_row']
const METRIC_COLUMNS = ['metric', 'type', 'labels', 'help']

/**
 * The parts of a run that register metrics, each on a fresh registry.
 * @returns {Array<{ title: string, describe: string, registry: client.Registry }>}
 */
function runParts() {
  const stats = new RequestStats(TYPES)
  const generator = new client.Registry()
  registerGeneratorMetrics(generator, { stats, connections: () => 0, target: 'postgres://host/db' })
  const collector = new client.Registry()
  new StatsCollector({ connectionString: 'postgres://host/db', registry: collector, log, pgstattuple: true })
  const disk = new client.Registry()
  const events = new EventLog({ file: null, registry: disk, log })
  new DiskSpaceWatch({ dataDir: '/data', stats, events, registry: disk, log })
  const zfs = new client.Registry()
  new ZfsSpaceProbe({ pool: 'pool', registry: zfs, log })
  return [
    { title: 'The load generator', describe: 'lib/metrics/generator-metrics.js: run, capacity.', registry: generator },
    {
      title: 'PostgreSQL statistics',
      describe:
        'lib/pgstats/metrics.js and self-metrics.js: `run` (unless --no-pg-stats), `stats`, ' +
        "a plan's variants; the pgstattuple ones with --pgstattuple.",
      registry: collector
    },
    {
      title: 'Events and the disk',
      describe:
        "lib/recorder/event-log.js and lib/lab/disk-space.js: the lab's timeline, " +
        "and the data directory's filesystem when it is local.",
      registry: disk
    },
    {
      title: 'ZFS',
      describe: "lib/snapshot/zfs-space.js: the pool of an experiment's data directory, when it is on ZFS.",
      registry: zfs
    }
  ]
}

/**
 * The metric's type as Prometheus names it.
 * @param {any} metric
 */
function typeOf(metric) {
  if (typeof metric.type === 'string') return metric.type
  if (metric instanceof client.Counter) return 'counter'
  if (metric instanceof client.Gauge) return 'gauge'
  if (metric instanceof client.Histogram) return 'histogram'
  if (metric instanceof client.Summary) return 'summary'
  throw new Error(`metrics-page.js: ${metric.name} is of no known type`)
}

/**
 * Its label names: declared, or (a view over counts kept elsewhere) those of its values.
 * @param {any} metric
 * @returns {Promise<string[]>}
 */
async function labelsOf(metric) {
  if (Array.isArray(metric.labelNames)) return metric.labelNames
  const { values } = await metric.get()
  const names = new Set(values.flatMap((/** @type {{ labels: Record<string, unknown> }} */ v) => Object.keys(v.labels)))
  names.delete('le')
  names.delete('quantile')
  return [...names]
}

/**
 * @param {client.Registry} registry
 */
async function metricRows(registry) {
  const rows = []
  for (const metric of /** @type {any[]} */ (registry.getMetricsAsArray())) {
    rows.push([code(metric.name), typeOf(metric), (await labelsOf(metric)).map(code).join(', '), metric.help])
  }
  return rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))
}

/**
 * The gauges of the built-in workloads' own statistics.
 */
async function workloadSection() {
  const lines = [
    '## Statistics of the built-in workloads',
    '',
    'A workload may declare statistics of its own (lib/workloads/contract.js): gauges without labels,',
    'read by its maintenance connection.',
    ''
  ]
  for (const name of Object.keys(BUILTIN_WORKLOADS)) {
    const workload = await loadWorkload(name)
    const registry = new client.Registry()
    new WorkloadServices(/** @type {any} */ ({ workload, registry, log }))
    const rows = await metricRows(registry)
    if (rows.length > 0) lines.push(`### \`${name}\``, '', table(METRIC_COLUMNS, rows), '')
  }
  return lines
}

/**
 * The whole page.
 * @returns {Promise<string>}
 */
export async function metricsPage() {
  const lines = [
    generatedHeader('Metrics reference', 'the registries a run fills, built as a run builds them'),
    'Every metric on `/metrics`, by the part of the lab that registers it.',
    ''
  ]
  for (const part of runParts()) {
    lines.push(`## ${part.title}`, '', part.describe, '', table(METRIC_COLUMNS, await metricRows(part.registry)), '')
  }
  lines.push(...(await workloadSection()))
  const defaults = createRegistry()
  lines.push(
    '## The process',
    '',
    "prom-client's default metrics of the Node.js process (`collectDefaultMetrics`),",
    'on every registry the CLI serves.',
    '',
    table(METRIC_COLUMNS, await metricRows(defaults)),
    ''
  )
  return lines.join('\n').replace(/\n+$/, '') + '\n'
}
