import { insertBatch } from './batch.js'
import { OPTIONS, configure, pacing } from './config.js'
import { lateUpdate } from './late-update.js'
import { MAINTAIN_EVERY_S, maintainPartitions, partitionStatistics } from './partitioning.js'
import { queryGroupbyHour, queryLastpoint } from './queries.js'
import { CPU_TABLE, DROP_SQL, TAGS_SQL } from './schema.js'
import { setup } from './setup.js'

// The Time Series Benchmark Suite's cpu-only use case, loaded as TSBS's
// PostgreSQL loader loads it: batches of rows (binary COPY by default) of
// one point per host per interval, into tsbs_cpu beside a tsbs_tags table;
// with late corrections and TSBS's lastpoint and hourly group-by queries
// mixed in at a small weight, and, if asked, a table partitioned by time.
//
//   pgloadgen run URL -w tsbs-cpu --hosts 100 -c 1 -d 60
//   pgloadgen run URL -w tsbs-cpu --clock real --hosts 1000 --interval 1s
//   pgloadgen run URL -w tsbs-cpu --partition-interval 1d --premake 2

/** @type {import('../contract.js').WorkloadModule} */
export default {
  name: 'tsbs-cpu',
  description:
    'TSBS cpu-only: batches of one row per host per interval (ten usage fields) into tsbs_cpu, by binary COPY, text COPY or multi-row INSERT',
  table: CPU_TABLE,
  audit: { table: CPU_TABLE },
  // tsbs_cpu's shape depends on the options: setup makes it
  schema: TAGS_SQL,
  drop: DROP_SQL,
  // An ingest workload: batches are nearly every request and nearly all
  // the time; corrections and the two queries are there so that writes
  // meet the reads and the updates a real ingest path sees.
  types: [
    { name: 'insert_batch', weight: 95 },
    { name: 'late_update', weight: 3 },
    { name: 'query_lastpoint', weight: 1 },
    { name: 'query_groupby_hour', weight: 1 }
  ],
  fill: 'insert_batch=1',
  options: OPTIONS,
  configure,
  pacing,
  statistics: partitionStatistics,
  maintainEvery: MAINTAIN_EVERY_S,
  maintain: maintainPartitions,
  setup,
  requests: {
    insert_batch: insertBatch,
    late_update: lateUpdate,
    query_lastpoint: queryLastpoint,
    query_groupby_hour: queryGroupbyHour
  }
}
