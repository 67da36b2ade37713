// The vacuum metrics of METRIC_SPECS (metric-specs.js), in its order: the
// progress of running vacuums, how far each table and database is from an
// anti-wraparound autovacuum, and what holds back the xmin horizon up to
// which a vacuum may remove dead rows.
import { TABLE, gauge } from './metric-spec.js'

/** @typedef {import('./metric-spec.js').MetricSpec} MetricSpec */

const VACUUM = ['datname', 'relname', 'vacuum_mode']
const HOLDER = ['kind', 'pid', 'application_name', 'name', 'datname']
const HOLDING = 'a backend, a prepared transaction or a replication slot holds back the xmin horizon'
const SEEN_WHOLE = 'an autovacuum of the table was seen from start to end, and its counters move toward a threshold'
const MOVING = "a table's counters have moved toward one of autovacuum's thresholds for 5 s or more"

/** @type {MetricSpec[]} */
export const VACUUM_METRIC_SPECS = [
  gauge(
    'pg_stat_progress_vacuum_phase',
    'Phase of a running vacuum: 0 initializing, 1 scanning heap, 2 vacuuming indexes, 3 vacuuming heap, 4 cleaning up indexes, 5 truncating heap, 6 performing final cleanup, -1 other',
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
    'Dead tuples a running vacuum can hold before a pass over the indexes (max_dead_tuples, PostgreSQL 16 and older; 17 sizes it in bytes: pg_stat_progress_vacuum_max_dead_tuple_bytes)',
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
    'Memory a running vacuum may use for its dead items before a pass over the indexes (max_dead_tuple_bytes, PostgreSQL 17+)',
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
    'Time a running vacuum has slept in its cost-based delay (delay_time, PostgreSQL 18+ with track_cost_delay_timing on)',
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
    "age(relfrozenxid) of a table (its TOAST table's if older), or age(datfrozenxid) of a database (schemaname and relname empty)",
    TABLE,
    ['xid_tables', 'xid_databases'],
    'xid_age'
  ),
  gauge(
    'pg_vacuum_tx_until_wraparound_autovacuum',
    "Transactions left before autovacuum_freeze_max_age (the table's own when lower) forces an anti-wraparound autovacuum",
    TABLE,
    ['xid_tables', 'xid_databases'],
    'tx_until_wraparound_autovacuum'
  ),
  {
    ...gauge(
      'pg_autovacuum_next_seconds',
      "Seconds until autovacuum is forecast to start on the table, by reason (wraparound, multixact, dead_rows, inserts): the server's rule at the rates its counters grew over the last minute, at the launcher's next visit after the crossing (docs/autovacuum-forecast.md)",
      [...TABLE, 'reason'],
      ['autovacuum_forecast'],
      'next_seconds'
    ),
    onlyWhile: MOVING
  },
  {
    ...gauge(
      'pg_autovacuum_next_duration_seconds',
      "Seconds the table's next autovacuum is forecast to run: its last one seen whole, scaled by the work it will find or, for one that removes dead rows, by the table's growth since to the power 1.5, whichever is larger; none until one was",
      [...TABLE, 'reason'],
      ['autovacuum_forecast'],
      'duration_seconds'
    ),
    onlyWhile: SEEN_WHOLE
  },
  {
    ...gauge(
      'pg_autovacuum_threshold_crossing_seconds',
      "Seconds until the table's counter passes the threshold of the forecast's reason, negative since it did (the start follows at the launcher's next visit)",
      [...TABLE, 'reason'],
      ['autovacuum_forecast'],
      'crossing_seconds'
    ),
    onlyWhile: MOVING
  },
  gauge(
    'pg_vacuum_mxid_age',
    "mxid_age(relminmxid) of a table (its TOAST table's if older), or mxid_age(datminmxid) of a database (schemaname and relname empty)",
    TABLE,
    ['xid_tables', 'xid_databases'],
    'mxid_age'
  ),
  gauge(
    'pg_vacuum_mxid_until_wraparound_autovacuum',
    "Multixacts left before autovacuum_multixact_freeze_max_age (the table's own when lower) forces an anti-wraparound autovacuum",
    TABLE,
    ['xid_tables', 'xid_databases'],
    'mxid_until_wraparound_autovacuum'
  ),

  gauge(
    'pg_xmin_horizon_age',
    'Age in transactions of the oldest xmin held by each kind of holder on the server: backend (pg_stat_activity backend_xmin, backend_xid), prepared (pg_prepared_xacts), slot (pg_replication_slots xmin, catalog_xmin); 0 when none holds it',
    ['kind'],
    ['horizon'],
    'kind_oldest_age'
  ),
  gauge(
    'pg_xmin_horizon_oldest_age',
    'Age in transactions of the oldest xmin any backend, prepared transaction or replication slot holds on the server (pg_stat_activity, pg_prepared_xacts, pg_replication_slots); 0 when none',
    [],
    ['horizon'],
    'oldest_age'
  ),
  {
    ...gauge(
      'pg_xmin_holder_age',
      'Age in transactions of the xmin a holder keeps: greatest(age(backend_xid), age(backend_xmin)) of a backend, age(transaction) of a prepared transaction (name: its gid), greatest(age(xmin), age(catalog_xmin)) of a replication slot (name: the slot); the 5 oldest of each kind',
      HOLDER,
      ['horizon'],
      'xmin_age'
    ),
    onlyWhile: HOLDING
  },
  {
    ...gauge(
      'pg_xmin_holder_xact_age_seconds',
      "How long a holder's transaction has been open: now() - xact_start of a backend (pg_stat_activity), now() - prepared of a prepared transaction (pg_prepared_xacts); none for slots",
      HOLDER,
      ['horizon'],
      'xact_age_s'
    ),
    onlyWhile: HOLDING
  }
]
