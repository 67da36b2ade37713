// The measured bloat of one relation, from the pgstattuple extension, in
// the meaning every bloat figure of the exporter has: the share of the
// relation's bytes that hold no live tuple, dead tuples and free space.
//
//   heap      pgstattuple(rel):  (dead_tuple_len + free_space) / table_len
//             (dead_tuple_percent + free_percent); page headers, line
//             pointers and alignment padding count as neither
//   heap, approx  pgstattuple_approx(rel): the same with approx_free_space;
//             it reads only the pages the visibility map does not mark
//             all-visible (their free space comes from the free space map)
//   B-tree    pgstatindex(idx):  (free space of the leaf pages + empty and
//             deleted pages) / index_size, the free space of the leaf pages
//             being leaf_pages × (block_size − 40) × (100 − avg_leaf_density) / 100
//
// Each statement takes the relation as $1 (a regclass, or an oid cast to
// one) and returns relation_bytes, bloat_bytes and bloat_ratio.

/** @param {string} schema  the extension's schema */
const ext = schema => `"${schema.replaceAll('"', '""')}"`

/** @param {string} bytes @param {string} total */
const columns = (bytes, total) =>
  `${total}::float8 AS relation_bytes, ${bytes}::float8 AS bloat_bytes, coalesce((${bytes})::float8 / nullif(${total}, 0), 0)::float8 AS bloat_ratio`

/** pgstattuple: reads every page. @param {string} schema */
export function heapTruthSql(schema) {
  return `SELECT ${columns('dead_tuple_len + free_space', 'table_len')} FROM ${ext(schema)}.pgstattuple($1::regclass)`
}

/** pgstattuple_approx: skips all-visible pages (heaps and materialized views only). @param {string} schema */
export function heapApproxSql(schema) {
  return `SELECT ${columns('dead_tuple_len + approx_free_space', 'table_len')} FROM ${ext(schema)}.pgstattuple_approx($1::regclass)`
}

/** pgstatindex: reads every page of a B-tree. @param {string} schema */
export function btreeTruthSql(schema) {
  const leafFree =
    "leaf_pages * (current_setting('block_size')::float8 - 40) * (100 - CASE WHEN avg_leaf_density = 'NaN' THEN 100 ELSE avg_leaf_density END) / 100"
  const free = `(${leafFree} + (empty_pages + deleted_pages) * current_setting('block_size')::float8)`
  return `SELECT ${columns(free, 'index_size')} FROM ${ext(schema)}.pgstatindex($1::regclass)`
}
