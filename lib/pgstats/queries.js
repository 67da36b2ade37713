// The statements one poll runs, chosen once per connection from the server's
// server_version_num. Each statement fills one section of the collector's
// state; metric names never depend on the version, only the SQL does.
//
// Column mapping across PostgreSQL 12-18 (also in notes/pgstats-metrics.md):
//
//   metric                                   PG 12-16                          PG 17-18
//   pg_stat_bgwriter_checkpoints_timed       pg_stat_bgwriter.checkpoints_timed pg_stat_checkpointer.num_timed
//   pg_stat_bgwriter_checkpoints_req         pg_stat_bgwriter.checkpoints_req   pg_stat_checkpointer.num_requested
//   pg_stat_bgwriter_buffers_checkpoint      pg_stat_bgwriter.buffers_checkpoint pg_stat_checkpointer.buffers_written
//   pg_stat_bgwriter_buffers_backend         pg_stat_bgwriter.buffers_backend   sum(pg_stat_io.writes) WHERE object =
// 'relation'
//                                                                               AND backend_type NOT IN
// ('checkpointer', 'background writer')
//   pg_stat_bgwriter_buffers_alloc, _buffers_clean, _maxwritten_clean: pg_stat_bgwriter on every version
//   pg_stat_progress_vacuum_num_dead_tuples  num_dead_tuples                    num_dead_item_ids
//   pg_stat_progress_vacuum_max_dead_tuples  max_dead_tuples (tuples)           (absent: 17 sizes the store in bytes)
//   pg_stat_progress_vacuum_max_dead_tuple_bytes, _dead_tuple_bytes   (absent)  max_dead_tuple_bytes, dead_tuple_bytes
//   pg_stat_progress_vacuum_indexes_total, _indexes_processed         (absent)  indexes_total, indexes_processed
//   pg_stat_progress_vacuum_delay_time_seconds  (absent)                         PG 18: delay_time / 1000, when
// track_cost_delay_timing is on
//   pg_stat_user_tables_vacuum_time_seconds_total      (absent)                 PG 18: total_vacuum_time / 1000
//   pg_stat_user_tables_autovacuum_time_seconds_total  (absent)                 PG 18: total_autovacuum_time / 1000
//   pg_stat_user_tables_analyze_time_seconds_total     (absent)                 PG 18: total_analyze_time / 1000
//   pg_stat_user_tables_autoanalyze_time_seconds_total (absent)                 PG 18: total_autoanalyze_time / 1000
//   pg_stat_wal_{records,fpi,bytes,buffers_full}_total: pg_stat_wal, 14 and later (absent on 13)
//   pg_stat_database_{sessions,sessions_abandoned,sessions_fatal,sessions_killed}_total,
//   pg_stat_database_{session_time,active_time,idle_in_transaction_time}_seconds_total:
//     pg_stat_database's session columns, 14 and later (absent on 13)
//
// A figure the server lacks is selected as NULL (or its statement is not
// run): no series, never a 0 (metric-versions.js VERSION_SPECIFIC).
//
// buffers_backend used to count every shared-buffer write done by a process
// other than the checkpointer and the background writer (client backends,
// autovacuum workers, background workers, walsenders, the startup process);
// pg_stat_io counts the same writes by backend type, in blocks for the
// 'relation' object, so their sum keeps the meaning.
//
// Per-table statements read the database the collector is connected to
// (like the old exporter, which needed one connection per database);
// pg_stat_activity, pg_stat_database, pg_database, the vacuum progress view
// and the settings cover the whole server.

import { tableBloatSql, indexBloatSql } from './bloat-sql.js'
import { CHECKPOINTER_WAIT } from './checkpointer-sql.js'
import { SETTINGS } from './settings-sql.js'
import { autovacuumInputsSql } from './autovacuum-sql.js'

export const PG13 = 130000
export const PG14 = 140000
export const PG17 = 170000
export const PG18 = 180000
export const OLDEST_SUPPORTED = 120000

