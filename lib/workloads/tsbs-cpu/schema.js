import { TAG_COLUMNS } from './tags.js'

// The tables of TSBS's PostgreSQL loader (pkg/targets/timescaledb/
// creator.go), under names of their own so that they never meet the
// timeseries workload's cpu and tags: tsbs_tags, one row per host with
// its ten tags (unique together), and tsbs_cpu, a row per host and time
// with the ten usage fields and a jsonb of extra tags, indexed on
// (tags_id, time DESC) and (time DESC).

export const CPU_TABLE = 'tsbs_cpu'
export const TAGS_TABLE = 'tsbs_tags'
export const FIELDS = [
  'usage_user',
  'usage_system',
  'usage_idle',
  'usage_nice',
  'usage_iowait',
  'usage_irq',
  'usage_softirq',
  'usage_steal',
  'usage_guest',
  'usage_guest_nice'
]
// What a batch writes, in this order; additional_tags is left to its default (NULL).
export const ROW_COLUMNS = ['time', 'tags_id', ...FIELDS]

export const CPU_COLUMNS_SQL = `time timestamptz, tags_id integer, ${FIELDS.map(field => `${field} double precision`).join(', ')}, additional_tags jsonb DEFAULT NULL`

const TAG_COLUMNS_SQL = TAG_COLUMNS.map(column => `${column} text`).join(', ')
export const TAGS_SQL = `
CREATE TABLE IF NOT EXISTS ${TAGS_TABLE} (id serial PRIMARY KEY, ${TAG_COLUMNS_SQL});
CREATE UNIQUE INDEX IF NOT EXISTS ${TAGS_TABLE}_uniq ON ${TAGS_TABLE} (${TAG_COLUMNS.join(', ')});
CREATE INDEX IF NOT EXISTS ${TAGS_TABLE}_hostname_idx ON ${TAGS_TABLE} (hostname);
`

export const PLAIN_CPU_SQL = `CREATE TABLE IF NOT EXISTS ${CPU_TABLE} (${CPU_COLUMNS_SQL})`

// On a partitioned table the indexes are made on every partition, present and future.
export const CPU_INDEXES_SQL = [
  `CREATE INDEX IF NOT EXISTS ${CPU_TABLE}_tags_id_time_idx ON ${CPU_TABLE} (tags_id, time DESC)`,
  `CREATE INDEX IF NOT EXISTS ${CPU_TABLE}_time_idx ON ${CPU_TABLE} (time DESC)`
]

export const DROP_SQL = `DROP TABLE IF EXISTS ${CPU_TABLE}, ${TAGS_TABLE};\n`

// A host's tags are inserted unless present; its id is read back by all ten.
const TAG_PARAMS_SQL = TAG_COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(', ')
export const SEED_TAGS_SQL = `INSERT INTO ${TAGS_TABLE} (${TAG_COLUMNS.join(', ')})
  SELECT * FROM unnest(${TAG_PARAMS_SQL})
  ON CONFLICT DO NOTHING`
export const TAG_IDS_SQL = `SELECT t.id, u.n FROM unnest(${TAG_PARAMS_SQL})
  WITH ORDINALITY AS u(${TAG_COLUMNS.join(', ')}, n)
  JOIN ${TAGS_TABLE} t USING (${TAG_COLUMNS.join(', ')})`

export const RELKIND_SQL = `SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('${CPU_TABLE}')`
export const NEWEST_SQL = `SELECT (extract(epoch FROM max(time)) * 1000)::float8 AS ms FROM ${CPU_TABLE}`
