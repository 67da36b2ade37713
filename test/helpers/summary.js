// Reading the --json summary the CLI prints at exit.

export const REQUEST_TYPES = ['insert_row', 'read_row', 'update_row', 'injected_error', 'fetch_max']
export const DEFAULT_WEIGHTS = { insert_row: 60, read_row: 20, update_row: 18, injected_error: 1, fetch_max: 1 }
// What the server answers to the injected error's statement.
export const INJECTED_ERROR_MESSAGE = /pgloadgen_injected_error\(\) does not exist/

/**
 * Totals over the request types.
 * @param {any} summary
 */
export function totals(summary) {
  const sum = (/** @type {string} */ field) => REQUEST_TYPES.reduce((n, type) => n + summary.requests[type][field], 0)
  return { started: sum('started'), done: sum('done'), failed: sum('failed') }
}

/**
 * Failures the summary attributes to the injected error's message.
 * @param {any} summary
 */
export function injectedErrorCount(summary) {
  return Object.entries(summary.errors)
    .filter(([message]) => INJECTED_ERROR_MESSAGE.test(message))
    .reduce((n, [, count]) => n + Number(count), 0)
}

/**
 * Checks the observed share of each request type (in percent of the requests
 * started) against the weights, within tolerance percentage points.
 * @param {import('tap').Test} t
 * @param {any} summary
 * @param {Record<string, number>} weights   types left out have weight 0
 * @param {number} [tolerance]
 */
export function assertShares(t, summary, weights, tolerance = 2) {
  const total = totals(summary).started
  const weightSum = Object.values(weights).reduce((a, b) => a + b, 0)
  for (const type of REQUEST_TYPES) {
    const expected = (100 * (weights[type] ?? 0)) / weightSum
    const observed = (100 * summary.requests[type].started) / total
    if (expected === 0) {
      t.equal(summary.requests[type].started, 0, `${type} is not in the mix and never sent`)
    } else {
      t.ok(
        Math.abs(observed - expected) <= tolerance,
        `${type}: ${observed.toFixed(2)} % of ${total} requests, expected ${expected.toFixed(2)} ± ${tolerance}`
      )
    }
  }
}

/**
 * What holds of every summary: the internal accounting adds up.
 * @param {import('tap').Test} t
 * @param {any} summary
 * @param {{ concurrency: number }} options
 */
export function assertConsistent(t, summary, { concurrency }) {
  t.equal(summary.concurrency, concurrency, 'concurrency as asked')
  t.same(Object.keys(summary.requests).sort(), [...REQUEST_TYPES].sort(), 'every request type reported')
  for (const type of REQUEST_TYPES) {
    const r = summary.requests[type]
    // Stopping waits for the requests in flight, so none is left half done.
    t.equal(r.done, r.started, `${type}: every request started was done`)
    t.ok(r.failed <= r.done, `${type}: failed ≤ done`)
    if (r.done > 0) {
      const l = r.latency_us
      t.ok(
        l.p50 <= l.p95 && l.p95 <= l.p99 && l.p99 <= l.max,
        `${type}: p50 ≤ p95 ≤ p99 ≤ max (${l.p50}, ${l.p95}, ${l.p99}, ${l.max})`
      )
      t.ok(l.p50 > 0, `${type}: latencies are positive`)
    }
  }
  const { failed, done } = totals(summary)
  const counted = Object.values(summary.errors).reduce((/** @type {number} */ a, b) => a + Number(b), 0)
  t.equal(counted, failed, 'every failure is counted under an error message')
  t.equal(
    summary.unexpected_failures,
    failed - injectedErrorCount(summary),
    'unexpected failures are the failures other than the injected error'
  )
  t.ok(
    Math.abs(summary.throughput - done / summary.elapsed_s) <= Math.max(1, 0.01 * summary.throughput),
    `throughput ${summary.throughput} is requests done per second`
  )
  t.equal(summary.abandoned_in_flight, false, 'no request was abandoned at shutdown')
}

/**
 * Reads and updates aim at ids within [1, max id], the max id read at start
 * and raised by each acknowledged insert. An id just below the newest can
 * still belong to another client's insert that has not committed yet (ids
 * are handed out in order, commits land in any order), so a read or update
 * of it finds nothing: at the frontier only, a handful of requests at most.
 * An id above the table's max (a row a rollback removed, say) misses far
 * more often.
 * @param {import('tap').Test} t
 * @param {any} summary
 * @param {string} why  what a miss would mean
 */
export function assertIdsFound(t, summary, why) {
  for (const type of ['read_row', 'update_row']) {
    const { done, not_found: notFound } = summary.requests[type]
    t.ok(notFound <= Math.max(4, done * 0.001), `${type}: ${notFound} of ${done} found no row (${why})`)
  }
}