/**
 * @typedef {object} PollQuery
 * @property {string} name      label of pgloadgen_pgstats_poll_errors_total
 * @property {string} sql
 * @property {number} [everyMs]  at most this often: for figures that change slowly
 */

// Settings and the bloat estimate change slowly, and the estimate's joins
// cost the server more than the rest of a poll: refreshed every 10 s, so
// that polling every second stays cheap for the server under test.
const SLOW_MS = 10000

/** Every statement name, for zero-filled error counters. */
export const QUERY_NAMES = /** @type {const} */ ([
  'connect',
  'user_tables',
  'statio_user_tables',
  'statio_user_indexes',
  'relation_size',
  'activity',
  'bgwriter',
  'progress_vacuum',
  'xid_tables',
  'xid_databases',
  'database',
  'settings',
  'bloat_tables',
  'bloat_indexes',
  'partitions',
  'wal',
  'horizon',
  'locks',
  'autovacuum_inputs'
])

/**
 * The statements of a poll for a server version, in the order they run.
 * The cheap catalog and statistics reads come first; relation_size, which
 * takes an ACCESS SHARE lock on each table and may wait for one, runs late
 * so that a wait delays as little as possible.
 * @param {number} version   server_version_num
 * @returns {PollQuery[]}
 */
export function pollQueries(version) {
  return [
    { name: 'user_tables', sql: userTablesSql(version) },
    { name: 'statio_user_tables', sql: STATIO_TABLES },
    { name: 'statio_user_indexes', sql: STATIO_INDEXES },
    { name: 'progress_vacuum', sql: progressVacuumSql(version) },
    { name: 'activity', sql: ACTIVITY },
    { name: 'horizon', sql: HORIZON },
    { name: 'locks', sql: locksSql(version) },
    { name: 'bgwriter', sql: bgwriterSql(version) },
    { name: 'xid_tables', sql: XID_TABLES },
    { name: 'autovacuum_inputs', sql: autovacuumInputsSql({ inserts: version >= PG13, capped: version >= PG18 }) },
    { name: 'xid_databases', sql: XID_DATABASES },
    { name: 'database', sql: databaseSql(version) },
    ...(version >= PG14 ? [{ name: 'wal', sql: WAL }] : []),
    { name: 'settings', sql: SETTINGS, everyMs: SLOW_MS },
    { name: 'bloat_tables', sql: tableBloatSql(), everyMs: SLOW_MS },
    { name: 'bloat_indexes', sql: indexBloatSql(), everyMs: SLOW_MS },
    { name: 'partitions', sql: PARTITIONS, everyMs: SLOW_MS },
    { name: 'relation_size', sql: RELATION_SIZE }
  ]
}

// Timestamps as epoch seconds, 0 when never.
/** @param {string} column */
const epoch = column => `coalesce(extract(epoch FROM ${column}), 0)::float8 AS ${column}`

/** @param {number} version */
export function userTablesSql(version) {
  const timing =
    version >= PG18
      ? `,
  total_vacuum_time / 1000.0 AS vacuum_time_seconds,
  total_autovacuum_time / 1000.0 AS autovacuum_time_seconds,
  total_analyze_time / 1000.0 AS analyze_time_seconds,
  total_autoanalyze_time / 1000.0 AS autoanalyze_time_seconds`
      : ''
  return `SELECT current_database() AS datname, schemaname, relname,
  coalesce(seq_scan, 0) AS seq_scan, coalesce(idx_scan, 0) AS idx_scan,
  n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd, n_live_tup, n_dead_tup,
  vacuum_count, autovacuum_count, analyze_count, autoanalyze_count,
  ${epoch('last_vacuum')}, ${epoch('last_autovacuum')}, ${epoch('last_analyze')}, ${epoch('last_autoanalyze')}${timing}
FROM pg_stat_user_tables`
}

