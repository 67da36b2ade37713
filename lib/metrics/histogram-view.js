// A read-only Prometheus histogram over bucket counts kept elsewhere. It
// implements the small interface prom-client's Registry formats (name, help,
// type, get), so the hot path never touches prom-client.

/**
 * @typedef {object} HistogramSeries
 * @property {Record<string, string>} labels
 * @property {ArrayLike<number>} buckets   non-cumulative counts, last is +Inf
 * @property {number} sum
 * @property {number} count
 */

export class HistogramView {
  /**
   * @param {{ name: string, help: string, bounds: readonly number[], series: () => HistogramSeries[] }} options
   */
  constructor({ name, help, bounds, series }) {
    this.name = name
    this.help = help
    this.type = 'histogram'
    this.aggregator = 'sum'
    this.bounds = bounds
    this.series = series
  }

  async get() {
    const values = []
    const bucketName = `${this.name}_bucket`
    for (const s of this.series()) {
      let cumulative = 0
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += s.buckets[i]
        values.push({ labels: { ...s.labels, le: this.bounds[i] }, value: cumulative, metricName: bucketName })
      }
      cumulative += s.buckets[this.bounds.length]
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: cumulative, metricName: bucketName })
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` })
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset() {}
}
