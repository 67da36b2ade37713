// The PostgreSQL metrics, registered on a prom-client registry. Their values
// are read at scrape time from the rows of the last successful polls; a
// scrape never queries the server. Every scrape resets each metric first,
// so series of tables dropped or vacuums finished disappear. The metrics
// themselves are listed in metric-specs.js.
import client from 'prom-client'

/** @typedef {import('./metric-spec.js').MetricSpec} MetricSpec */

/**
 * @typedef {object} RowSource
 * @property {(section: string) => import('./rows.js').Row[]} rows   fresh rows of a section, [] when none
 */

/**
 * Registers the metrics of specs, fed from source at every scrape.
 * @param {client.Registry} registry
 * @param {RowSource} source
 * @param {MetricSpec[]} specs
 */
export function registerPgMetrics(registry, source, specs) {
  for (const spec of specs) {
    /**
     * @param {(labels: Record<string, string>, value: number) => void} put
     * @returns {number} the values put
     */
    const fill = put => {
      let count = 0
      for (const section of spec.sections) {
        for (const row of source.rows(section)) {
          const value = row[spec.column]
          if (typeof value !== 'number' || !Number.isFinite(value)) continue
          /** @type {Record<string, string>} */
          const labels = {}
          for (const label of spec.labels) labels[label] = String(row[label] ?? '')
          put(labels, value)
          count++
        }
      }
      return count
    }
    // prom-client's reset() leaves a metric without labels at 0: a figure
    // the server did not give (a failed statement, a view this major lacks)
    // must have no series instead.
    const none = (/** @type {client.Counter | client.Gauge} */ metric) => {
      ;/** @type {any} */ (metric).hashMap = {}
    }
    const common = { name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry] }
    if (spec.type === 'counter') {
      new client.Counter({
        ...common,
        collect() {
          this.reset()
          // A counter never goes down; a server's stats reset shows as a restart.
          if (
            fill((labels, value) => {
              if (value >= 0) this.inc(labels, value)
            }) === 0
          )
            none(this)
        }
      })
    } else {
      new client.Gauge({
        ...common,
        collect() {
          this.reset()
          if (fill((labels, value) => this.set(labels, value)) === 0) none(this)
        }
      })
    }
  }
}