const STATIO_TABLES = `SELECT current_database() AS datname, schemaname, relname,
  coalesce(heap_blks_read, 0) AS heap_blks_read, coalesce(heap_blks_hit, 0) AS heap_blks_hit,
  coalesce(idx_blks_read, 0) AS idx_blks_read, coalesce(idx_blks_hit, 0) AS idx_blks_hit
FROM pg_statio_user_tables`

const STATIO_INDEXES = `SELECT current_database() AS datname, schemaname, relname, indexrelname,
  coalesce(idx_blks_read, 0) AS idx_blks_read, coalesce(idx_blks_hit, 0) AS idx_blks_hit
FROM pg_statio_user_indexes`

// reltuples is -1 for a table never vacuumed or analysed on PG 14+ (0 before):
// exported as 0 on every version.
const RELATION_SIZE = `SELECT current_database() AS datname, s.schemaname, s.relname,
  greatest(c.reltuples, 0)::float8 AS row_estimate,
  coalesce(pg_total_relation_size(c.oid), 0) AS total_bytes,
  coalesce(pg_indexes_size(c.oid), 0) AS index_bytes,
  coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) AS toast_bytes
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`

// Every database that accepts connections, with its backends by state (none:
// one row with a null state); the states are zero-filled in rows.js.
const ACTIVITY = `SELECT d.datname, a.state, count(a.pid) AS connections
FROM pg_database d
LEFT JOIN pg_stat_activity a ON a.datid = d.oid AND a.state IS NOT NULL
WHERE d.datallowconn
GROUP BY d.datname, a.state`

/** @param {number} version */
export function bgwriterSql(version) {
  if (version < PG17) {
    return `SELECT buffers_alloc, buffers_clean, buffers_backend, buffers_checkpoint,
  checkpoints_timed, checkpoints_req, maxwritten_clean, ${CHECKPOINTER_WAIT}
FROM pg_stat_bgwriter`
  }
  return `SELECT b.buffers_alloc, b.buffers_clean, ${CHECKPOINTER_WAIT},
  (SELECT coalesce(sum(io.writes), 0) FROM pg_stat_io io
    WHERE io.object = 'relation' AND io.backend_type NOT IN ('checkpointer', 'background writer')) AS buffers_backend,
  c.buffers_written AS buffers_checkpoint,
  c.num_timed AS checkpoints_timed, c.num_requested AS checkpoints_req, b.maxwritten_clean
FROM pg_stat_bgwriter b CROSS JOIN pg_stat_checkpointer c`
}

// The relation's name is only known for vacuums in the database we are
// connected to; elsewhere the label is the relation's oid. The mode comes
// from the worker's activity text (rows.js): autovacuum workers report
// "autovacuum: VACUUM schema.table (to prevent wraparound)" for an
// anti-wraparound vacuum.
/** @param {number} version */
export function progressVacuumSql(version) {
  // num_dead_item_ids (17) counts what num_dead_tuples counted: the dead
  // item identifiers collected so far. max_dead_tuple_bytes is the memory
  // the store may use, no longer a number of tuples: a metric of its own.
  const dead =
    version >= PG17
      ? `NULL::bigint AS max_dead_tuples, p.num_dead_item_ids AS num_dead_tuples,
  p.max_dead_tuple_bytes, p.dead_tuple_bytes, p.indexes_total, p.indexes_processed`
      : `p.max_dead_tuples, p.num_dead_tuples,
  NULL::bigint AS max_dead_tuple_bytes, NULL::bigint AS dead_tuple_bytes,
  NULL::bigint AS indexes_total, NULL::bigint AS indexes_processed`
  // delay_time stays 0 while track_cost_delay_timing is off (the vacuum's
  // session may have turned it on): a 0 is a figure only when it is on here
  const delay =
    version >= PG18
      ? "CASE WHEN p.delay_time > 0 OR current_setting('track_cost_delay_timing')::bool THEN p.delay_time / 1000.0 END::float8 AS delay_time_seconds"
      : 'NULL::float8 AS delay_time_seconds'
  return `SELECT p.pid, p.datname, coalesce(c.relname, p.relid::text) AS relname, n.nspname AS schemaname,
  p.phase, p.heap_blks_total, p.heap_blks_scanned, p.heap_blks_vacuumed, p.index_vacuum_count, ${dead}, ${delay},
  coalesce(extract(epoch FROM a.query_start), 0)::float8 AS query_start, a.backend_type, a.query
FROM pg_stat_progress_vacuum p
LEFT JOIN pg_class c ON c.oid = p.relid AND p.datname = current_database()
LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_activity a ON a.pid = p.pid`
}

