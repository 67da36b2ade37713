// Disrupting a run under way (backends terminated, server restarted) and
// checking that the generator went on and lost nothing it acknowledged.
import { CliRun, waitFor, sleep } from './cli.js'
import { scrape, sampleValue } from './prom.js'
import { countRows, generatorPids, terminateGenerator } from './pg.js'
import { assertConsistent, injectedErrorCount, REQUEST_TYPES, INJECTED_ERROR_MESSAGE } from './summary.js'

/**
 * Requests done so far, from /metrics.
 * @param {string} metricsUrl
 */
export async function requestsDone(metricsUrl) {
  const { families } = await scrape(metricsUrl)
  return REQUEST_TYPES.reduce((n, type) => n + (sampleValue(families, 'pgloadgen_nqueries_done', { type }) ?? 0), 0)
}

/**
 * Waits until the generator has its full set of connections, as both
 * pgloadgen_nconns and the server see it, none of them one of `gone`.
 * @param {string} metricsUrl
 * @param {string} url
 * @param {number} concurrency
 * @param {number[]} [gone]   pids of backends that must have been replaced
 */
export async function waitConnected(metricsUrl, url, concurrency, gone = []) {
  await waitFor(
    async () => {
      const pids = await generatorPids(url)
      if (pids.length !== concurrency || pids.some(pid => gone.includes(pid))) return false
      return sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns') === concurrency
    },
    { what: `${concurrency} generator connections`, timeoutMs: 20000, intervalMs: 50 }
  )
}

/**
 * Scrapes pgloadgen_nconns every few milliseconds until stopped; the lowest
 * value seen tells whether the gauge showed connections being lost.
 * @param {string} metricsUrl
 */
export function watchConnections(metricsUrl) {
  let stopped = false
  let min = Infinity
  let samples = 0
  const loop = (async () => {
    while (!stopped) {
      try {
        const value = sampleValue((await scrape(metricsUrl)).families, 'pgloadgen_nconns')
        if (typeof value === 'number') {
          min = Math.min(min, value)
          samples++
        }
      } catch {
        // the run may be between stopping and exiting: no sample
      }
      await sleep(20)
    }
  })()
  return {
    async stop() {
      stopped = true
      await loop
      return { min, samples }
    }
  }
}

/**
 * Starts a run against url with a fixed duration, waits until it is fully
 * connected and has done some work.
 * @param {import('tap').Test} t
 * @param {{ url: string, workload: string, concurrency: number, durationS: number }} options
 */
export async function startRun(t, { url, workload, concurrency, durationS }) {
  const run = new CliRun(
    ['run', url, '-w', workload, '-c', String(concurrency), '-d', String(durationS), '--json', '-p', '0'],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await waitConnected(metricsUrl, url, concurrency)
  await sleep(1000)
  return { run, metricsUrl }
}

/**
 * After a disruption: the generator reconnects and requests are done again.
 * @param {import('tap').Test} t
 * @param {{ metricsUrl: string, url: string, concurrency: number, gone: number[] }} options
 */
export async function assertRecovers(t, { metricsUrl, url, concurrency, gone }) {
  await waitConnected(metricsUrl, url, concurrency, gone)
  t.pass(`reconnected: ${concurrency} new connections, pgloadgen_nconns = ${concurrency}`)
  const done = await requestsDone(metricsUrl)
  await waitFor(async () => (await requestsDone(metricsUrl)) >= done + 100, {
    what: 'requests to be done after reconnecting',
    timeoutMs: 10000
  })
  t.pass('requests are done again after reconnecting')
}

/**
 * Checks the end of a disrupted run: finished normally, the failures counted,
 * the reconnects counted, nothing acknowledged lost.
 * @param {import('tap').Test} t
 * @param {import('./cli.js').CliResult} result
 * @param {{ url: string, table: string, rowsBefore: number, concurrency: number, lost: number }} options
 *   lost: connections the test killed
 */
export async function assertSurvived(t, result, { url, table, rowsBefore, concurrency, lost }) {
  t.equal(result.code, 0, `the run finishes with exit 0; stderr: ${result.stderr.slice(-2000)}`)
  const summary = result.summary
  if (!t.ok(summary, 'a JSON summary')) return
  assertConsistent(t, summary, { concurrency })
  t.ok(summary.reconnects >= lost, `reconnects counted (${summary.reconnects} ≥ ${lost} connections lost)`)
  // A connection lost while it carried a request fails that request; one
  // lost between two requests (closed while idle) is replaced before it is
  // used and fails none. So the failures are at least one (the connections
  // are busy nearly all the time) and at most one per reconnect.
  t.ok(
    summary.unexpected_failures >= 1 && summary.unexpected_failures <= summary.reconnects,
    `the failures are counted as unexpected (${summary.unexpected_failures}), at least one and at most one per ` +
      `reconnect (${summary.reconnects})`
  )
  const otherMessages = Object.keys(summary.errors).filter(message => !INJECTED_ERROR_MESSAGE.test(message))
  t.ok(otherMessages.length > 0, `the failures are counted by message: ${JSON.stringify(otherMessages)}`)
  t.equal(
    summary.unexpected_failures,
    Object.values(summary.errors).reduce((/** @type {number} */ a, b) => a + Number(b), 0) -
      injectedErrorCount(summary),
    'unexpected failures = failures not from the injected error'
  )
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert is missing')
  const gained = (await countRows(url, table)) - rowsBefore
  const inserts = summary.requests.insert_row
  // An insert cut off mid-way may have committed without its reply arriving:
  // such rows are in the table, unacknowledged.
  t.ok(
    gained >= summary.acknowledged_inserts && gained <= summary.acknowledged_inserts + inserts.failed,
    `the table gained the ${summary.acknowledged_inserts} rows acknowledged, plus at most the ${inserts.failed} ` +
      `failed inserts (gained ${gained})`
  )
  t.ok(summary.acknowledged_inserts > 0, 'inserts were acknowledged')
}

/**
 * Terminates the generator's backends a few times during a run and checks it
 * goes on; the whole scenario, for any server.
 * @param {import('tap').Test} t
 * @param {{ url: string, workload?: string, table?: string, concurrency?: number, rounds?: number }} options
 */
export async function terminationScenario(
  t,
  { url, workload = 'manta', table = 'test_table', concurrency = 4, rounds = 2 }
) {
  const rowsBefore = await countRows(url, table)
  const { run, metricsUrl } = await startRun(t, { url, workload, concurrency, durationS: 6 })
  let lost = 0
  for (let round = 1; round <= rounds; round++) {
    const gone = await terminateGenerator(url)
    t.equal(
      gone.length,
      concurrency,
      `round ${round}: pg_terminate_backend on all ${concurrency} generator connections`
    )
    lost += gone.length
    await assertRecovers(t, { metricsUrl, url, concurrency, gone })
    await sleep(500)
  }
  const { families } = await scrape(metricsUrl)
  const messages = (families.get('pgloadgen_error_messages')?.samples ?? []).map(s => s.labels.errorMessage)
  t.ok(
    messages.some(message => !INJECTED_ERROR_MESSAGE.test(message)),
    `pgloadgen_error_messages shows the connection failures: ${JSON.stringify(messages)}`
  )
  const result = await run.exited
  await assertSurvived(t, result, { url, table, rowsBefore, concurrency, lost })
  return result
}
