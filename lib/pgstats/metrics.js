// The PostgreSQL metrics, registered on a prom-client registry. Their values
// are read at scrape time from the rows of the last successful polls; a
// scrape never queries the server. Every scrape resets each metric first,
// so series of tables dropped or vacuums finished disappear.
//
// The names of the old exporter's metrics (<view>_<column>, counters without
// _total) are kept for its users' queries; names added here follow the
// Prometheus conventions (base units, _total on counters).
import client from 'prom-client'

/**
 * @typedef {object} MetricSpec
 * @property {string} name
 * @property {string} help
 * @property {'gauge' | 'counter'} type
 * @property {string[]} labels
 * @property {string[]} sections   statements whose rows feed the metric
 * @property {string} column
 * @property {string} [onlyWhile]   series exist only while this is so (none otherwise, on every version)
 */

/**
 * @typedef {object} RowSource
 * @property {(section: string) => import('./rows.js').Row[]} rows   fresh rows of a section, [] when none
 */

const TABLE = ['datname', 'schemaname', 'relname']
const INDEX = ['datname', 'schemaname', 'relname', 'indexrelname']
const VACUUM = ['datname', 'relname', 'vacuum_mode']
const HOLDER = ['kind', 'pid', 'application_name', 'name', 'datname']
const HOLDING = 'a backend, a prepared transaction or a replication slot holds back the xmin horizon'

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
      `Blocks ${column.endsWith('read') ? 'read from outside shared buffers' : 'found in shared buffers'}, ` +
        `${column.startsWith('heap') ? 'heap' : 'all indexes'} (pg_statio_user_tables.${column})`,
      TABLE,
      ['statio_user_tables'],
      column
    )
  ),
  ...['idx_blks_read', 'idx_blks_hit'].map(column =>
    counter(
      `pg_statio_user_indexes_${column}`,
      `Index blocks ${column.endsWith('read') ? 'read from outside shared buffers' : 'found in shared buffers'} ` +
        `(pg_statio_user_indexes.${column})`,
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

  gauge(
    'pg_stat_progress_vacuum_phase',
    'Phase of a running vacuum: 0 initializing, 1 scanning heap, 2 vacuuming indexes, 3 vacuuming heap, ' +
      '4 cleaning up indexes, 5 truncating heap, 6 performing final cleanup, -1 other',
    VACUUM,
    ['progress_vacuum'],
    'phase'
  ),
  ...['heap_blks_total', 'heap_blks_scanned', 'heap_blks_vacuumed', 'index_vacuum_count'].map(column =>
    gauge(
      `pg_stat_progress_vacuum_${column}`,
      `pg_stat_progress_vacuum.${column} of a running vacuum`,
      VACUUM,
      ['progress_vacuum'],
      column
    )
  ),
  gauge(
    'pg_stat_progress_vacuum_max_dead_tuples',
    'Dead tuples a running vacuum can hold before a pass over the indexes (max_dead_tuples, ' +
      'PostgreSQL 16 and older; 17 sizes it in bytes: pg_stat_progress_vacuum_max_dead_tuple_bytes)',
    VACUUM,
    ['progress_vacuum'],
    'max_dead_tuples'
  ),
  gauge(
    'pg_stat_progress_vacuum_num_dead_tuples',
    'Dead tuples collected by a running vacuum: num_dead_tuples, or num_dead_item_ids on PostgreSQL 17+',
    VACUUM,
    ['progress_vacuum'],
    'num_dead_tuples'
  ),
  gauge(
    'pg_stat_progress_vacuum_max_dead_tuple_bytes',
    'Memory a running vacuum may use for its dead items before a pass over the indexes (max_dead_tuple_bytes, ' +
      'PostgreSQL 17+)',
    VACUUM,
    ['progress_vacuum'],
    'max_dead_tuple_bytes'
  ),
  gauge(
    'pg_stat_progress_vacuum_dead_tuple_bytes',
    "Memory a running vacuum's dead items use (dead_tuple_bytes, PostgreSQL 17+)",
    VACUUM,
    ['progress_vacuum'],
    'dead_tuple_bytes'
  ),
  gauge(
    'pg_stat_progress_vacuum_indexes_total',
    'Indexes a running vacuum will process in its current pass (indexes_total, PostgreSQL 17+)',
    VACUUM,
    ['progress_vacuum'],
    'indexes_total'
  ),
  gauge(
    'pg_stat_progress_vacuum_indexes_processed',
    'Indexes a running vacuum has processed in its current pass (indexes_processed, PostgreSQL 17+)',
    VACUUM,
    ['progress_vacuum'],
    'indexes_processed'
  ),
  gauge(
    'pg_stat_progress_vacuum_delay_time_seconds',
    'Time a running vacuum has slept in its cost-based delay (delay_time, ' +
      'PostgreSQL 18+ with track_cost_delay_timing on)',
    VACUUM,
    ['progress_vacuum'],
    'delay_time_seconds'
  ),
  gauge(
    'pg_stat_progress_vacuum_query_start',
    "Start of the running vacuum's statement (autovacuum: of its work on this table), Unix time in seconds",
    VACUUM,
    ['progress_vacuum'],
    'query_start'
  ),
  gauge(
    'pg_stat_progress_vacuum_running',
    '1 while a vacuum of the table runs',
    VACUUM,
    ['progress_vacuum'],
    'running'
  ),

  gauge(
    'pg_vacuum_xid_age',
    "age(relfrozenxid) of a table (its TOAST table's if older), or age(datfrozenxid) of a database " +
      '(schemaname and relname empty)',
    TABLE,
    ['xid_tables', 'xid_databases'],
    'xid_age'
  ),
  gauge(
    'pg_vacuum_tx_until_wraparound_autovacuum',
    "Transactions left before autovacuum_freeze_max_age (the table's own when lower) forces an " +
      'anti-wraparound autovacuum',
    TABLE,
    ['xid_tables', 'xid_databases'],
    'tx_until_wraparound_autovacuum'
  ),
  gauge(
    'pg_vacuum_mxid_age',
    "mxid_age(relminmxid) of a table (its TOAST table's if older), or mxid_age(datminmxid) of a database " +
      '(schemaname and relname empty)',
    TABLE,
    ['xid_tables', 'xid_databases'],
    'mxid_age'
  ),
  gauge(
    'pg_vacuum_mxid_until_wraparound_autovacuum',
    "Multixacts left before autovacuum_multixact_freeze_max_age (the table's own when lower) forces an " +
      'anti-wraparound autovacuum',
    TABLE,
    ['xid_tables', 'xid_databases'],
    'mxid_until_wraparound_autovacuum'
  ),

  gauge(
    'pg_xmin_horizon_age',
    'Age in transactions of the oldest xmin held by each kind of holder on the server: backend ' +
      '(pg_stat_activity backend_xmin, backend_xid), prepared (pg_prepared_xacts), slot (pg_replication_slots xmin, ' +
      'catalog_xmin); 0 when none holds it',
    ['kind'],
    ['horizon'],
    'kind_oldest_age'
  ),
  gauge(
    'pg_xmin_horizon_oldest_age',
    'Age in transactions of the oldest xmin any backend, prepared transaction or replication slot holds on the ' +
      'server (pg_stat_activity, pg_prepared_xacts, pg_replication_slots); 0 when none',
    [],
    ['horizon'],
    'oldest_age'
  ),
  {
    ...gauge(
      'pg_xmin_holder_age',
      'Age in transactions of the xmin a holder keeps: greatest(age(backend_xid), age(backend_xmin)) of a backend, ' +
        'age(transaction) of a prepared transaction (name: its gid), greatest(age(xmin), ' +
        'age(catalog_xmin)) of a replication slot (name: the slot); the 5 oldest of each kind',
      HOLDER,
      ['horizon'],
      'xmin_age'
    ),
    onlyWhile: HOLDING
  },
  {
    ...gauge(
      'pg_xmin_holder_xact_age_seconds',
      "How long a holder's transaction has been open: now() - xact_start of a backend (pg_stat_activity), " +
        'now() - prepared of a prepared transaction (pg_prepared_xacts); none for slots',
      HOLDER,
      ['horizon'],
      'xact_age_s'
    ),
    onlyWhile: HOLDING
  },

  gauge(
    'pg_locks_waiting_backends',
    "Backends waiting for a heavyweight lock (pg_stat_activity.wait_event_type = 'Lock'), " +
      'per database that accepts connections, 0 when none',
    ['datname'],
    ['locks'],
    'waiting_backends'
  ),
  gauge(
    'pg_locks_longest_wait_seconds',
    'Longest wait of a backend waiting for a heavyweight lock now: since pg_locks.waitstart (PostgreSQL 14+), ' +
      'else since its pg_stat_activity.state_change; 0 when none waits',
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
    "Estimated wasted space in the table's heap, from the catalogs (see notes/pgstats-metrics.md)",
    TABLE,
    ['bloat_tables'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_table_ratio',
    "Estimated share of the table's heap that is wasted, 0 to 1",
    TABLE,
    ['bloat_tables'],
    'bloat_ratio'
  ),
  gauge(
    'pg_bloat_index_estimated_bytes',
    'Estimated wasted space in a B-tree index, from the catalogs',
    INDEX,
    ['bloat_indexes'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_index_ratio',
    'Estimated share of a B-tree index that is wasted, 0 to 1',
    INDEX,
    ['bloat_indexes'],
    'bloat_ratio'
  )
]

/** Exact figures from pgstattuple, registered only when asked for. */
export const EXACT_BLOAT_SPECS = [
  gauge(
    'pg_bloat_table_exact_bytes',
    'Dead tuples and free space in the table, from pgstattuple (scans the table)',
    TABLE,
    ['pgstattuple_tables'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_table_exact_ratio',
    'Share of the table that is dead tuples or free space, from pgstattuple, 0 to 1',
    TABLE,
    ['pgstattuple_tables'],
    'bloat_ratio'
  ),
  gauge(
    'pg_bloat_index_exact_bytes',
    'Dead tuples and free space in a B-tree index, from pgstattuple (scans the index)',
    INDEX,
    ['pgstattuple_indexes'],
    'bloat_bytes'
  ),
  gauge(
    'pg_bloat_index_exact_ratio',
    'Share of a B-tree index that is dead tuples or free space, from pgstattuple, 0 to 1',
    INDEX,
    ['pgstattuple_indexes'],
    'bloat_ratio'
  )
]

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

/**
 * @param {string} name @param {string} help @param {string[]} labels @param {string[]} sections @param {string} column
 * @returns {MetricSpec}
 */
function gauge(name, help, labels, sections, column) {
  return { name, help, type: 'gauge', labels, sections, column }
}

/**
 * @param {string} name @param {string} help @param {string[]} labels @param {string[]} sections @param {string} column
 * @returns {MetricSpec}
 */
function counter(name, help, labels, sections, column) {
  return { name, help, type: 'counter', labels, sections, column }
}

/**
 * Registers the metrics of specs, fed from source at every scrape.
 * @param {client.Registry} registry
 * @param {RowSource} source
 * @param {MetricSpec[]} specs
 */
export function registerPgMetrics(registry, source, specs) {
  for (const spec of specs) {
    /**
     * @param {(labels: Record<string, string>, value: number) => void} put
     * @returns {number} the values put
     */
    const fill = put => {
      let count = 0
      for (const section of spec.sections) {
        for (const row of source.rows(section)) {
          const value = row[spec.column]
          if (typeof value !== 'number' || !Number.isFinite(value)) continue
          /** @type {Record<string, string>} */
          const labels = {}
          for (const label of spec.labels) labels[label] = String(row[label] ?? '')
          put(labels, value)
          count++
        }
      }
      return count
    }
    // prom-client's reset() leaves a metric without labels at 0: a figure
    // the server did not give (a failed statement, a view this major lacks)
    // must have no series instead.
    const none = (/** @type {client.Counter | client.Gauge} */ metric) => {
      ;/** @type {any} */ (metric).hashMap = {}
    }
    const common = { name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry] }
    if (spec.type === 'counter') {
      new client.Counter({
        ...common,
        collect() {
          this.reset()
          // A counter never goes down; a server's stats reset shows as a restart.
          if (
            fill((labels, value) => {
              if (value >= 0) this.inc(labels, value)
            }) === 0
          )
            none(this)
        }
      })
    } else {
      new client.Gauge({
        ...common,
        collect() {
          this.reset()
          if (fill((labels, value) => this.set(labels, value)) === 0) none(this)
        }
      })
    }
  }
}
