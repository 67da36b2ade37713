import { denseTableWorkload } from './dense-table.js'
import { pushRandomUuids } from './random-uuids.js'

// The original experiment's workload: rows of five random v4 UUID strings.
export default denseTableWorkload({
  name: 'manta',
  description: 'the original experiment: rows of five random UUID strings in test_table',
  table: 'test_table',
  prefix: 'manta',
  schema: new URL('../../schema/manta.sql', import.meta.url),
  drop: new URL('../../schema/manta.drop.sql', import.meta.url),
  insertSql: 'INSERT INTO test_table (c1, c2, c3, c4, c5) VALUES ($1, $2, $3, $4, $5) RETURNING id',
  newRow: random => pushRandomUuids([], 5, random),
  // The first four hex digits of c1 (random in a v4 UUID) tell the row
  // inserted from a later one that took its id; an update writes five new
  // UUIDs of the same length but keeps those four digits.
  fingerprintSql: "('x' || left(c1, 4))::bit(16)::int",
  fingerprintOf: row => parseInt(String(row[0]).slice(0, 4), 16),
  updateSql:
    'UPDATE test_table SET c1 = left(c1, 4) || substr($2::text, 5), c2 = $3, c3 = $4, c4 = $5, c5 = $6 WHERE id = $1',
  pointsPerRow: 0,
  changedRow: (id, random) => pushRandomUuids([id], 5, random)
})
