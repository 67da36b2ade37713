// Native range partitions of a time column, for workloads that write time
// series: the parent's DDL, partitions made ahead of the data (idempotent and
// safe from several processes at once), and the list of partitions with
// their bounds, which retention reads too.
//
// Indexes made on the parent are made on every partition, present and
// future (PostgreSQL 11+); a unique index must include the time column.
// Creating a partition takes an ACCESS EXCLUSIVE lock on the parent (writes
// to it wait), so each partition is made in a transaction of its own.

import { RuntimeError } from '../errors.js'
import { quoteTable } from '../helpers/table-name.js'

// First key of the two-key advisory locks that serialise partition creation
// on one parent ("pglp"); the second key is the parent's oid.
const LOCK_NAMESPACE = 0x70676c70
// A call that would create more is a mistake (a 1 s interval over a year).
export const MAX_NEW_PARTITIONS = 10000

const TIME_TYPES = ['timestamp with time zone', 'timestamp without time zone', 'date']

/**
 * @typedef {(text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>} Sql
 *   runs one statement on one connection in autocommit, returns its rows
 */

/**
 * @typedef {object} PartitionBounds
 * @property {string} schema
 * @property {string} name
 * @property {Date | null} from   null: MINVALUE, or a DEFAULT partition
 * @property {Date | null} to     null: MAXVALUE, or a DEFAULT partition
 * @property {boolean} isDefault
 */

/**
 * @typedef {object} PartitionedTable
 * @property {string} schema
 * @property {string} name
 * @property {string} column      the partition key
 * @property {string} type        its type, as format_type prints it
 * @property {PartitionBounds[]} partitions   ordered by lower bound
 */

/**
 * The statement that creates a table partitioned by range of its time column.
 * @param {{ table: string, columns: string, timeColumn?: string }} spec   columns: column definitions, SQL
 */
export function partitionedTableSql({ table, columns, timeColumn = 'time' }) {
  if (typeof columns !== 'string' || columns.trim() === '') {
    throw new TypeError('partitionedTableSql: columns must be SQL column definitions')
  }
  return `CREATE TABLE IF NOT EXISTS ${quoteTable(table)} (${columns}) PARTITION BY RANGE (${quoteIdentifier(timeColumn)})`
}

/**
 * Creates the partitions of [from, to) that are missing: each covers one
 * interval, aligned on multiples of intervalS since the Unix epoch (UTC),
 * and is named <table>_pYYYYMMDD_HHMMSS after its lower bound. A range that
 * an existing partition already covers is left alone; one that a partition
 * of another width covers in part is refused. Two callers at once create
 * each partition once (an advisory lock per parent, and IF NOT EXISTS).
 * @param {Sql} sql
 * @param {{ table: string, intervalS: number, from: Date, to: Date, timeColumn?: string }} spec
 * @returns {Promise<{ created: string[] }>}   the partitions this call created
 */
export async function ensurePartitions(sql, { table, intervalS, from, to, timeColumn = 'time' }) {
  if (!Number.isInteger(intervalS) || intervalS < 1) {
    throw new RangeError(`ensurePartitions: intervalS must be a whole number of seconds ≥ 1, got ${intervalS}`)
  }
  checkDate(from, 'from')
  checkDate(to, 'to')
  const intervalMs = intervalS * 1000
  const first = Math.floor(from.getTime() / intervalMs) * intervalMs
  const count = Math.max(0, Math.ceil((to.getTime() - first) / intervalMs))
  if (count === 0) return { created: [] }
  if (count > MAX_NEW_PARTITIONS) {
    throw new RangeError(
      `ensurePartitions: [${from.toISOString()}, ${to.toISOString()}) at ${intervalS} s is ${count} partitions, more than ${MAX_NEW_PARTITIONS}`
    )
  }
  const parent = await readPartitionedTable(sql, table)
  if (parent.column !== timeColumn) {
    throw new RuntimeError(`${table} is partitioned by ${parent.column}, not ${timeColumn}`, {
      code: 'PGLG_UNFIT_TABLE'
    })
  }
  if (parent.type === 'date' && intervalS % 86400 !== 0) {
    throw new RuntimeError(`${table} is partitioned by a date: its partitions must be whole days, not ${intervalS} s`, {
      code: 'PGLG_UNFIT_TABLE'
    })
  }
  const parentSql = qualifiedName(parent.schema, parent.name)
  /** @type {string[]} */
  const created = []
  for (let i = 0; i < count; i++) {
    const lo = first + i * intervalMs
    const hi = lo + intervalMs
    if (alreadyCovered(parent, lo, hi)) continue
    const name = partitionName(parent.name, new Date(lo))
    if (await createPartition(sql, parentSql, qualifiedName(parent.schema, name), lo, hi)) created.push(name)
  }
  return { created }
}

