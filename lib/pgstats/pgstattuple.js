// Exact bloat figures from the pgstattuple extension, only when asked for
// (pgstattuple: true, --pgstattuple): pgstattuple() for a table and
// pgstatindex() for a B-tree (bloat-truth.js says what each figure is). Both
// read every page of the relation. With pgstattuple: 'approx'
// (--pgstattuple-approx) a table's figure is pgstattuple_approx()'s instead,
// which reads only the pages the visibility map does not mark all-visible
// and takes the others' free space from the free space map; each table row
// says which in its method, 'pgstattuple' or 'pgstattuple_approx' (there is
// no approximate pgstatindex). They run one relation at a time, each
// statement under the same statement timeout as the others (a relation too
// big to scan within it is counted as an error, query="pgstattuple"), and at
// most once every EXACT_EVERY_MS.
import { btreeTruthSql, heapApproxSql, heapTruthSql } from './bloat-truth.js'

/**
 * @typedef {boolean | 'approx'} PgstattupleMode  false: none; true: pgstattuple;
 *   'approx': the tables' figures from pgstattuple_approx
 */

export const EXACT_EVERY_MS = 60000

// The extension's schema in the connected database, or no row.
export const FIND_EXTENSION = `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'`

// The relations to scan: user tables, and their B-tree indexes.
export const TARGETS = `SELECT t.relid AS oid, t.schemaname, t.relname, NULL AS indexrelname
FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid WHERE c.relkind IN ('r', 'm')
UNION ALL
SELECT i.indexrelid, i.schemaname, i.relname, i.indexrelname
FROM pg_stat_user_indexes i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am am ON am.oid = c.relam AND am.amname = 'btree'`

/**
 * Scans every target; a failed scan is skipped.
 * @param {{
 *   schema: string,
 *   datname: string,
 *   run: (sql: string, params?: unknown[]) => Promise<import('./rows.js').Row[] | null>,
 *   approx?: boolean
 * }} options  run returns null when the statement failed (and was counted); approx: tables by
 *   pgstattuple_approx
 * @returns {Promise<{ tables: import('./rows.js').Row[], indexes: import('./rows.js').Row[] } | null>} null: the target
 *   list could not be read
 */
export async function scanExactBloat({ schema, datname, run, approx = false }) {
  const targets = await run(TARGETS)
  if (targets === null) return null
  const heapSql = approx ? heapApproxSql(schema) : heapTruthSql(schema)
  const heapMethod = approx ? 'pgstattuple_approx' : 'pgstattuple'
  const btreeSql = btreeTruthSql(schema)
  /** @type {import('./rows.js').Row[]} */
  const tables = []
  /** @type {import('./rows.js').Row[]} */
  const indexes = []
  for (const target of targets) {
    const rows = await run(target.indexrelname === null ? heapSql : btreeSql, [target.oid])
    if (rows === null || rows.length === 0) continue
    const length = Number(rows[0].relation_bytes)
    const bloat = Number(rows[0].bloat_bytes)
    const row = {
      datname,
      schemaname: String(target.schemaname),
      relname: String(target.relname),
      indexrelname: target.indexrelname === null ? null : String(target.indexrelname),
      relation_bytes: length,
      bloat_bytes: bloat,
      bloat_ratio: length > 0 ? bloat / length : 0,
      method: target.indexrelname === null ? heapMethod : 'pgstatindex'
    }
    if (row.indexrelname === null) tables.push(row)
    else indexes.push(row)
  }
  return { tables, indexes }
}
