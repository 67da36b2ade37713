// The PostgreSQL metrics the collector exports, one spec each: its name,
// help, labels, and the statements and column its values come from.
// metrics.js registers them; which server versions have which metric is in
// metric-versions.js.
//
// The names of the old exporter's metrics (<view>_<column>, counters without
// _total) are kept for its users' queries; names added here follow the
// Prometheus conventions (base units, _total on counters).
import { TABLE, INDEX, gauge, counter } from './metric-spec.js'
import { VACUUM_METRIC_SPECS } from './vacuum-metric-specs.js'

/** @typedef {import('./metric-spec.js').MetricSpec} MetricSpec */

/** @type {MetricSpec[]} */
export const METRIC_SPECS = [
  ...[
    ['n_live_tup', 'Estimated live rows'],
    ['n_dead_tup', 'Estimated dead rows']
  ].map(([column, help]) =>
    gauge(`pg_stat_user_tables_${column}`, `${help} (pg_stat_user_tables.${column})`, TABLE, ['user_tables'], column)
  ),
  ...[
    ['n_tup_ins', 'Rows inserted'],
    ['n_tup_upd', 'Rows updated (HOT updates included)'],
    ['n_tup_del', 'Rows deleted'],
    ['n_tup_hot_upd', 'Rows HOT-updated'],
    ['vacuum_count', 'Manual vacuums'],
    ['autovacuum_count', 'Vacuums by autovacuum'],
    ['analyze_count', 'Manual analyses'],
    ['autoanalyze_count', 'Analyses by autovacuum'],
    ['seq_scan', 'Sequential scans'],
    ['idx_scan', 'Index scans']
  ].map(([column, help]) =>
    counter(`pg_stat_user_tables_${column}`, `${help} (pg_stat_user_tables.${column})`, TABLE, ['user_tables'], column)
  ),
  ...['last_vacuum', 'last_autovacuum', 'last_analyze', 'last_autoanalyze'].map(column =>
    gauge(
      `pg_stat_user_tables_${column}`,
      `pg_stat_user_tables.${column} as Unix time in seconds, 0 when never`,
      TABLE,
      ['user_tables'],
      column
    )
  ),
  // PostgreSQL 18 and later only (total_*_time columns, milliseconds there).
  ...[
    ['vacuum', 'manual vacuums'],
    ['autovacuum', 'vacuums by autovacuum'],
    ['analyze', 'manual analyses'],
    ['autoanalyze', 'analyses by autovacuum']
  ].map(([kind, what]) =>
    counter(
      `pg_stat_user_tables_${kind}_time_seconds_total`,
      `Time spent in ${what} of the table (pg_stat_user_tables.total_${kind}_time, PostgreSQL 18+)`,
      TABLE,
      ['user_tables'],
      `${kind}_time_seconds`
    )
  ),

  ...['heap_blks_read', 'heap_blks_hit', 'idx_blks_read', 'idx_blks_hit'].map(column =>
    counter(
      `pg_statio_user_tables_${column}`,
      `Blocks ${column.endsWith('read') ? 'read from outside shared buffers' : 'found in shared buffers'}, ${column.startsWith('heap') ? 'heap' : 'all indexes'} (pg_statio_user_tables.${column})`,
      TABLE,
      ['statio_user_tables'],
      column
    )
  ),
  ...['idx_blks_read', 'idx_blks_hit'].map(column =>
    counter(
      `pg_statio_user_indexes_${column}`,
      `Index blocks ${column.endsWith('read') ? 'read from outside shared buffers' : 'found in shared buffers'} (pg_statio_user_indexes.${column})`,
      INDEX,
      ['statio_user_indexes'],
      column
    )
  ),

  gauge(
    'pg_relation_size_row_estimate',
    'Estimated rows (pg_class.reltuples, 0 when unknown)',
    TABLE,
    ['relation_size'],
    'row_estimate'
  ),
  gauge(
    'pg_relation_size_total_bytes',
    'Table size with indexes and TOAST (pg_total_relation_size)',
    TABLE,
    ['relation_size'],
    'total_bytes'
  ),
  gauge(
    'pg_relation_size_index_bytes',
    "Size of the table's indexes (pg_indexes_size)",
    TABLE,
    ['relation_size'],
    'index_bytes'
  ),
  gauge(
    'pg_relation_size_toast_bytes',
    "Size of the table's TOAST table and its index",
    TABLE,
    ['relation_size'],
    'toast_bytes'
  ),

  gauge(
    'pg_stat_activity_connections',
    'Backends by database and state, every state zero-filled',
    ['datname', 'state'],
    ['activity'],
    'connections'
  ),

  ...[
    ['buffers_alloc', 'Buffers allocated'],
    ['buffers_clean', 'Buffers written by the background writer'],
    [
      'buffers_backend',
      'Buffers written by processes other than the checkpointer and background writer (pg_stat_io on PostgreSQL 17+)'
    ],
    ['buffers_checkpoint', 'Buffers written by checkpoints (pg_stat_checkpointer.buffers_written on PostgreSQL 17+)'],
    ['checkpoints_timed', 'Scheduled checkpoints (pg_stat_checkpointer.num_timed on PostgreSQL 17+)'],
    ['checkpoints_req', 'Requested checkpoints (pg_stat_checkpointer.num_requested on PostgreSQL 17+)'],
    ['maxwritten_clean', 'Times the background writer stopped a cleaning scan for writing too many buffers']
  ].map(([column, help]) => counter(`pg_stat_bgwriter_${column}`, help, [], ['bgwriter'], column)),

  ...VACUUM_METRIC_SPECS,

  gauge(
    'pg_locks_waiting_backends',
    "Backends waiting for a heavyweight lock (pg_stat_activity.wait_event_type = 'Lock'), per database that accepts connections, 0 when none",
    ['datname'],
    ['locks'],
    'waiting_backends'
  ),
  gauge(
    'pg_locks_longest_wait_seconds',
    'Longest wait of a backend waiting for a heavyweight lock now: since pg_locks.waitstart (PostgreSQL 14+), else since its pg_stat_activity.state_change; 0 when none waits',
    [],
    ['locks'],
    'longest_wait_seconds'
  ),

  gauge('pg_database_size_bytes', 'Size of the database (pg_database_size)', ['datname'], ['database'], 'size_bytes'),
  gauge('pg_stat_database_numbackends', 'Backends connected to the database', ['datname'], ['database'], 'numbackends'),
  ...[
    'xact_commit',
    'xact_rollback',
    'blks_read',
    'blks_hit',
    'tup_returned',
    'tup_fetched',
    'tup_inserted',
    'tup_updated',
    'tup_deleted'
  ].map(column =>
    counter(`pg_stat_database_${column}`, `pg_stat_database.${column}`, ['datname'], ['database'], column)
  ),
  // PostgreSQL 14 and later only (pg_stat_database's session columns).
  ...[
    ['sessions', 'Sessions established'],
    ['sessions_abandoned', 'Sessions ended because the client went away'],
    ['sessions_fatal', 'Sessions ended by a fatal error'],
    ['sessions_killed', 'Sessions ended by an operator']
  ].map(([column, help]) =>
    counter(
      `pg_stat_database_${column}_total`,
      `${help} (pg_stat_database.${column}, PostgreSQL 14+)`,
      ['datname'],
      ['database'],
      column
    )
  ),
  ...[
    ['session_time', 'Time spent by sessions'],
    ['active_time', 'Time spent running statements'],
    ['idle_in_transaction_time', 'Time spent idle in a transaction']
  ].map(([column, help]) =>
    counter(
      `pg_stat_database_${column}_seconds_total`,
      `${help} (pg_stat_database.${column}, PostgreSQL 14+)`,
      ['datname'],
      ['database'],
      `${column}_seconds`
    )
  ),

  // PostgreSQL 14 and later only (pg_stat_wal).
  counter(
    'pg_stat_wal_records_total',
    'WAL records generated by the server (pg_stat_wal.wal_records, PostgreSQL 14+)',
    [],
    ['wal'],
    'wal_records'
  ),
  counter(
    'pg_stat_wal_fpi_total',
    'Full-page images in the WAL (pg_stat_wal.wal_fpi, PostgreSQL 14+)',
    [],
    ['wal'],
    'wal_fpi'
  ),
  counter(
    'pg_stat_wal_bytes_total',
    'WAL generated by the server, in bytes (pg_stat_wal.wal_bytes, PostgreSQL 14+)',
    [],
    ['wal'],
    'wal_bytes'
  ),
  counter(
    'pg_stat_wal_buffers_full_total',
    'Times WAL was written because the WAL buffers were full (pg_stat_wal.wal_buffers_full, PostgreSQL 14+)',
    [],
    ['wal'],
    'wal_buffers_full'
  ),

  gauge('pg_settings_autovacuum', '1 when autovacuum is on', [], ['settings'], 'autovacuum'),
  gauge(
    'pg_settings_autovacuum_freeze_max_age',
    'autovacuum_freeze_max_age, transactions',
    [],
    ['settings'],
    'autovacuum_freeze_max_age'
  ),
  gauge(
    'pg_settings_autovacuum_vacuum_threshold',
    'autovacuum_vacuum_threshold, rows',
    [],
    ['settings'],
    'autovacuum_vacuum_threshold'
  ),
  gauge(
    'pg_settings_autovacuum_vacuum_scale_factor',
    'autovacuum_vacuum_scale_factor',
    [],
    ['settings'],
    'autovacuum_vacuum_scale_factor'
  ),
  gauge('pg_settings_autovacuum_naptime_seconds', 'autovacuum_naptime', [], ['settings'], 'autovacuum_naptime_seconds'),
  gauge(
    'pg_settings_autovacuum_vacuum_cost_delay_seconds',
    'Effective autovacuum_vacuum_cost_delay (vacuum_cost_delay when it is -1)',
    [],
    ['settings'],
    'autovacuum_vacuum_cost_delay_seconds'
  ),
  gauge('pg_settings_autovacuum_max_workers', 'autovacuum_max_workers', [], ['settings'], 'autovacuum_max_workers'),

  gauge(
    'pg_bloat_table_estimated_bytes',
    'Estimated dead tuples and free space in the table\'s heap, from the catalogs and statistics; method="dead_tuples": the dead tuples alone, the table having no statistics yet (notes/pgstats-metrics.md)',
    [...TABLE, 'method'],
    ['bloat_tables'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_table_ratio',
    "Estimated share of the table's heap that is dead tuples or free space, 0 to 1 (method as for the bytes)",
    [...TABLE, 'method'],
    ['bloat_tables'],
    'bloat_ratio'
  ),
  gauge(
    'pg_bloat_index_estimated_bytes',
    'Estimated free space in a B-tree index (empty and deleted pages included), from the catalogs and statistics',
    [...INDEX, 'method'],
    ['bloat_indexes'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_index_ratio',
    'Estimated share of a B-tree index that is free space, 0 to 1 (method as for the bytes)',
    [...INDEX, 'method'],
    ['bloat_indexes'],
    'bloat_ratio'
  )
]

/** Exact figures from pgstattuple, registered only when asked for. */
export const EXACT_BLOAT_SPECS = [
  gauge(
    'pg_bloat_table_exact_bytes',
    'Dead tuples and free space in the table; method="pgstattuple": pgstattuple() (reads every page), method="pgstattuple_approx": pgstattuple_approx() (--pgstattuple-approx: reads the pages not all-visible, the others\' free space from the free space map)',
    [...TABLE, 'method'],
    ['pgstattuple_tables'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_table_exact_ratio',
    'Share of the table that is dead tuples or free space, 0 to 1 (method as for the bytes)',
    [...TABLE, 'method'],
    ['pgstattuple_tables'],
    'bloat_ratio'
  ),
  gauge(
    'pg_bloat_index_exact_bytes',
    'Free space and empty or deleted pages of a B-tree index, from pgstatindex (scans the index)',
    INDEX,
    ['pgstattuple_indexes'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_index_exact_ratio',
    'Share of a B-tree index that is free space or empty or deleted pages, from pgstatindex, 0 to 1',
    INDEX,
    ['pgstattuple_indexes'],
    'bloat_ratio'
  )
]
