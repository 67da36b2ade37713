// A cheap bloat estimate from the catalogs and the statistics system, of the
// quantity pgstattuple measures (bloat-truth.js): the share of a relation's
// bytes that hold no live tuple, dead tuples and free space (the room a
// fillfactor keeps free included). It reads catalogs and the statistics
// system only: no page of the relation, no lock (a relation's size is
// pg_class.relpages, as of its last VACUUM, ANALYZE or CREATE INDEX). The
// formula and its limits are in notes/pgstats-metrics.md, its measured error
// per PostgreSQL major and shape in docs/postgres-side.md:
//
//   live rows    = reltuples (as of relpages: the last VACUUM, ANALYZE or CREATE INDEX)
//   row width    = Σ (1 - null_frac) · avg_width over the columns (pg_stats)
//   heap         used  = pages · 24 + live rows · (MAXALIGN(MAXALIGN(23 + null bitmap) + row width) + 4)
//   B-tree       used  = (1 metapage + internal pages) · block + pages · (40 + high key)
//                        + key tuples · (tuple + 4) + 6 · TIDs in posting lists + 4 · posting lists,
//                tuple = MAXALIGN(8 [+ 4 if any null] + key width),
//                entries = n_live_tup + the dead rows that keep their entries until VACUUM;
//                key tuples = entries, or with deduplication (13+, non-unique) the distinct
//                keys among them (indexBloatSql says how)
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
  "CASE WHEN idx.indkey[a.attnum - 1] = 0 THEN has_table_privilege(idx.indrelid, 'SELECT') ELSE has_column_privilege(idx.indrelid, ta.attnum, 'SELECT') END"

// The distinct values of one index column among the table's live rows
// (pg_stats.n_distinct: a count, or when negative a share of the rows), one
// more when it holds nulls (deduplication treats nulls as equal).
const COLUMN_DISTINCT =
  'CASE WHEN s.n_distinct < 0 THEN -s.n_distinct * idx.live ELSE s.n_distinct END + CASE WHEN s.null_frac > 0 THEN 1 ELSE 0 END'

// Whether a key column's operator class may be deduplicated: it has the
// B-tree support function 4 (equalimage, PostgreSQL 13+). Numeric, float and
// jsonb have none; a nondeterministic collation's is false, which this
// cannot see.
const EQUALIMAGE = `EXISTS (SELECT 1 FROM pg_opclass oc JOIN pg_amproc p ON p.amprocfamily = oc.opcfamily
      AND p.amproclefttype = oc.opcintype AND p.amprocrighttype = oc.opcintype AND p.amprocnum = 4
    WHERE oc.oid = idx.indclass[a.attnum - 1])`

// The entries of an index: its table's live rows, and the dead ones that
// still have entries until VACUUM. A dead version a HOT update left has
// none, and pruning removes those from n_dead_tup, but not all: the dead
// with entries are at most n_dead_tup, and at most the deletes and non-HOT
// updates counted since the statistics were reset.
const ENTRIES = 't.n_live_tup + least(t.n_dead_tup, greatest(t.n_tup_del + t.n_tup_upd - t.n_tup_hot_upd, 0))'

// The multiplicities of the keys are taken to be those of keys drawn at
// random (Poisson): for a mean of mu entries per distinct key, lambda solves
// mu = lambda / (1 - exp(-lambda)), by Newton's method from
// min(mu, 2 (mu - 1)), which is never below the root, where the function is
// convex: NEWTON_STEPS steps leave it within 1e-6 for every mu > 1.0001.
const NEWTON_STEPS = 6

/**
 * Lateral subqueries from l0 (column `mu`) to l<NEWTON_STEPS>, each fenced by
 * OFFSET 0: pulled up, each step would repeat the one before three times
 * (planning took 27 s).
 */
const newton = () =>
  Array.from(
    { length: NEWTON_STEPS },
    (_, i) =>
      `  CROSS JOIN LATERAL (SELECT l${i} - (l${i} - mu * (1 - exp(-l${i}))) / nullif(1 - mu * exp(-l${i}), 0) AS l${i + 1} OFFSET 0) n${i + 1}`
  ).join('\n')

