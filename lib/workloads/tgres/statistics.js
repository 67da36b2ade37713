import { TGRES_ROW_OVERHEAD } from './layout.js'

/**
 * What the lab polls of ts besides its own per-table figures: Tgres's bloat
 * factor (its failure signal, receiver/flusher.go reportTsTableSize), and,
 * since the run started (setup keeps the counters it started from), the
 * share of ts's updates that were HOT and the autovacuums of ts. The
 * general collector exports the raw counters on /metrics; these are here
 * so that the recorded samples hold them too.
 * @param {import('./layout.js').TgresConfig} config
 * @returns {import('../contract.js').WorkloadStatistic[]}
 */
export function tgresStatistics(config) {
  const rowBytes = config.width * 8 + TGRES_ROW_OVERHEAD
  return [
    {
      name: 'pgloadgen_workload_tgres_bloat_ratio',
      help: `Tgres's bloat factor of ts: pg_total_relation_size / (reltuples × (width × 8 + ${TGRES_ROW_OVERHEAD})) - 1, width ${config.width}; absent until ts has been analysed`,
      // reltuples truncated to a whole count, as Tgres reads it; -1 (never
      // analysed) or 0 gives no row, and so no value (a NULL would read as 0)
      sql: `SELECT pg_total_relation_size(c.oid) / (trunc(c.reltuples::float8) * ${rowBytes}) - 1 AS value
        FROM pg_class AS c WHERE c.oid = to_regclass('ts') AND trunc(c.reltuples::float8) > 0`
    },
    {
      name: 'pgloadgen_workload_tgres_hot_update_share',
      help: 'Share of the updates of ts since the run started that were HOT (n_tup_hot_upd / n_tup_upd); absent before the first update',
      sql: `SELECT (s.n_tup_hot_upd - r.ts_hot_updates)::float8 / (s.n_tup_upd - r.ts_updates) AS value
        FROM pg_stat_user_tables AS s, pgloadgen_tgres_run AS r
        WHERE s.relid = to_regclass('ts') AND s.n_tup_upd > r.ts_updates`
    },
    {
      name: 'pgloadgen_workload_tgres_autovacuum_runs',
      help: 'Autovacuums of ts finished since the run started',
      sql: `SELECT s.autovacuum_count - r.ts_autovacuums AS value
        FROM pg_stat_user_tables AS s, pgloadgen_tgres_run AS r
        WHERE s.relid = to_regclass('ts') AND s.autovacuum_count >= r.ts_autovacuums`
    }
  ]
}
