import { roundOrNull } from '../helpers/numbers.js'

// A request type's p99 over enough requests for it to be one. The p99 of a
// second with 100 requests is its second slowest, which falls anywhere
// between the type's 96th and 99.5th percentile from one second to the
// next: a small type's per-second p99 swings with its tail, and a run's
// analysis took those swings for changes. So each type's seconds are also
// pooled into windows of at least WINDOW_REQUESTS requests (a type with as
// many in one second has windows of a second), and the p99 of each window
// is written with the sample that closes it (docs/change-points.md, "What a
// run reports").

/** The requests a p99 is read from: the fifth slowest of 500 is the p99. */
export const WINDOW_REQUESTS = 500

/**
 * @typedef {object} WindowFigures
 * @property {number | null} p99_us   over the window
 * @property {number} seconds          the samples it spans, this one the last
 * @property {number} done             its requests
 */

export class P99Windows {
  /** @param {import('../metrics/log-histogram.js').LogHistogram[]} histograms   cumulative, one a window is kept for */
  constructor(histograms) {
    this.histograms = histograms
    this.startCount = Float64Array.from(histograms, h => h.count)
    this.startCounts = histograms.map(h => Float64Array.from(h.counts))
    this.seconds = new Uint32Array(histograms.length)
  }

  /**
   * Called once a sample: the window of histogram i when this second
   * closes it, null while it is still filling.
   * @param {number} i
   * @returns {WindowFigures | null}
   */
  close(i) {
    this.seconds[i]++
    const histogram = this.histograms[i]
    const done = histogram.count - this.startCount[i]
    if (done < WINDOW_REQUESTS) return null
    const figures = {
      p99_us: roundOrNull(histogram.quantileSince(this.startCounts[i], 0.99)),
      seconds: this.seconds[i],
      done
    }
    this.startCount[i] = histogram.count
    this.startCounts[i].set(histogram.counts)
    this.seconds[i] = 0
    return figures
  }
}
