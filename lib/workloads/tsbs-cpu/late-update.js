import { CPU_TABLE, FIELDS } from './schema.js'

// late_update: a correction of a point already written, as a source that
// resends a reading would make: new values for one host at one time no
// more than --late-window older than the newest point written, found by
// the (tags_id, time DESC) index. A point never sent (--missing), or not
// acknowledged yet, is not found: the request counts as not_found.

export const LATE_UPDATE_SQL = `UPDATE ${CPU_TABLE} SET ${FIELDS.map((field, i) => `${field} = $${i + 3}`).join(', ')} WHERE tags_id = $1 AND time = $2`

/**
 * @param {import('../db.js').Db} db
 * @param {import('../contract.js').ClientContext} ctx
 */
export async function lateUpdate(db, ctx) {
  const config = /** @type {import('./config.js').TsbsConfig} */ (ctx.config)
  const { stream } = /** @type {import('./setup.js').Shared} */ (ctx.shared)
  const newest = stream.newestWrittenEpoch
  if (newest < 0) return false
  const oldest = Math.max(0, newest - Math.floor(config.lateWindowMs / config.intervalMs))
  const epoch = oldest + Math.floor(ctx.random() * (newest - oldest + 1))
  const host = Math.floor(ctx.random() * stream.hosts)
  /** @type {Array<string | number>} */
  const params = [stream.tagIds[host], new Date(stream.timeOf(epoch)).toISOString()]
  for (let f = 0; f < FIELDS.length; f++) params.push(Math.floor(ctx.random() * 101))
  const { rowCount } = await db.query(LATE_UPDATE_SQL, params)
  if (rowCount === 0) return false
}
