// The final scrape: a run scraped during its load waits, after its summary
// is final, for the scraper's next visit, at most twice the interval it saw
// and never more than MAX_WAIT_MS; a run nobody scraped does not wait.
import t from 'tap'
import { MAX_WAIT_MS, ScrapeWatch } from '../../lib/http/final-scrape.js'

/** A watch on a clock the test moves, scraped at the given moments (ms). */
function watchScrapedAt(/** @type {number[]} */ moments) {
  let now = 0
  const watch = new ScrapeWatch({ now: () => now })
  for (const m of moments) {
    now = m
    watch.scraped()
  }
  return watch
}

t.test('nothing scraped twice: no wait at all', async t => {
  for (const moments of [[], [1000]]) {
    const watch = watchScrapedAt(moments)
    t.equal(watch.waitMs(), 0, `${moments.length} scrapes`)
    const started = Date.now()
    t.equal(await watch.final(), false, 'the final scrape is not awaited')
    t.ok(Date.now() - started < 1000, 'it returns at once')
  }
})

t.test('the interval is the median gap: one late scrape does not stretch it', async t => {
  const watch = watchScrapedAt([0, 1000, 2000, 9000, 10000, 11000])
  t.equal(watch.intervalMs(), 1000)
  t.equal(watch.waitMs(), 2000, 'twice the interval')
})

t.test('a slow scraper is waited for at most MAX_WAIT_MS', async t => {
  const watch = watchScrapedAt([0, 60000, 120000])
  t.equal(watch.waitMs(), MAX_WAIT_MS)
})

t.test('the next scrape ends the wait, and only one after the call', async t => {
  const watch = watchScrapedAt([0, 1000, 2000])
  const final = watch.final()
  setTimeout(() => watch.scraped(), 20)
  t.equal(await final, true, 'the scrape came')
  t.equal(watch.onScrape, null, 'nothing left waiting')
})

t.test('a scraper that does not come back: the wait ends at its bound', async t => {
  const watch = watchScrapedAt([0, 50, 100])
  t.equal(watch.waitMs(), 100)
  const started = Date.now()
  t.equal(await watch.final(), false)
  const waited = Date.now() - started
  t.ok(waited >= 95, `waited ${waited} ms, the bound`)
})