// B-tree page layout (src/include/access/nbtree.h, bufpage.h): a page is a
// 24-byte header, the 16-byte special space, a 4-byte line pointer per
// tuple. A leaf tuple is the 8-byte IndexTupleData [+ 4-byte null bitmap] and
// the key, MAXALIGNed; every leaf page but the rightmost holds a high key of
// about one tuple; the meta page and the internal pages hold no leaf
// tuple and count as used (pgstatindex does not count them as free). The
// internal pages are those needed for one pivot per leaf page at the 70 %
// nonleaf fillfactor of a build, at least one (the root) once there are two
// leaf pages.
//
// Deduplication (13+, non-unique indexes whose key columns all have an
// equalimage function, deduplicate_items not off, no INCLUDE columns) makes
// the entries of one key one posting list tuple, the key tuple and 6 bytes a
// heap TID, MAXALIGNed (about 4 bytes of padding). With D distinct keys
// among E entries of which S are alone: D tuples, 6 (E - S) bytes of TIDs,
// 4 (D - S) of padding. D and S come from the live rows' distinct keys
// (pg_stats.n_distinct, a product over columns, at most the rows) and the
// Poisson multiplicities, scaled to the entries: lambda_live for the live
// rows, the key space N = D_live / (1 - exp(-lambda_live)), lambda = lambda_live
// E / live rows, D = N (1 - exp(-lambda)), S = N lambda exp(-lambda).
// Unique indexes are not deduplicated (14+ merges only versions of one row).
const INTERNAL_PAGES = `CASE WHEN relpages > 2 THEN ceil(relpages * (tuple + 4) / (0.7 * (${BLOCK} - 40))) ELSE 0 END`

export function indexBloatSql() {
  return `WITH idx AS (
  SELECT i.schemaname, i.relname, i.indexrelname, x.indexrelid, x.indrelid, x.indkey, x.indclass,
    greatest(tc.reltuples, 0) AS live,
    NOT x.indisunique AND x.indnatts = x.indnkeyatts
      AND current_setting('server_version_num')::int >= 130000
      AND NOT coalesce('deduplicate_items=off' = ANY (ic.reloptions), false)
      AND NOT coalesce('deduplicate_items=false' = ANY (ic.reloptions), false) AS dedup_allowed
  FROM pg_stat_user_indexes i
  JOIN pg_index x ON x.indexrelid = i.indexrelid
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_class tc ON tc.oid = x.indrelid
  JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree'
),
cols AS (
  SELECT idx.indexrelid, ${columnAggregates(INDEX_COLUMN_READABLE)},
    bool_and(${EQUALIMAGE}) AS equalimage,
    exp(sum(ln(greatest(${COLUMN_DISTINCT}, 1)))) AS distinct_product
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
  SELECT idx.schemaname, idx.relname, idx.indexrelname, ic.relpages, ic.relpages * ${BLOCK} AS size,
    cols.missing, ${DEAD_SHARE} AS dead_share, idx.live,
    ${ENTRIES} AS entries,
    ${maxalign('8 + CASE WHEN cols.has_nulls THEN 4 ELSE 0 END + cols.data_width')} AS tuple,
    CASE WHEN idx.dedup_allowed AND cols.equalimage AND idx.live > 0
      THEN idx.live / least(idx.live, cols.distinct_product) END AS mu
  FROM idx
  JOIN pg_class ic ON ic.oid = idx.indexrelid
  JOIN pg_stat_user_tables t ON t.relid = idx.indrelid
  JOIN cols ON cols.indexrelid = idx.indexrelid AND NOT cols.hidden
),
keys AS (
  SELECT est.*, l${NEWTON_STEPS} AS lambda_live
  FROM est
  CROSS JOIN LATERAL (SELECT CASE WHEN mu > 1.0001 THEN least(mu, 2 * (mu - 1)) END AS l0 OFFSET 0) n0
${newton()}
),
tuples AS (
  SELECT keys.*,
    CASE WHEN lambda_live IS NULL THEN entries ELSE space * (1 - exp(-lambda)) END AS key_tuples,
    CASE WHEN lambda_live IS NULL THEN entries ELSE space * lambda * exp(-lambda) END AS alone
  FROM keys
  CROSS JOIN LATERAL (SELECT live / mu / (1 - exp(-lambda_live)) AS space,
    lambda_live * entries / live AS lambda OFFSET 0) k
),
used AS (
  SELECT *, ${BLOCK} * (1 + ${INTERNAL_PAGES}) + relpages * (40 + tuple + 4)
    + key_tuples * (tuple + 4) + 6 * (entries - alone) + 4 * (key_tuples - alone) AS used
  FROM tuples
),
bloat AS (SELECT schemaname, relname, indexrelname, size, ${OUTPUT} FROM used)
SELECT current_database() AS datname, schemaname, relname, indexrelname, method,
  size::float8 AS relation_bytes, bloat_bytes::float8 AS bloat_bytes,
  coalesce(bloat_bytes / nullif(size, 0), 0)::float8 AS bloat_ratio
FROM bloat`
}
