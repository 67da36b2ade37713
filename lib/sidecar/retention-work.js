// What the retention actions do on the server. Each removal commits on its
// own (one partition dropped, one batch deleted) and is reported as it
// commits, so that a failure or a cancellation leaves an exact account of
// what is gone.

import { performance } from 'node:perf_hooks'
import { RuntimeError } from '../errors.js'
import { qualifiedName, readPartitionedTable } from '../workloads/partitions.js'
import { quoteTable } from '../helpers/table-name.js'

/** @typedef {import('../workloads/partitions.js').Sql} Sql */
/** @typedef {import('./retention-spec.js').Retention} Retention */

const TIME_TYPES = ['timestamp with time zone', 'timestamp without time zone', 'date']

/**
 * Drops every partition whose upper bound is at or before the cutoff. The
 * rows of each are counted with count(*) right before its DROP, in the same
 * transaction: exact, unless rows are written into a partition older than
 * the cutoff between the count and the drop. DROP TABLE of a partition
 * takes an ACCESS EXCLUSIVE lock on the parent: writes to the table wait
 * for it, and it waits for the writes in flight (drop_ms shows how long).
 * @param {Sql} sql
 * @param {Retention} retention
 * @param {Record<string, unknown>} detail   filled as it goes: the end event's
 * @param {(rows: number) => void} removed   told after each commit
 */
export async function dropOldPartitions(sql, retention, detail, removed) {
  const parent = await readPartitionedTable(sql, retention.table)
  const finite = parent.partitions.filter(p => p.from !== null && p.to !== null)
  const widthMs = Math.max(
    0,
    ...finite.map(p => /** @type {Date} */ (p.to).getTime() - /** @type {Date} */ (p.from).getTime())
  )
  if (retention.olderThanS * 1000 < widthMs) {
    throw new RuntimeError(
      `older_than (${retention.olderThanS} s) is shorter than one partition of ${retention.table} (${widthMs / 1000} s): give at least ${widthMs / 1000} s`,
      { code: 'PGLG_UNFIT_TABLE' }
    )
  }
  Object.assign(detail, { dropped: 0, rows: 0, bytes: 0, rows_counted_by: 'count(*)', partitions: [] })
  const reference = await referenceTime(sql, retention, parent, parent.column)
  if (reference === null) {
    Object.assign(detail, { reference: null, cutoff: null, note: 'the table is empty' })
    return
  }
  const cutoff = reference - retention.olderThanS * 1000
  Object.assign(detail, { reference: iso(reference), cutoff: iso(cutoff) })
  const old = parent.partitions.filter(p => !p.isDefault && p.to !== null && p.to.getTime() <= cutoff)
  const dropped = /** @type {Array<Record<string, unknown>>} */ (detail.partitions)
  for (const partition of old) {
    const name = qualifiedName(partition.schema, partition.name)
    await sql('BEGIN')
    try {
      const [size] = await sql(
        `SELECT (SELECT count(*) FROM ${name})::int8 AS rows, pg_total_relation_size(to_regclass($1))::int8 AS bytes`,
        [name]
      )
      const dropStarted = performance.now()
      await sql(`DROP TABLE ${name}`)
      await sql('COMMIT')
      const rows = Number(size.rows)
      const bytes = Number(size.bytes)
      dropped.push({
        name: partition.name,
        from: partition.from?.toISOString() ?? null,
        to: partition.to?.toISOString(),
        rows,
        bytes,
        drop_ms: Math.round(performance.now() - dropStarted)
      })
      detail.dropped = dropped.length
      detail.rows = /** @type {number} */ (detail.rows) + rows
      detail.bytes = /** @type {number} */ (detail.bytes) + bytes
      removed(rows)
    } catch (err) {
      await sql('ROLLBACK').catch(() => {})
      throw err
    }
  }
}

/**
 * Deletes the rows older than the cutoff, `batch` at a time, each batch its
 * own transaction, until none is left: rows found by their ctid, from each
 * leaf partition on its own (a ctid names a row only within one relation),
 * skipping partitions that start at or after the cutoff.
 * @param {Sql} sql
 * @param {Retention} retention
 * @param {Record<string, unknown>} detail
 * @param {(rows: number) => void} removed
 */
export async function deleteOldRows(sql, retention, detail, removed) {
  const target = await describeTable(sql, retention.table, retention.timeColumn)
  Object.assign(detail, { rows_deleted: 0, batches: 0, batch: retention.batch })
  const partitioned = target.kind === 'p' ? await readPartitionedTable(sql, retention.table).catch(() => null) : null
  const byTime = partitioned !== null && partitioned.column === retention.timeColumn ? partitioned : null
  const reference = await referenceTime(sql, retention, byTime, retention.timeColumn, quoteTable(retention.table))
  if (reference === null) {
    Object.assign(detail, { reference: null, cutoff: null, duration_s: 0, note: 'the table is empty' })
    return
  }
  const cutoff = reference - retention.olderThanS * 1000
  Object.assign(detail, { reference: iso(reference), cutoff: iso(cutoff) })
  const started = performance.now()
  const column = `"${retention.timeColumn}"`
  const bound = cutoffSql(target.type)
  for (const leaf of await leavesBefore(sql, target, byTime, cutoff)) {
    const statement = `DELETE FROM ${leaf} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${leaf} WHERE ${column} < ${bound} LIMIT $2)) AND ${column} < ${bound}`
    for (;;) {
      const result = await sql(`WITH gone AS (${statement} RETURNING 1) SELECT count(*)::int8 AS n FROM gone`, [
        cutoff / 1000,
        retention.batch
      ])
      const rows = Number(result[0].n)
      if (rows === 0) break
      detail.rows_deleted = /** @type {number} */ (detail.rows_deleted) + rows
      detail.batches = /** @type {number} */ (detail.batches) + 1
      detail.duration_s = Math.round(performance.now() - started) / 1000
      removed(rows)
    }
  }
  detail.duration_s = Math.round(performance.now() - started) / 1000
}

