// The counters read around a vacuum: the visibility map (pg_visibility),
// pg_stat_io's vacuum context (PostgreSQL 16+), the server's WAL, the
// table's size; each figure a major does not give is null with its reason
// (lib/pgstats/vacuum-cost.js lists the sources).

/** @typedef {{ all_visible: number, all_frozen: number }} VisibilityCounts */
/** @typedef {{ records: number | null, fpi: number | null, bytes: number }} WalCounts */
/** @typedef {{ reads: number, writes: number, extends: number, hits: number }} IoCounts */

/**
 * @typedef {object} CounterSnapshot
 * @property {number} version              server_version_num
 * @property {WalCounts | null} wal        the WAL insert position and pg_stat_wal, whole server
 * @property {IoCounts | null} io          pg_stat_io, context vacuum, of one backend type
 * @property {VisibilityCounts | null} vm  pg_visibility_map_summary
 * @property {number | null} heap_pages    the table's main fork, in pages
 * @property {Record<string, string>} unavailable  figure → why it is missing
 */

/**
 * The pg_visibility extension in the connected database: created when
 * missing and permitted. Returns why not, or null when it is there.
 * @param {import('pg').Client} client
 * @returns {Promise<string | null>}
 */
export async function ensureVisibility(client) {
  const present = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_visibility'")
  if (present.rowCount) return null
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_visibility')
    return null
  } catch (err) {
    return `pg_visibility is not installed and could not be created (${/** @type {Error} */ (err).message})`
  }
}

/**
 * The counters around a vacuum of table, read on client.
 * @param {import('pg').Client} client
 * @param {string} table          a quoted name (quoteTable)
 * @param {{ backendType: string, visibility: string | null }} options
 *   backendType: whose vacuum context pg_stat_io is read for; visibility:
 *   why pg_visibility cannot be used (ensureVisibility), null when it can
 * @returns {Promise<CounterSnapshot>}
 */
export async function readCounters(client, table, { backendType, visibility }) {
  const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num)
  /** @type {Record<string, string>} */
  const unavailable = {}
  // the table's leaves: itself, or the partitions of a partitioned table
  const leaves = `SELECT c.oid AS relid FROM pg_class c WHERE c.relkind IN ('r', 'm')
  AND (c.oid = to_regclass($1) OR c.oid IN (SELECT p.relid FROM pg_partition_tree(to_regclass($1)) p WHERE p.isleaf))`
  const size = await client.query(
    `SELECT (sum(pg_relation_size(relid, 'main')) / current_setting('block_size')::int)::bigint AS pages FROM (${leaves}) l`,
    [table]
  )
  const heapPages = size.rows[0].pages === null ? null : Number(size.rows[0].pages)
  // The insert position moves with every WAL record, at once, on every
  // major; pg_stat_wal's counters (14+) reach the view when a backend
  // reports them: forced on 15+ (VacuumAccount.finish), but on 14 up to
  // half a second or more late, so its records would often count nothing.
  const position = (await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS bytes"))
    .rows[0]
  /** @type {WalCounts} */
  const wal = { records: null, fpi: null, bytes: Number(position.bytes) }
  if (version >= 150000) {
    const row = (await client.query('SELECT wal_records, wal_fpi FROM pg_stat_wal')).rows[0]
    wal.records = Number(row.wal_records)
    wal.fpi = Number(row.wal_fpi)
  } else {
    unavailable.server_wal_records = needs(
      15,
      version < 140000 ? 'pg_stat_wal came in 14' : "pg_stat_wal's counters reach the view late on 14"
    )
  }
  /** @type {IoCounts | null} */
  let io = null
  if (version >= 160000) {
    const row = (
      await client.query(
        `SELECT coalesce(sum(reads), 0) AS reads, coalesce(sum(writes), 0) AS writes,
  coalesce(sum(extends), 0) AS extends, coalesce(sum(hits), 0) AS hits
FROM pg_stat_io WHERE backend_type = $1 AND object = 'relation' AND context = 'vacuum'`,
        [backendType]
      )
    ).rows[0]
    io = { reads: Number(row.reads), writes: Number(row.writes), extends: Number(row.extends), hits: Number(row.hits) }
  } else {
    unavailable.io = needs(16, 'pg_stat_io')
  }
  /** @type {VisibilityCounts | null} */
  let vm = null
  if (visibility !== null) {
    unavailable.vm = visibility
  } else {
    try {
      const row = (
        await client.query(
          `SELECT coalesce(sum(v.all_visible), 0) AS all_visible, coalesce(sum(v.all_frozen), 0) AS all_frozen
FROM (${leaves}) l CROSS JOIN LATERAL pg_visibility_map_summary(l.relid) v`,
          [table]
        )
      ).rows[0]
      vm = { all_visible: Number(row.all_visible), all_frozen: Number(row.all_frozen) }
    } catch (err) {
      unavailable.vm = `pg_visibility_map_summary failed: ${/** @type {Error} */ (err).message}`
    }
  }
  return { version, wal, io, vm, heap_pages: heapPages, unavailable }
}

/**
 * The reason of a figure a major does not give.
 * @param {number} major   the first major that gives it
 * @param {string} why
 */
export function needs(major, why) {
  return `needs PostgreSQL ${major}: ${why}`
}
