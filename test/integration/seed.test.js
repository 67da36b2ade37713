// --seed on PostgreSQL 15: two prepare-like runs with the same seed (each
// client a fixed share, -t, two clients whose inserts interleave as they
// may) leave tables of the same rows, ids and the server's time stamps
// aside; another seed leaves other rows; the clients keep their streams
// over threads. A plan's seed: and the flag's refusals are one line.
import t from 'tap'
import { runCli } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { parsePlan } from '../../lib/experiment/plan.js'
import { clientRandom } from '../../lib/workloads/client-random.js'

const db = await createTestDatabase(t, 'seed')

// The rows' values, ordered by themselves: what a prepare phase writes, whatever the ids.
const ROWS = {
  manta: { table: 'test_table', columns: 'c1, c2, c3, c4, c5' },
  timeseries: {
    table: 'cpu',
    columns:
      'tags_id, usage_user, usage_system, usage_idle, usage_nice, usage_iowait, usage_irq, usage_softirq, ' +
      'usage_steal, usage_guest, usage_guest_nice'
  }
}

/**
 * @param {import('tap').Test} t
 * @param {string} workload
 * @param {string[]} flags
 * @returns {Promise<{ rows: number, hash: string }>}
 */
async function prepareLike(t, workload, flags) {
  const result = await runCli(
    [
      'run',
      db.url,
      '-w',
      workload,
      '--mix',
      'insert_row=1',
      '-t',
      '150',
      '-c',
      '2',
      '--reset',
      '--json',
      '-p',
      '0',
      '-P',
      '0',
      '--no-pg-stats',
      '--log-level',
      'warn',
      ...flags
    ],
    { t }
  )
  t.equal(result.code, 0, result.code === 0 ? 'exit 0' : `exit 0; stderr: ${result.stderr}`)
  const { table, columns } = ROWS[/** @type {'manta' | 'timeseries'} */ (workload)]
  const { rows } = await query(
    db.url,
    `SELECT count(*)::int AS n, md5(string_agg(row(${columns})::text, '|' ORDER BY ${columns})) AS hash FROM ${table}`
  )
  return { rows: rows[0].n, hash: rows[0].hash }
}

for (const workload of ['manta', 'timeseries']) {
  t.test(`${workload}: the same seed, the same rows; another seed, other rows`, async t => {
    const first = await prepareLike(t, workload, ['--seed', '42'])
    t.equal(first.rows, 300, 'two clients of 150 inserts each')
    const again = await prepareLike(t, workload, ['--seed', '42'])
    t.equal(again.rows, 300)
    t.equal(again.hash, first.hash, 'seed 42 twice: identical rows')
    const threaded = await prepareLike(t, workload, ['--seed', '42', '-j', '2'])
    t.equal(
      threaded.hash,
      first.hash,
      "seed 42 over two threads: identical rows (a client's stream follows its number)"
    )
    const other = await prepareLike(t, workload, ['--seed', '43'])
    t.equal(other.rows, 300)
    t.not(other.hash, first.hash, 'seed 43: other rows')
    const unseeded = await prepareLike(t, workload, [])
    t.not(unseeded.hash, first.hash, 'no seed: random rows, as before --seed')
  })
}

t.test('refusals: one line, exit 2, nothing touched', async t => {
  for (const [flags, problem] of /** @type {Array<[string[], RegExp]>} */ ([
    [['--seed', '-1'], /^pgloadgen: --seed must be a whole number from 0 to 2147483647, got "-1"$/],
    [['--seed', 'x'], /^pgloadgen: --seed must be a whole number from 0 to 2147483647, got "x"$/],
    [['--seed', '2147483648'], /--seed must be a whole number/],
    [['-b', 'select-only', '--seed', '1', '--random-seed', '2'], /^pgloadgen: --seed and --random-seed: give one/]
  ])) {
    const result = await runCli(['run', db.url, '-p', '0', '-d', '1', ...flags], { t })
    t.equal(result.code, 2, `${flags.join(' ')}: exit 2`)
    t.match(result.stderr.trim(), problem, `${flags.join(' ')}: ${result.stderr.trim()}`)
    t.equal(result.stderr.trim().split('\n').length, 1, 'one line')
  }
})

t.test("a plan's seed: read, checked, given to the workload", async t => {
  const plan = {
    name: 'seeded',
    server: { url: db.url, data_dir: '/tmp/nowhere' },
    workload: 'tsbs-cpu',
    seed: 7,
    prepare: { duration: 5 },
    variants: [{ name: 'a', steps: [{ load: 5 }] }]
  }
  const parsed = await parsePlan(plan, { baseDir: '.' })
  t.equal(parsed.load.seed, 7, 'plan.load.seed')
  t.equal(/** @type {{ seed: number }} */ (parsed.workload.config).seed, 7, "tsbs-cpu's data seed is the plan's")
  const own = await parsePlan({ ...plan, options: { seed: 9 } }, { baseDir: '.' })
  t.equal(/** @type {{ seed: number }} */ (own.workload.config).seed, 9, 'its own options.seed wins')
  t.equal((await parsePlan({ ...plan, seed: undefined }, { baseDir: '.' })).load.seed, null, 'none: null')
  await t.rejects(
    parsePlan({ ...plan, seed: '7' }, { baseDir: '.' }),
    /^seed must be a whole number from 0 to 2147483647, got "7"$/
  )
  await t.rejects(
    parsePlan({ ...plan, concurrency: 0, workload: 'manta' }, { baseDir: '.' }),
    /^concurrency must be a whole number from 1 to 10000, got 0$/
  )
})

t.test("a client's stream: the seed and its number decide it", async t => {
  const draw = (/** @type {() => number} */ random) => Array.from({ length: 8 }, () => random())
  t.same(draw(clientRandom(42, 3)), draw(clientRandom(42, 3)), 'the same seed and client: the same numbers')
  t.not(draw(clientRandom(42, 3)).join(), draw(clientRandom(42, 4)).join(), 'another client: others')
  t.not(draw(clientRandom(42, 3)).join(), draw(clientRandom(43, 3)).join(), 'another seed: others')
  t.equal(clientRandom(null, 0), Math.random, 'no seed: Math.random')
  t.ok(
    draw(clientRandom(1, 0)).every(x => x >= 0 && x < 1),
    'in [0, 1)'
  )
})