/**
 * The table, its kind and the type of its time column; a missing table or
 * column is the server's answer, one line.
 * @param {Sql} sql
 * @param {string} table
 * @param {string} timeColumn
 */
async function describeTable(sql, table, timeColumn) {
  const [row] = await sql(
    `SELECT c.oid::int8 AS oid, c.relkind AS kind,
  (SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
    WHERE a.attrelid = c.oid AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped) AS type
FROM pg_class c WHERE c.oid = to_regclass($1)`,
    [quoteTable(table), timeColumn]
  )
  if (!row) throw new RuntimeError(`table ${table} does not exist`, { code: 'PGLG_UNFIT_TABLE' })
  if (row.kind !== 'r' && row.kind !== 'p') {
    throw new RuntimeError(`${table} is not a table`, { code: 'PGLG_UNFIT_TABLE' })
  }
  if (row.type === null) {
    throw new RuntimeError(`table ${table} has no column ${timeColumn}`, { code: 'PGLG_UNFIT_TABLE' })
  }
  if (!TIME_TYPES.includes(String(row.type))) {
    throw new RuntimeError(`column ${timeColumn} of ${table} is ${row.type}, not a time`, { code: 'PGLG_UNFIT_TABLE' })
  }
  return { table, oid: Number(row.oid), kind: String(row.kind), type: String(row.type) }
}

/**
 * The relations to delete from: the table itself, or its leaf partitions
 * but those known to start at or after the cutoff.
 * @param {Sql} sql
 * @param {{ table: string, kind: string }} target
 * @param {import('../workloads/partitions.js').PartitionedTable | null} byTime  its partitions, when partitioned by the
 *   time column
 * @param {number} cutoff  ms
 * @returns {Promise<string[]>}  quoted names
 */
async function leavesBefore(sql, target, byTime, cutoff) {
  if (target.kind !== 'p') return [quoteTable(target.table)]
  const young = new Set(
    (byTime?.partitions ?? [])
      .filter(p => p.from !== null && p.from.getTime() >= cutoff)
      .map(p => `${p.schema}.${p.name}`)
  )
  const rows = await sql(
    `SELECT n.nspname AS schema, c.relname AS name
FROM pg_partition_tree(to_regclass($1)) t
JOIN pg_class c ON c.oid = t.relid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE t.isleaf
ORDER BY t.level, c.relname`,
    [quoteTable(target.table)]
  )
  return rows.filter(r => !young.has(`${r.schema}.${r.name}`)).map(r => qualifiedName(String(r.schema), String(r.name)))
}

/**
 * The reference the cutoff is measured from, in ms: the server's clock, or
 * the newest time in the table. For a table partitioned by that time, the
 * partitions are read newest first and empty ones (no pages) skipped, so
 * that partitions made ahead cost nothing and no index is needed beyond
 * the newest partition with rows.
 * @param {Sql} sql
 * @param {Retention} retention
 * @param {import('../workloads/partitions.js').PartitionedTable | null} byTime
 * @param {string} column
 * @param {string} [whole]   the quoted table, read as a whole when not partitioned by the time
 * @returns {Promise<number | null>}
 */
async function referenceTime(sql, retention, byTime, column, whole) {
  if (retention.relativeTo === 'clock') {
    return Number((await sql('SELECT extract(epoch FROM now())::float8 AS now'))[0].now) * 1000
  }
  const newest = `SELECT extract(epoch FROM max("${column}"))::float8 AS newest FROM`
  if (byTime === null) return epochMs((await sql(`${newest} ${whole}`))[0].newest)
  const sizes = new Map(
    (
      await sql(
        `SELECT n.nspname AS schema, c.relname AS name, pg_relation_size(c.oid)::int8 AS bytes
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE i.inhparent = to_regclass($1)`,
        [qualifiedName(byTime.schema, byTime.name)]
      )
    ).map(r => [`${r.schema}.${r.name}`, Number(r.bytes)])
  )
  // A DEFAULT partition may hold anything: read first; then newest first.
  const order = [
    ...byTime.partitions.filter(p => p.isDefault),
    ...byTime.partitions.filter(p => !p.isDefault).reverse()
  ]
  /** @type {number | null} */
  let best = null
  for (const p of order) {
    if (sizes.get(`${p.schema}.${p.name}`) === 0) continue
    const value = epochMs((await sql(`${newest} ${qualifiedName(p.schema, p.name)}`))[0].newest)
    if (value === null) continue
    best = best === null ? value : Math.max(best, value)
    if (!p.isDefault) break
  }
  return best
}

/**
 * The cutoff as SQL of the column's type, from $1 (epoch seconds): a
 * timestamp without time zone holds UTC here, as the partitions do.
 * @param {string} type
 */
function cutoffSql(type) {
  if (type === 'timestamp with time zone') return 'to_timestamp($1)'
  if (type === 'date') return "(to_timestamp($1) AT TIME ZONE 'UTC')::date"
  return "(to_timestamp($1) AT TIME ZONE 'UTC')"
}

/** @param {unknown} value */
function epochMs(value) {
  return value === null || value === undefined ? null : Number(value) * 1000
}

/** @param {number} ms */
function iso(ms) {
  return new Date(ms).toISOString()
}
