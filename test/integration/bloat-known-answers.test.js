// The exporter's bloat figures against pgstattuple and pgstatindex on
// tables whose dead fraction is fixed by construction (the known-answer
// cases of benchmarks/known-answers/bloat/), on an embedded PostgreSQL 18
// and on the machine's PostgreSQL 15. The bound is the 5 points;
// the heap and B-tree errors measured on these shapes are under 3 points on
// every major (docs/postgres-side.md), so a loaded machine, which changes
// no byte of a table, cannot push them over it.
import t from 'tap'
import { SHAPES, drawSizes } from '../../benchmarks/known-answers/bloat/shapes.js'
import { measureCase } from '../../benchmarks/known-answers/bloat/measure.js'
import { mulberry32 } from '../../lib/results/bootstrap-interval.js'
import { startEmbedded } from '../helpers/embedded.js'
import { createTestDatabase, query, PG15_ADMIN_URL } from '../helpers/pg.js'

const SEED = 34
const BOUND_POINTS = 5

/** @param {string} name */
const shape = name =>
  /** @type {import('../../benchmarks/known-answers/bloat/shapes.js').Shape} */ (SHAPES.find(s => s.name === name))

/**
 * @param {import('tap').Test} t
 * @param {string} url   a superuser's connection to a database with pgstattuple
 * @param {string} role  a role that may not read the cases' tables
 */
async function checkShapes(t, url, role) {
  const sizes = { ...drawSizes(mulberry32(SEED), SEED), rows: 12000 }
  for (const name of ['every-kth', 'range-vacuumed', 'stale-statistics']) {
    const { heap, btrees } = await measureCase(url, `bloat_test_${name.replaceAll('-', '_')}`, shape(name), sizes)
    const error = heap.estimate === null ? Infinity : (heap.estimate - heap.truth) * 100
    // The estimate cannot see rows deleted since the last ANALYZE (stale-statistics):
    // pgstattuple_approx can, which reads the pages not all-visible.
    if (name !== 'stale-statistics') {
      t.ok(
        Math.abs(error) <= BOUND_POINTS,
        `${name}: heap estimate ${heap.estimate} against pgstattuple ${heap.truth} (${error.toFixed(1)} points)`
      )
    }
    const approx = heap.approx === null || heap.approx === undefined ? Infinity : (heap.approx - heap.truth) * 100
    t.ok(
      Math.abs(approx) <= BOUND_POINTS,
      `${name}: heap figure of --pgstattuple-approx ${heap.approx} against pgstattuple ${heap.truth} ` +
        `(${approx.toFixed(1)} points)`
    )
    for (const [i, btree] of btrees.entries()) {
      const exact = btree.onDemand === null ? Infinity : (btree.onDemand - btree.truth) * 100
      t.ok(
        Math.abs(exact) <= 0.5,
        `${name}: B-tree ${i}: the --pgstattuple figure is pgstatindex's (${btree.onDemand})`
      )
      const estimate = btree.estimate === null ? Infinity : (btree.estimate - btree.truth) * 100
      t.ok(
        Math.abs(estimate) <= BOUND_POINTS,
        `${name}: B-tree ${i} estimate ${btree.estimate} against pgstatindex ${btree.truth} ` +
          `(${estimate.toFixed(1)} points)`
      )
    }
  }
  const blind = await measureCase(url, 'bloat_test_blind', { ...shape('no-pg_stats'), role }, sizes)
  t.equal(blind.heap.estimate, null, 'a role that cannot read pg_stats: no heap estimate')
  t.same(
    blind.btrees.map(b => b.estimate),
    [null, null],
    'a role that cannot read pg_stats: no B-tree estimate'
  )
}

t.test('PostgreSQL 18, embedded', async t => {
  const { url } = await startEmbedded(t, { major: 18 })
  await query(url, 'CREATE EXTENSION pgstattuple')
  await query(url, 'CREATE ROLE bloat_blind NOLOGIN')
  await checkShapes(t, url, 'bloat_blind')
})

t.test("the machine's PostgreSQL 15", async t => {
  const role = `bloat_blind_${process.pid}`
  await query(PG15_ADMIN_URL, `CREATE ROLE ${role} NOLOGIN`)
  // Teardowns run in reverse: the database goes first, then the role.
  t.teardown(() => query(PG15_ADMIN_URL, `DROP ROLE IF EXISTS ${role}`))
  const db = await createTestDatabase(t, 'bloat')
  await query(db.url, 'CREATE EXTENSION pgstattuple')
  await checkShapes(t, db.url, role)
})
