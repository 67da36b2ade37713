import { CPU_TABLE, FIELDS, TAGS_TABLE } from './schema.js'

// Two of the queries TSBS ships for this data (cmd/tsbs_generate_queries,
// the TimescaleDB flavour with a tags table): lastpoint, the latest row of
// every host; and double-groupby, the hourly mean of some usage fields per
// host over 12 hours, here the 12 hours of data time up to the newest
// point written, where a dashboard would look.

export const LASTPOINT_SQL = `SELECT DISTINCT ON (t.hostname) * FROM ${TAGS_TABLE} t
  INNER JOIN LATERAL (SELECT * FROM ${CPU_TABLE} c WHERE c.tags_id = t.id ORDER BY time DESC LIMIT 1) AS b ON true
  ORDER BY t.hostname, b.time DESC`

// TSBS's double-groupby-5: the first five usage fields
const GROUPBY_FIELDS = FIELDS.slice(0, 5)
export const GROUPBY_WINDOW_MS = 12 * 3600 * 1000
const GROUPBY_MEANS_SQL = GROUPBY_FIELDS.map(field => `avg(${field}) AS mean_${field}`).join(', ')
export const GROUPBY_HOUR_SQL = `WITH cpu_avg AS (
    SELECT date_trunc('hour', time) AS hour, tags_id, ${GROUPBY_MEANS_SQL}
    FROM ${CPU_TABLE}
    WHERE time >= $1 AND time < $2
    GROUP BY hour, tags_id
  )
  SELECT hour, tags.hostname, ${GROUPBY_FIELDS.map(field => `mean_${field}`).join(', ')}
  FROM cpu_avg JOIN ${TAGS_TABLE} tags ON cpu_avg.tags_id = tags.id
  ORDER BY hour, tags.hostname`

/**
 * @param {import('../db.js').Db} db
 */
export async function queryLastpoint(db) {
  const { rowCount } = await db.query(LASTPOINT_SQL)
  if (rowCount === 0) return false
}

/**
 * @param {import('../db.js').Db} db
 * @param {import('../contract.js').ClientContext} ctx
 */
export async function queryGroupbyHour(db, ctx) {
  const { stream } = /** @type {import('./setup.js').Shared} */ (ctx.shared)
  if (stream.newestWrittenEpoch < 0) return false
  const endMs = stream.timeOf(stream.newestWrittenEpoch + 1)
  const { rowCount } = await db.query(GROUPBY_HOUR_SQL, [
    new Date(endMs - GROUPBY_WINDOW_MS).toISOString(),
    new Date(endMs).toISOString()
  ])
  if (rowCount === 0) return false
}
