import { POINTS } from './schema.js'

// What the lab polls for the fleet, exported as gauges and written into
// every recorded sample: the figures a capacity report needs next to the
// flush lag. The points table's figures add up its partitions (a
// partitioned parent has no rows of its own).

const POINT_RELATIONS = `SELECT relid FROM pg_partition_tree('${POINTS}')`

// Checkpoints moved from pg_stat_bgwriter to pg_stat_checkpointer in
// PostgreSQL 17. The statement names neither directly, so that it parses
// on both; query_to_xml runs the one the server has.
/** @param {string} pre17  @param {string} since17 */
const checkpointSql = (pre17, since17) => `SELECT (xpath('/row/v/text()', query_to_xml(
  CASE WHEN current_setting('server_version_num')::int >= 170000
    THEN 'SELECT ${since17} AS v FROM pg_stat_checkpointer'
    ELSE 'SELECT ${pre17} AS v FROM pg_stat_bgwriter' END, false, true, '')))[1]::text::bigint AS value`

/**
 * @param {import('./config.js').FleetConfig} config
 * @returns {import('../contract.js').WorkloadStatistic[]}
 */
export function fleetStatistics(config) {
  return [
    {
      name: 'pgloadgen_workload_fleet_dead_tuples',
      help: `Dead tuples of ${POINTS} and its partitions`,
      sql: `SELECT coalesce(sum(n_dead_tup), 0) AS value FROM pg_stat_user_tables WHERE relid IN (${POINT_RELATIONS})`
    },
    {
      name: 'pgloadgen_workload_fleet_autovacuums_total',
      help: `Autovacuums of ${POINTS} and its partitions, since the statistics were reset (inserts trigger them too, PostgreSQL 13+)`,
      sql: `SELECT coalesce(sum(autovacuum_count), 0) AS value FROM pg_stat_user_tables WHERE relid IN (${POINT_RELATIONS})`
    },
    {
      name: 'pgloadgen_workload_fleet_vacuums_running',
      help: `Vacuums of ${POINTS} or its partitions running now`,
      sql: `SELECT count(*) AS value FROM pg_stat_progress_vacuum WHERE datname = current_database() AND relid IN (${POINT_RELATIONS})`
    },
    {
      name: 'pgloadgen_workload_fleet_checkpoints_total',
      help: 'Checkpoints of the server, scheduled and requested',
      sql: checkpointSql('checkpoints_timed + checkpoints_req', 'num_timed + num_requested')
    },
    {
      name: 'pgloadgen_workload_fleet_checkpoints_requested_total',
      help: 'Checkpoints of the server requested before their time (max_wal_size filled up, or a CHECKPOINT)',
      sql: checkpointSql('checkpoints_req', 'num_requested')
    },
    ...(config.partitionIntervalS === null
      ? []
      : [
          {
            name: 'pgloadgen_workload_fleet_partitions',
            help: `Partitions of ${POINTS}`,
            sql: `SELECT count(*) AS value FROM pg_inherits WHERE inhparent = to_regclass('${POINTS}')`
          }
        ])
  ]
}
