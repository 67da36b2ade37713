// A manual VACUUM slowed down on purpose (cost-based delay in its session) so
// that it stays visible in pg_stat_progress_vacuum for a while, bounded by a
// statement timeout.
import { withClient } from './pg.js'
import { sleep } from './cli.js'

/**
 * Runs VACUUM on table with vacuum_cost_delay 100 ms and vacuum_cost_limit 1
 * (about one heap page per 100 ms), cancelled by statement_timeout after
 * maxMs if it has not finished. Meanwhile another session watches
 * pg_stat_progress_vacuum.
 * @param {string} url
 * @param {string} table
 * @param {number} maxMs
 * @returns {Promise<{ cancelled: boolean, visibleMs: number, firstSeen: number | null, lastSeen: number | null }>}
 *   visibleMs: how long the vacuum was seen in pg_stat_progress_vacuum;
 *   firstSeen / lastSeen: epoch seconds
 */
export async function slowVacuum(url, table, maxMs) {
  let done = false
  /** @type {number | null} */
  let firstSeen = null
  /** @type {number | null} */
  let lastSeen = null
  const watcher = withClient(url, async client => {
    while (!done) {
      const result = await client.query(
        'SELECT count(*)::int AS n FROM pg_stat_progress_vacuum WHERE relid = to_regclass($1)',
        [table]
      )
      if (result.rows[0].n > 0) {
        const now = Date.now() / 1000
        firstSeen ??= now
        lastSeen = now
      }
      await sleep(200)
    }
  })
  let cancelled = false
  try {
    await withClient(url, async client => {
      await client.query('SET vacuum_cost_delay = 100')
      await client.query('SET vacuum_cost_limit = 1')
      await client.query(`SET statement_timeout = ${Math.round(maxMs)}`)
      try {
        await client.query(`VACUUM ${table}`)
      } catch (err) {
        if (/** @type {any} */ (err).code !== '57014') throw err // query_canceled
        cancelled = true
      }
    })
  } finally {
    done = true
    await watcher
  }
  const visibleMs = firstSeen === null || lastSeen === null ? 0 : (lastSeen - firstSeen) * 1000
  return { cancelled, visibleMs, firstSeen, lastSeen }
}
