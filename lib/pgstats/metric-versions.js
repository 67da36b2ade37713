// Which PostgreSQL versions have which metric of metric-specs.js: a figure
// a version lacks has no series there.

/**
 * Metrics that exist on some server versions only (no series elsewhere):
 * since, the first server_version_num that has the figure; until, the last
 * that has it; when, a condition besides the version.
 * @type {Record<string, { since?: number, until?: number, when?: string }>}
 */
export const VERSION_SPECIFIC = {
  pg_stat_user_tables_vacuum_time_seconds_total: { since: 180000 },
  pg_stat_user_tables_autovacuum_time_seconds_total: { since: 180000 },
  pg_stat_user_tables_analyze_time_seconds_total: { since: 180000 },
  pg_stat_user_tables_autoanalyze_time_seconds_total: { since: 180000 },
  pg_stat_progress_vacuum_max_dead_tuples: { until: 169999 },
  pg_stat_progress_vacuum_max_dead_tuple_bytes: { since: 170000 },
  pg_stat_progress_vacuum_dead_tuple_bytes: { since: 170000 },
  pg_stat_progress_vacuum_indexes_total: { since: 170000 },
  pg_stat_progress_vacuum_indexes_processed: { since: 170000 },
  pg_stat_progress_vacuum_delay_time_seconds: { since: 180000, when: 'track_cost_delay_timing = on' },
  pg_stat_wal_records_total: { since: 140000 },
  pg_stat_wal_fpi_total: { since: 140000 },
  pg_stat_wal_bytes_total: { since: 140000 },
  pg_stat_wal_buffers_full_total: { since: 140000 },
  ...Object.fromEntries(
    [
      'sessions_total',
      'sessions_abandoned_total',
      'sessions_fatal_total',
      'sessions_killed_total',
      'session_time_seconds_total',
      'active_time_seconds_total',
      'idle_in_transaction_time_seconds_total'
    ].map(name => [`pg_stat_database_${name}`, { since: 140000 }])
  )
}

/**
 * Whether a server of this version has the metric's figure (a condition
 * besides the version, VERSION_SPECIFIC's `when`, aside).
 * @param {string} name
 * @param {number} version   server_version_num
 */
export function metricOnVersion(name, version) {
  const span = VERSION_SPECIFIC[name]
  if (!span) return true
  return version >= (span.since ?? 0) && version <= (span.until ?? Infinity)
}
