import { denseTableWorkload } from './dense-table.js'
// the ten usage columns of TSBS's cpu rows, which schema/timeseries.sql's cpu table has too
import { FIELDS as METRICS } from './tsbs-cpu/schema.js'

// Hosts seeded by schema/timeseries.sql.
const HOSTS = 100

const FINGERPRINT = '(extract(epoch FROM time) * 1000000)::bigint % 65536'

/**
 * A row's first parameter and its ten usages, drawn from the client's random numbers.
 * @param {number} first
 * @param {() => number} random
 */
const withUsages = (first, random) => [
  first,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100,
  random() * 100
]

// Points of the Time Series Benchmark Suite's cpu-only shape: an insert is a
// new point for a random host at the current time, an update a late
// correction of an existing point's values.
export default denseTableWorkload({
  name: 'timeseries',
  description: 'single-row inserts of TSBS cpu-only points (100 hosts, ten usage metrics) into cpu',
  table: 'cpu',
  prefix: 'ts',
  schema: new URL('../../schema/timeseries.sql', import.meta.url),
  drop: new URL('../../schema/timeseries.drop.sql', import.meta.url),
  // The row's time (the server's clock at insert, which updates leave
  // alone), in microseconds modulo 2^16, tells the row inserted from a
  // later one that took its id; the insert returns it after the id.
  insertSql: `INSERT INTO cpu (time, tags_id, ${METRICS.join(', ')}) VALUES (now(), $1, ${METRICS.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING id::text || ' ' || (${FINGERPRINT})::text`,
  newRow: random => withUsages(1 + Math.floor(random() * HOSTS), random),
  fingerprintSql: FINGERPRINT,
  updateSql: `UPDATE cpu SET ${METRICS.map((m, i) => `${m} = $${i + 2}`).join(', ')} WHERE id = $1`,
  pointsPerRow: 10,
  changedRow: withUsages
})
