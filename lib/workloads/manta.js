import { randomUUID } from 'node:crypto'
import { defineWorkload } from './workload.js'

// The original experiment's workload: rows of five random v4 UUID strings.
export const manta = defineWorkload({
  name: 'manta',
  table: 'test_table',
  prefix: 'manta',
  insertSql: 'INSERT INTO test_table (c1, c2, c3, c4, c5) VALUES ($1, $2, $3, $4, $5) RETURNING id',
  newRow: () => [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()],
  updateSql: 'UPDATE test_table SET c1 = $2, c2 = $3, c3 = $4, c4 = $5, c5 = $6 WHERE id = $1',
  changedRow: (id) => [id, randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()]
})