// The server's WAL (14+). 18 moved the write and sync counters to
// pg_stat_io; these four are in every version that has the view.
const WAL = 'SELECT wal_records, wal_fpi, wal_bytes::float8 AS wal_bytes, wal_buffers_full FROM pg_stat_wal'

// age(relfrozenxid) of the table and of its TOAST table, whichever is older,
// and the distance to the anti-wraparound autovacuum of either. The limit is
// autovacuum_freeze_max_age, or the table's reloption when lower (autovacuum
// ignores a higher one); a TOAST table without reloptions of its own uses
// the table's, as autovacuum does. The same for multixacts: mxid_age of
// relminmxid against autovacuum_multixact_freeze_max_age (autovacuum may act
// earlier when the multixact member space runs short; that is not counted).
const XID_TABLES = `WITH global AS (SELECT current_setting('autovacuum_freeze_max_age')::bigint AS freeze_max_age,
  current_setting('autovacuum_multixact_freeze_max_age')::bigint AS mxid_freeze_max_age),
opt AS (
  SELECT s.schemaname, s.relname, c.relfrozenxid, t.relfrozenxid AS toast_relfrozenxid,
    c.relminmxid, t.relminmxid AS toast_relminmxid,
    (SELECT split_part(o, '=', 2)::bigint FROM unnest(c.reloptions) o
      WHERE o LIKE 'autovacuum_freeze_max_age=%') AS table_opt,
    (SELECT split_part(o, '=', 2)::bigint FROM unnest(t.reloptions) o
      WHERE o LIKE 'autovacuum_freeze_max_age=%') AS toast_opt,
    (SELECT split_part(o, '=', 2)::bigint FROM unnest(c.reloptions) o
      WHERE o LIKE 'autovacuum_multixact_freeze_max_age=%') AS table_mxid_opt,
    (SELECT split_part(o, '=', 2)::bigint FROM unnest(t.reloptions) o
      WHERE o LIKE 'autovacuum_multixact_freeze_max_age=%') AS toast_mxid_opt
  FROM pg_stat_user_tables s
  JOIN pg_class c ON c.oid = s.relid
  LEFT JOIN pg_class t ON t.oid = c.reltoastrelid
  WHERE c.relkind IN ('r', 'm')
)
SELECT current_database() AS datname, opt.schemaname, opt.relname,
  greatest(age(opt.relfrozenxid), coalesce(age(opt.toast_relfrozenxid), 0)) AS xid_age,
  least(
    least(coalesce(opt.table_opt, g.freeze_max_age), g.freeze_max_age) - age(opt.relfrozenxid),
    coalesce(least(coalesce(opt.toast_opt, opt.table_opt, g.freeze_max_age), g.freeze_max_age)
      - age(opt.toast_relfrozenxid), 2147483647)
  ) AS tx_until_wraparound_autovacuum,
  greatest(mxid_age(opt.relminmxid), coalesce(mxid_age(opt.toast_relminmxid), 0)) AS mxid_age,
  least(
    least(coalesce(opt.table_mxid_opt, g.mxid_freeze_max_age), g.mxid_freeze_max_age) - mxid_age(opt.relminmxid),
    coalesce(least(coalesce(opt.toast_mxid_opt, opt.table_mxid_opt, g.mxid_freeze_max_age), g.mxid_freeze_max_age)
      - mxid_age(opt.toast_relminmxid), 2147483647)
  ) AS mxid_until_wraparound_autovacuum
FROM opt CROSS JOIN global g`

