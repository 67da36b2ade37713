// A cheap bloat estimate from the catalogs, the well-known approach of
// comparing the pages a relation occupies (pg_class.relpages) with the pages
// its rows would need (pg_class.reltuples times the average row width from
// pg_stats). It reads catalogs only: no relation lock, no scan. The formula,
// with its limits, is in notes/pgstats-metrics.md:
//
//   heap tuple   = MAXALIGN(23 + null bitmap) + MAXALIGN(sum((1 - null_frac) * avg_width)) + 4 (line pointer)
//   index tuple  = MAXALIGN(8 + 4 if any null) + MAXALIGN(sum((1 - null_frac) * avg_width)) + 4
//   page room    = (block_size - 24 [- 16 btree special space]) * fillfactor / 100
//   expected     = ceil(reltuples / floor(page room / tuple)) [+ 1 btree metapage]
//   bloat bytes  = max(relpages - expected, 0) * block_size;  ratio = bloat bytes / (relpages * block_size)
//
// A column without pg_stats (table never analysed) has no average width: the
// fixed length of its type is used when it has one, otherwise (or when
// reltuples is unknown, -1) the estimate falls back to the dead-tuple share
// n_dead_tup / (n_live_tup + n_dead_tup) of pg_stat_user_tables times the
// relation's pages. The method used is the `method` column.
//
// B-tree indexes only; the other access methods have no such estimate.

/**
 * Width of the stored data of a set of pg_attribute rows `a` joined with
 * pg_stats `s`; NULL width when a column has neither statistics nor a
 * fixed length.
 */
const WIDTH = 'coalesce(s.avg_width, CASE WHEN a.attlen > 0 THEN a.attlen END)'
const COLUMN_AGGREGATES = `count(*) AS natts,
    sum((1 - coalesce(s.null_frac, 0)) * ${WIDTH}) AS data_width,
    bool_or(${WIDTH} IS NULL) AS missing,
    bool_or(coalesce(s.null_frac, 0) > 0) AS has_nulls`

/** @param {string} fallback  fillfactor when the relation has none */
const fillfactor = fallback =>
  `coalesce((SELECT split_part(o, '=', 2)::numeric FROM unnest(c.reloptions) o WHERE o LIKE ` +
  `'fillfactor=%'), ${fallback})`

// The dead-tuple share of a table, 0 when it has no tuples.
const DEAD_SHARE = 'coalesce(t.n_dead_tup::numeric / nullif(t.n_live_tup + t.n_dead_tup, 0), 0)'

export function tableBloatSql() {
  return `WITH cols AS (
  SELECT a.attrelid AS relid, ${COLUMN_AGGREGATES}
  FROM pg_stat_user_tables t
  JOIN pg_attribute a ON a.attrelid = t.relid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_stats s
    ON s.schemaname = t.schemaname AND s.tablename = t.relname AND s.attname = a.attname AND NOT s.inherited
  GROUP BY a.attrelid
),
est AS (
  SELECT t.schemaname, t.relname, c.relpages::numeric AS relpages, c.reltuples::numeric AS reltuples,
    current_setting('block_size')::numeric AS bs, ${DEAD_SHARE} AS dead_share,
    (cols.missing IS NOT FALSE OR c.reltuples < 0) AS fallback,
    floor((current_setting('block_size')::numeric - 24) * ${fillfactor('100')} / 100
      / (8 * ceil((23 + CASE WHEN cols.has_nulls THEN ceil(cols.natts / 8.0) ELSE 0 END) / 8.0)
         + 8 * ceil(coalesce(cols.data_width, 0) / 8.0) + 4)) AS tuples_per_page
  FROM pg_stat_user_tables t
  JOIN pg_class c ON c.oid = t.relid
  LEFT JOIN cols ON cols.relid = t.relid
  WHERE c.relkind IN ('r', 'm')
),
bloat AS (
  SELECT schemaname, relname, relpages * bs AS relation_bytes, fallback,
    CASE WHEN fallback THEN dead_share * relpages * bs
      ELSE greatest(relpages - ceil(reltuples / greatest(tuples_per_page, 1)), 0) * bs END AS bloat_bytes
  FROM est
)
SELECT current_database() AS datname, schemaname, relname,
  CASE WHEN fallback THEN 'dead_tuples' ELSE 'catalog' END AS method,
  relation_bytes::float8 AS relation_bytes, bloat_bytes::float8 AS bloat_bytes,
  coalesce(bloat_bytes / nullif(relation_bytes, 0), 0)::float8 AS bloat_ratio
FROM bloat`
}

export function indexBloatSql() {
  return `WITH idx AS (
  SELECT i.schemaname, i.relname, i.indexrelname, x.indexrelid, x.indrelid, x.indkey
  FROM pg_stat_user_indexes i
  JOIN pg_index x ON x.indexrelid = i.indexrelid
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
),
cols AS (
  SELECT idx.indexrelid, ${COLUMN_AGGREGATES}
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
  SELECT idx.schemaname, idx.relname, idx.indexrelname,
    c.relpages::numeric AS relpages, c.reltuples::numeric AS reltuples,
    current_setting('block_size')::numeric AS bs, ${DEAD_SHARE} AS dead_share,
    (cols.missing IS NOT FALSE OR c.reltuples < 0) AS fallback,
    floor((current_setting('block_size')::numeric - 24 - 16) * ${fillfactor('90')} / 100
      / (8 * ceil((8 + CASE WHEN cols.has_nulls THEN 4 ELSE 0 END) / 8.0)
         + 8 * ceil(coalesce(cols.data_width, 0) / 8.0) + 4)) AS tuples_per_page
  FROM idx
  JOIN pg_class c ON c.oid = idx.indexrelid
  JOIN pg_stat_user_tables t ON t.relid = idx.indrelid
  LEFT JOIN cols ON cols.indexrelid = idx.indexrelid
),
bloat AS (
  SELECT schemaname, relname, indexrelname, relpages * bs AS relation_bytes, fallback,
    CASE WHEN fallback THEN dead_share * relpages * bs
      ELSE greatest(relpages - ceil(reltuples / greatest(tuples_per_page, 1)) - 1, 0) * bs END AS bloat_bytes
  FROM est
)
SELECT current_database() AS datname, schemaname, relname, indexrelname,
  CASE WHEN fallback THEN 'dead_tuples' ELSE 'catalog' END AS method,
  relation_bytes::float8 AS relation_bytes, bloat_bytes::float8 AS bloat_bytes,
  coalesce(bloat_bytes / nullif(relation_bytes, 0), 0)::float8 AS bloat_ratio
FROM bloat`
}
