// A cheap bloat estimate from the catalogs and the statistics system, of the
// quantity pgstattuple measures (bloat-truth.js): the share of a relation's
// bytes that hold no live tuple, dead tuples and free space (the room a
// fillfactor keeps free included). It reads catalogs and the statistics
// system only: no page of the relation, no lock (a relation's size is
// pg_class.relpages, as of its last VACUUM, ANALYZE or CREATE INDEX). The
// formula, its limits and its measured error per PostgreSQL major are in
// notes/pgstats-metrics.md:
//
//   live rows    = reltuples (as of relpages: the last VACUUM, ANALYZE or CREATE INDEX)
//   row width    = Σ (1 - null_frac) · avg_width over the columns (pg_stats)
//   heap         used  = pages · 24 + live rows · (MAXALIGN(MAXALIGN(23 + null bitmap) + row width) + 4)
//   B-tree       used  = 1 metapage + pages · 40 + entries · (MAXALIGN(8 [+ 4 if any null] + row width) + 4),
//                entries = n_live_tup + n_dead_tup of the table (a dead row keeps its
//                entries until VACUUM)
//   bloat bytes  = max(size - used, 0);  ratio = bloat bytes / size
//
// The estimate needs the statistics of every column it measures. When the
// role may not read a column (pg_stats then hides its row) there is no row
// at all, never a guess. When a readable column has no statistics yet (the
// table was never analysed), the row's method is 'dead_tuples' and its
// figure only the dead tuples' share of the relation, n_dead_tup /
// (n_live_tup + n_dead_tup) · size: a lower bound, without the free space.
// Otherwise the method is 'estimate'.
//
// B-tree indexes only; the other access methods have no such estimate.

/**
 * Aggregates of a set of pg_attribute rows `a` joined with pg_stats `s`;
 * missing is true when a column has no statistics, hidden when the role may
 * not read one (`readable`, an expression, says whether it may).
 * @param {string} readable
 */
const columnAggregates = readable => `count(*) AS natts,
    sum((1 - coalesce(s.null_frac, 0)) * coalesce(s.avg_width, 0)) AS data_width,
    bool_or(s.avg_width IS NULL) AS missing,
    bool_or(NOT ${readable}) AS hidden,
    bool_or(coalesce(s.null_frac, 0) > 0) AS has_nulls`

// The dead tuples' share of table t, 0 when it has no tuples.
const DEAD_SHARE = 'coalesce(t.n_dead_tup::numeric / nullif(t.n_live_tup + t.n_dead_tup, 0), 0)'

// The live rows of class c as of relpages. Not n_live_tup: a session's
// counts reach the statistics system up to a second after its statements,
// so deletes committed just before a VACUUM ends are subtracted again from
// the live rows the VACUUM counted (a table half deleted then vacuumed in one
// session read 0 live rows on PostgreSQL 15).
const LIVE_ROWS = 'greatest(c.reltuples, 0)'

/** MAXALIGN of a numeric expression. @param {string} x */
const maxalign = x => `(8 * ceil((${x}) / 8.0))`

// A heap tuple's bytes: the header (23 bytes and the null bitmap, aligned), the data, aligned.
const HEAP_TUPLE = maxalign(
  `${maxalign('23 + CASE WHEN cols.has_nulls THEN ceil(cols.natts / 8.0) ELSE 0 END')} + cols.data_width`
)

const BLOCK = "current_setting('block_size')::numeric"

const OUTPUT = `CASE WHEN missing THEN dead_share * size WHEN size > 0 THEN greatest(size - used, 0) ELSE 0 END
    AS bloat_bytes, CASE WHEN missing THEN 'dead_tuples' ELSE 'estimate' END AS method`