// Each partition with the partitioned table it belongs to (at any depth):
// a partitioned table has no rows of its own, and its figures are those of
// its partitions added up (snapshot.js).
const PARTITIONS = `SELECT current_database() AS datname, n.nspname AS schemaname, c.relname,
  rn.nspname AS root_schemaname, r.relname AS root_relname
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class r ON r.oid = pg_partition_root(c.oid)
JOIN pg_namespace rn ON rn.oid = r.relnamespace
WHERE c.relispartition AND c.relkind IN ('r', 'm')`

// Every database, template0 included: its datfrozenxid ages too.
const XID_DATABASES = `SELECT datname, age(datfrozenxid) AS xid_age,
  current_setting('autovacuum_freeze_max_age')::bigint - age(datfrozenxid) AS tx_until_wraparound_autovacuum,
  mxid_age(datminmxid) AS mxid_age,
  current_setting('autovacuum_multixact_freeze_max_age')::bigint - mxid_age(datminmxid)
    AS mxid_until_wraparound_autovacuum
FROM pg_database`

// What holds back the xmin horizon of the whole server (VACUUM cannot
// remove rows deleted after it): at most HOLDERS_PER_KIND of each kind,
// oldest first. Backends with a snapshot or a transaction id (the
// collector's own excluded), prepared transactions, replication slots
// with an xmin or a catalog_xmin. xmin_age is in transactions; xact_age_s
// is how long the transaction has been open (prepared: since PREPARE).
// Every part reads a view the size of max_connections,
// max_prepared_transactions or max_replication_slots, and is LIMITed.
export const HOLDERS_PER_KIND = 5
const HORIZON = `SELECT * FROM (
(SELECT 'backend' AS kind, a.pid, a.application_name, a.state, a.backend_type,
  a.datname::text AS datname, NULL::text AS name,
  extract(epoch FROM now() - a.xact_start)::float8 AS xact_age_s,
  greatest(age(a.backend_xid), age(a.backend_xmin)) AS xmin_age,
  NULL::int AS slot_xmin_age, NULL::int AS slot_catalog_xmin_age
FROM pg_stat_activity a
WHERE (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL) AND a.pid <> pg_backend_pid()
ORDER BY xmin_age DESC, a.pid LIMIT ${HOLDERS_PER_KIND})
UNION ALL
(SELECT 'prepared', NULL::int, NULL::text, NULL::text, NULL::text, p.database::text, p.gid,
  extract(epoch FROM now() - p.prepared)::float8,
  age(p.transaction), NULL::int, NULL::int
FROM pg_prepared_xacts p
ORDER BY age(p.transaction) DESC, p.gid LIMIT ${HOLDERS_PER_KIND})
UNION ALL
(SELECT 'slot', r.active_pid, NULL::text, CASE WHEN r.active THEN 'active' ELSE 'inactive' END, NULL::text,
  r.database::text, r.slot_name::text,
  NULL::float8,
  greatest(age(r.xmin), age(r.catalog_xmin)), age(r.xmin), age(r.catalog_xmin)
FROM pg_replication_slots r
WHERE r.xmin IS NOT NULL OR r.catalog_xmin IS NOT NULL
ORDER BY greatest(age(r.xmin), age(r.catalog_xmin)) DESC, r.slot_name LIMIT ${HOLDERS_PER_KIND})
) h
ORDER BY xmin_age DESC NULLS LAST, kind, pid, name`