/**
 * The partitions of a table with finite bounds (not a DEFAULT one), ordered
 * by lower bound.
 * @param {Sql} sql
 * @param {string} table
 * @returns {Promise<Array<{ name: string, from: Date, to: Date }>>}
 */
export async function listPartitions(sql, table) {
  const { partitions } = await readPartitionedTable(sql, table)
  return partitions.flatMap(p => (p.from && p.to ? [{ name: p.name, from: p.from, to: p.to }] : []))
}

/**
 * A partitioned table as the catalog describes it: its key and its
 * partitions with their bounds. The bounds are read back from
 * pg_get_expr(relpartbound) and cast in the same statement, so that the
 * session's TimeZone and DateStyle, which printed them, read them too.
 * @param {Sql} sql
 * @param {string} table   name or schema.name
 * @returns {Promise<PartitionedTable>}
 */
export async function readPartitionedTable(sql, table) {
  const quoted = quoteTable(table)
  const [parent] = await sql(
    `SELECT c.oid::int8 AS oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind,
  p.partstrat AS strategy, p.partnatts AS key_columns, a.attname AS key_column,
  format_type(a.atttypid, a.atttypmod) AS type
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_partitioned_table p ON p.partrelid = c.oid
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0]
WHERE c.oid = to_regclass($1)`,
    [quoted]
  )
  if (!parent) throw new RuntimeError(`table ${table} does not exist`, { code: 'PGLG_UNFIT_TABLE' })
  if (parent.kind !== 'p') throw new RuntimeError(`table ${table} is not partitioned`, { code: 'PGLG_UNFIT_TABLE' })
  if (parent.strategy !== 'r' || Number(parent.key_columns) !== 1 || parent.key_column === null) {
    throw new RuntimeError(`table ${table} is not partitioned by range of one column`, { code: 'PGLG_UNFIT_TABLE' })
  }
  const type = String(parent.type)
  if (!TIME_TYPES.includes(type)) {
    throw new RuntimeError(`table ${table} is partitioned by ${parent.key_column} of type ${type}, not a time`, {
      code: 'PGLG_UNFIT_TABLE'
    })
  }
  const cast = type === 'date' ? 'date' : type === 'timestamp without time zone' ? 'timestamp' : 'timestamptz'
  const rows = await sql(
    `SELECT n.nspname AS schema, c.relname AS name, b.bound = 'DEFAULT' AS is_default,
  extract(epoch FROM (substring(b.bound FROM $re$FROM \\('([^']*)'\\)$re$))::${cast})::float8 AS from_s,
  extract(epoch FROM (substring(b.bound FROM $re$TO \\('([^']*)'\\)$re$))::${cast})::float8 AS to_s
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
WHERE i.inhparent = $1::int8::oid
ORDER BY from_s NULLS FIRST, c.relname`,
    [parent.oid]
  )
  return {
    schema: String(parent.schema),
    name: String(parent.name),
    column: String(parent.key_column),
    type,
    partitions: rows.map(row => ({
      schema: String(row.schema),
      name: String(row.name),
      from: row.from_s === null ? null : new Date(Number(row.from_s) * 1000),
      to: row.to_s === null ? null : new Date(Number(row.to_s) * 1000),
      isDefault: row.is_default === true
    }))
  }
}

