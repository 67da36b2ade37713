// The last scrape of a run. A run that exits as soon as its load ends loses
// whatever it did after the scraper's last visit: up to one scrape interval
// of requests, the slowest among them when the end was the slow part. When
// something scrapes /metrics during the run, the run keeps /metrics up after
// its summary is final until the next scrape came, bounded by twice the
// interval it has seen and by MAX_WAIT_MS; when nothing scraped, it does
// not wait at all.

/** The longest a run waits for its final scrape. */
export const MAX_WAIT_MS = 15000

export class ScrapeWatch {
  /** @param {{ now?: () => number }} [options] */
  constructor({ now = Date.now } = {}) {
    this.now = now
    /** @type {number[]} the moments of the last scrapes, oldest first */
    this.seen = []
    /** @type {(() => void) | null} */
    this.onScrape = null
  }

  /** Notes a scrape of /metrics that was answered. */
  scraped() {
    this.seen.push(this.now())
    if (this.seen.length > 8) this.seen.shift()
    this.onScrape?.()
  }

  /**
   * The scraper's interval as seen: the median gap between its last visits,
   * or null before two of them.
   */
  intervalMs() {
    if (this.seen.length < 2) return null
    const gaps = this.seen.slice(1).map((t, i) => t - this.seen[i])
    gaps.sort((a, b) => a - b)
    return gaps[Math.floor(gaps.length / 2)]
  }

  /**
   * How long a run waits for its final scrape: twice the interval seen, at
   * most MAX_WAIT_MS; 0 when nothing scraped twice.
   */
  waitMs() {
    const interval = this.intervalMs()
    return interval === null ? 0 : Math.min(2 * interval, MAX_WAIT_MS)
  }

  /**
   * Resolves at the first scrape from now or after waitMs(), whichever comes
   * first; at once when nothing scraped. Resolves true when the scrape came.
   * A second SIGINT still exits at once (StopSignal).
   * @returns {Promise<boolean>}
   */
  final() {
    const limit = this.waitMs()
    if (limit === 0) return Promise.resolve(false)
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    return Promise.race([
      new Promise(resolve => {
        this.onScrape = () => resolve(true)
      }),
      new Promise(resolve => {
        timer = setTimeout(() => resolve(false), limit)
      })
    ]).finally(() => {
      clearTimeout(timer)
      this.onScrape = null
    })
  }
}