// Backends waiting for a heavyweight lock (wait_event_type 'Lock'), per
// database (every database that accepts connections, zero-filled) and in
// all, with the longest wait; and the sessions blocking them. A wait is
// timed from pg_locks.waitstart (14+), else from the waiter's
// state_change (when its statement began: a little longer than the wait).
// pg_locks is read only when someone waits (the one-time filter of the
// EXISTS), and pg_blocking_pids, which locks the lock manager's shared
// state for a moment, only for the WAITERS_EXAMINED longest waits. One row
// per part: 'total', 'database', 'blocker' (at most BLOCKERS, those
// holding up the longest waits first).
export const WAITERS_EXAMINED = 10
export const BLOCKERS = 5
/** @param {number} version */
export function locksSql(version) {
  const waitstart =
    version >= PG14
      ? `LEFT JOIN (SELECT l.pid, min(l.waitstart) AS waitstart FROM pg_locks l
    WHERE NOT l.granted AND EXISTS (SELECT 1 FROM activity WHERE wait_event_type = 'Lock')
    GROUP BY l.pid) s ON s.pid = a.pid`
      : 'LEFT JOIN (SELECT NULL::int AS pid, NULL::timestamptz AS waitstart) s ON false'
  return `WITH activity AS MATERIALIZED (
  SELECT pid, datname::text AS datname, application_name, state, wait_event_type, state_change
  FROM pg_stat_activity WHERE pid <> pg_backend_pid()
),
waiting AS MATERIALIZED (
  SELECT a.pid, a.datname, extract(epoch FROM now() - coalesce(s.waitstart, a.state_change))::float8 AS wait_s
  FROM activity a
  ${waitstart}
  WHERE a.wait_event_type = 'Lock'
),
blockers AS (
  SELECT b.pid, max(w.wait_s) AS wait_s, count(*) AS blocked
  FROM (SELECT pid, wait_s FROM waiting ORDER BY wait_s DESC NULLS LAST, pid LIMIT ${WAITERS_EXAMINED}) w
  CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS b(pid)
  GROUP BY b.pid
)
SELECT 'total' AS part, NULL::text AS datname, count(*) AS waiting, max(wait_s) AS wait_s,
  NULL::int AS pid, NULL::text AS application_name, NULL::text AS state
FROM waiting
UNION ALL
SELECT 'database', d.datname::text, count(w.pid), max(w.wait_s), NULL, NULL, NULL
FROM pg_database d LEFT JOIN waiting w ON w.datname = d.datname::text
WHERE d.datallowconn
GROUP BY d.datname
UNION ALL
(SELECT 'blocker', a.datname, b.blocked, b.wait_s, b.pid, a.application_name, a.state
FROM blockers b LEFT JOIN activity a ON a.pid = b.pid
ORDER BY b.wait_s DESC NULLS LAST, b.pid LIMIT ${BLOCKERS})`
}

/**
 * Every database that accepts connections; its session figures (14+) are
 * NULL before.
 * @param {number} version
 */
export function databaseSql(version) {
  const sessions =
    version >= PG14
      ? `s.sessions, s.sessions_abandoned, s.sessions_fatal, s.sessions_killed,
  s.session_time / 1000.0 AS session_time_seconds, s.active_time / 1000.0 AS active_time_seconds,
  s.idle_in_transaction_time / 1000.0 AS idle_in_transaction_time_seconds`
      : `NULL::bigint AS sessions, NULL::bigint AS sessions_abandoned, NULL::bigint AS sessions_fatal,
  NULL::bigint AS sessions_killed, NULL::float8 AS session_time_seconds, NULL::float8 AS active_time_seconds,
  NULL::float8 AS idle_in_transaction_time_seconds`
  return `SELECT d.datname,
  CASE WHEN has_database_privilege(d.oid, 'CONNECT') OR pg_has_role('pg_read_all_stats', 'MEMBER')
    THEN pg_database_size(d.oid) END AS size_bytes,
  s.numbackends, s.xact_commit, s.xact_rollback, s.blks_read, s.blks_hit,
  s.tup_returned, s.tup_fetched, s.tup_inserted, s.tup_updated, s.tup_deleted,
  ${sessions}
FROM pg_database d
LEFT JOIN pg_stat_database s ON s.datid = d.oid
WHERE d.datallowconn`
}
