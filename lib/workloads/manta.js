import { randomUUID } from 'node:crypto'
import { denseTableWorkload } from './dense-table.js'

// The original experiment's workload: rows of five random v4 UUID strings.
export default denseTableWorkload({
  name: 'manta',
  description: 'the original experiment: rows of five random UUID strings in test_table',
  table: 'test_table',
  prefix: 'manta',
  schema: new URL('../../schema/manta.sql', import.meta.url),
  drop: new URL('../../schema/manta.drop.sql', import.meta.url),
  insertSql: 'INSERT INTO test_table (c1, c2, c3, c4, c5) VALUES ($1, $2, $3, $4, $5) RETURNING id',
  newRow: () => [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()],
  updateSql: 'UPDATE test_table SET c1 = $2, c2 = $3, c3 = $4, c4 = $5, c5 = $6 WHERE id = $1',
  pointsPerRow: 0,
  changedRow: (id) => [id, randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()]
})