export function tableBloatSql() {
  return `WITH cols AS (
  SELECT a.attrelid AS relid, ${columnAggregates("has_column_privilege(t.relid, a.attnum, 'SELECT')")}
  FROM pg_stat_user_tables t
  JOIN pg_attribute a ON a.attrelid = t.relid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_stats s
    ON s.schemaname = t.schemaname AND s.tablename = t.relname AND s.attname = a.attname AND NOT s.inherited
  GROUP BY a.attrelid
),
est AS (
  SELECT t.schemaname, t.relname, c.relpages * ${BLOCK} AS size, cols.missing, ${DEAD_SHARE} AS dead_share,
    c.relpages * 24 + ${LIVE_ROWS} * (${HEAP_TUPLE} + 4) AS used
  FROM pg_stat_user_tables t
  JOIN pg_class c ON c.oid = t.relid
  JOIN cols ON cols.relid = t.relid AND NOT cols.hidden
  WHERE c.relkind IN ('r', 'm')
),
bloat AS (SELECT schemaname, relname, size, ${OUTPUT} FROM est)
SELECT current_database() AS datname, schemaname, relname, method,
  size::float8 AS relation_bytes, bloat_bytes::float8 AS bloat_bytes,
  coalesce(bloat_bytes / nullif(size, 0), 0)::float8 AS bloat_ratio
FROM bloat`
}

// Whether the role may read an index column's statistics: the table's
// column, or for an expression the table.
const INDEX_COLUMN_READABLE =
  "CASE WHEN idx.indkey[a.attnum - 1] = 0 THEN has_table_privilege(idx.indrelid, 'SELECT') " +
  "ELSE has_column_privilege(idx.indrelid, ta.attnum, 'SELECT') END"

export function indexBloatSql() {
  return `WITH idx AS (
  SELECT i.schemaname, i.relname, i.indexrelname, x.indexrelid, x.indrelid, x.indkey
  FROM pg_stat_user_indexes i
  JOIN pg_index x ON x.indexrelid = i.indexrelid
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
),
cols AS (
  SELECT idx.indexrelid, ${columnAggregates(INDEX_COLUMN_READABLE)}
  FROM idx
  JOIN pg_attribute a ON a.attrelid = idx.indexrelid AND a.attnum > 0
  LEFT JOIN pg_attribute ta ON ta.attrelid = idx.indrelid AND ta.attnum = idx.indkey[a.attnum - 1]
  -- a plain column has the table's statistics, an expression the index's own
  LEFT JOIN pg_stats s ON s.schemaname = idx.schemaname AND NOT s.inherited
    AND s.tablename = CASE WHEN idx.indkey[a.attnum - 1] = 0 THEN idx.indexrelname ELSE idx.relname END
    AND s.attname = CASE WHEN idx.indkey[a.attnum - 1] = 0 THEN a.attname ELSE ta.attname END
  GROUP BY idx.indexrelid
),
est AS (
  SELECT idx.schemaname, idx.relname, idx.indexrelname, ic.relpages * ${BLOCK} AS size,
    cols.missing, ${DEAD_SHARE} AS dead_share,
    t.n_live_tup + t.n_dead_tup AS entries,
    ${maxalign('8 + CASE WHEN cols.has_nulls THEN 4 ELSE 0 END + cols.data_width')} + 4 AS entry
  FROM idx
  JOIN pg_class ic ON ic.oid = idx.indexrelid
  JOIN pg_stat_user_tables t ON t.relid = idx.indrelid
  JOIN cols ON cols.indexrelid = idx.indexrelid AND NOT cols.hidden
),
used AS (
  SELECT *, ${BLOCK} + size / ${BLOCK} * 40 + entries * entry AS used
  FROM est
),
bloat AS (SELECT schemaname, relname, indexrelname, size, ${OUTPUT} FROM used)
SELECT current_database() AS datname, schemaname, relname, indexrelname, method,
  size::float8 AS relation_bytes, bloat_bytes::float8 AS bloat_bytes,
  coalesce(bloat_bytes / nullif(size, 0), 0)::float8 AS bloat_ratio
FROM bloat`
}