/**
 * schema.name as SQL, for names read from the catalog (any characters).
 * @param {string} schema
 * @param {string} name
 */
export function qualifiedName(schema, name) {
  const quote = (/** @type {string} */ part) => `"${part.replaceAll('"', '""')}"`
  return `${quote(schema)}.${quote(name)}`
}

/**
 * <table>_pYYYYMMDD_HHMMSS, the lower bound in UTC.
 * @param {string} table   the parent's name, without schema
 * @param {Date} from
 */
export function partitionName(table, from) {
  const iso = from.toISOString()
  const name = `${table}_p${iso.slice(0, 10).replaceAll('-', '')}_${iso.slice(11, 19).replaceAll(':', '')}`
  // PostgreSQL would cut a longer name silently, and two partitions could then collide.
  if (Buffer.byteLength(name) > 63) {
    throw new RangeError(`partition name ${name} is longer than 63 bytes: shorten the table's name`)
  }
  return name
}

/**
 * True when one partition already covers [lo, hi); a partition that covers
 * part of it is another width, which no aligned partition could fit.
 * @param {PartitionedTable} parent
 * @param {number} lo  ms
 * @param {number} hi  ms
 */
function alreadyCovered(parent, lo, hi) {
  for (const p of parent.partitions) {
    const from = p.from?.getTime() ?? -Infinity
    const to = p.to?.getTime() ?? Infinity
    if (p.isDefault || to <= lo || from >= hi) continue
    if (from <= lo && to >= hi) return true
    throw new RuntimeError(
      `partition ${p.name} of ${parent.name} [${describe(p.from)}, ${describe(p.to)}) overlaps [${new Date(lo).toISOString()}, ${new Date(hi).toISOString()}) in part: its partitions have another width (drop the table, or keep the interval it was made with)`,
      { code: 'PGLG_UNFIT_TABLE' }
    )
  }
  return false
}

/**
 * One partition in a transaction of its own, under the parent's advisory
 * lock; true when this call created it.
 * @param {Sql} sql
 * @param {string} parentSql
 * @param {string} partitionSql
 * @param {number} lo  ms
 * @param {number} hi  ms
 */
async function createPartition(sql, parentSql, partitionSql, lo, hi) {
  await sql('BEGIN')
  try {
    const [row] = await sql(
      'SELECT pg_advisory_xact_lock($1, to_regclass($2)::oid::int4), to_regclass($3) IS NULL AS missing',
      [LOCK_NAMESPACE, parentSql, partitionSql]
    )
    if (row.missing) {
      // Made apart, then attached: CREATE TABLE … PARTITION OF would lock the
      // parent against the writes in flight (ACCESS EXCLUSIVE), and ingest
      // would stall behind every partition made ahead of it; ATTACH PARTITION
      // locks it only against other schema changes (SHARE UPDATE EXCLUSIVE).
      // The parent's indexes are made on the empty table as it is attached.
      await sql(`CREATE TABLE ${partitionSql} (LIKE ${parentSql} INCLUDING ALL EXCLUDING INDEXES)`)
      await sql(
        `ALTER TABLE ${parentSql} ATTACH PARTITION ${partitionSql} FOR VALUES FROM ('${literal(lo)}') TO ('${literal(hi)}')`
      )
    }
    await sql('COMMIT')
    return row.missing === true
  } catch (err) {
    await sql('ROLLBACK').catch(() => {})
    throw err
  }
}

/**
 * A bound as SQL text: UTC with its offset, read the same by timestamptz,
 * timestamp (which ignores the offset) and date.
 * @param {number} ms
 */
function literal(ms) {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.000Z$|Z$/, '+00')
}

/** @param {Date | null} date */
function describe(date) {
  return date === null ? 'unbounded' : date.toISOString()
}

/**
 * @param {unknown} date
 * @param {string} name
 */
function checkDate(date, name) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new TypeError(`ensurePartitions: ${name} must be a valid Date`)
  }
}

/** @param {string} name */
function quoteIdentifier(name) {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(String(name))) throw new TypeError(`not a column name: "${name}"`)
  return `"${name}"`
}
