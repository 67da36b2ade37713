// Experiments whose variants change the server: its major, its profile,
// its settings, by hand or through matrix:. The plan is checked whole
// before anything starts; a plan on two majors runs end to end, each
// variant's summary naming its server, and the report setting them side
// by side.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { runCli, lines, REPO } from '../helpers/cli.js'
import { parsePlan } from '../../lib/experiment/plan.js'
import { EmbeddedServer } from '../../lib/embedded/server.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { createLogger } from '../../lib/log.js'
import { query } from '../helpers/pg.js'
import { readExperimentSummary, readRunSummary } from '../helpers/summary-schema.js'

/** @param {import('tap').Test} t */
async function tempDir(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-exp-'))
  await chmod(dir, 0o755) // the embedded servers run as postgres when we are root
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const STEPS = [
  { load: '3s' },
  { action: { action: 'vacuum', table: 'test_table' } },
  { wait: 'action' },
  { load: '2s' }
]

/** @param {Record<string, unknown>} fields */
const planWith = fields => ({
  name: 'servers',
  server: { profile: 'default' },
  workload: 'manta',
  concurrency: 4,
  prepare: { rows: 3000 },
  variants: [{ name: 'a', steps: STEPS }],
  repetitions: 1,
  ...fields
})

t.test('matrix: the product of its lists, crossed with each variant, with generated names', async t => {
  const plan = await parsePlan(
    planWith({
      variants: [
        { name: 'freeze', steps: STEPS },
        { name: 'vacuum', steps: STEPS, server: { settings: { maintenance_work_mem: '64MB' } } }
      ],
      matrix: { version: [14, 16, 18], 'settings.autovacuum_vacuum_cost_limit': [200, 2000] }
    }),
    { baseDir: REPO }
  )
  t.equal(plan.variants.length, 12, '2 variants × 3 versions × 2 cost limits')
  t.same(
    plan.variants.slice(0, 6).map(v => v.name),
    [
      'freeze-pg14-autovacuum_vacuum_cost_limit-200',
      'freeze-pg14-autovacuum_vacuum_cost_limit-2000',
      'freeze-pg16-autovacuum_vacuum_cost_limit-200',
      'freeze-pg16-autovacuum_vacuum_cost_limit-2000',
      'freeze-pg18-autovacuum_vacuum_cost_limit-200',
      'freeze-pg18-autovacuum_vacuum_cost_limit-2000'
    ],
    'names say what each combination is'
  )
  const last = plan.variants[11]
  t.same(
    last.server,
    { major: 18, profile: 'default', settings: { maintenance_work_mem: '64MB', autovacuum_vacuum_cost_limit: 2000 } },
    "a variant's own settings and the matrix's together"
  )
  t.equal(plan.variants[0].server?.major, 14, 'the major of its combination')
})

t.test('a bad server in a plan: one line naming the field, before anything starts', async t => {
  const cases = [
    {
      plan: planWith({ matrix: { versions: [14, 16] } }),
      message: /^matrix\.versions: unknown key \(a matrix takes version, profile and settings\.NAME\)$/
    },
    {
      plan: planWith({
        matrix: {
          version: [13, 14, 15, 16, 17, 18],
          'settings.work_mem': ['1MB', '2MB', '4MB', '8MB', '16MB', '32MB'],
          'settings.vacuum_cost_limit': [200, 2000]
        }
      }),
      message: /^matrix: more than 64 combinations$/
    },
    {
      plan: planWith({
        variants: [
          { name: 'a', steps: STEPS },
          { name: 'b', steps: STEPS }
        ],
        matrix: {
          version: [14, 15, 16, 17, 18],
          'settings.work_mem': ['1MB', '2MB', '4MB', '8MB', '16MB', '32MB', '64MB']
        }
      }),
      message: /^matrix: 2 variants × 35 combinations is more than 64 variants$/
    },
    {
      plan: planWith({ variants: [{ name: 'a', steps: STEPS, server: { version: 16, shared_buffers: '1GB' } }] }),
      message:
        /^variants\[0\]\.server\.shared_buffers: unknown field \(a variant's server takes version, profile, settings\)$/
    },
    {
      plan: planWith({
        variants: [{ name: 'a', steps: STEPS, server: { version: 16, settings: { io_method: 'worker' } } }]
      }),
      message:
        /^variants\[0\]\.server\.settings\.io_method: PostgreSQL 16 has no setting io_method \(it came in PostgreSQL 18\)$/
    },
    {
      plan: planWith({ variants: [{ name: 'a', steps: STEPS, server: { version: 14, profile: 'io-bound' } }] }),
      message: /^variants\[0\]\.server: profile io-bound: PostgreSQL 14 has no setting debug_io_direct/
    },
    {
      plan: planWith({ variants: [{ name: 'a', steps: STEPS, server: { version: 9 } }] }),
      message: /^variants\[0\]\.server\.version: unknown PostgreSQL major "9"/
    },
    {
      plan: planWith({
        variants: [{ name: 'a', steps: STEPS, server: { version: 16 } }],
        matrix: { version: [14, 18] }
      }),
      message: /^variants\[0\]\.server\.version: the matrix sets it too$/
    },
    {
      plan: planWith({
        server: { url: 'postgres://127.0.0.1/test', data_dir: '/tmp/x' },
        variants: [{ name: 'a', steps: STEPS, server: { version: 16 } }]
      }),
      message: /^variants\[0\]\.server: only with the embedded server/
    },
    {
      plan: planWith({ server: { profile: 'default', settings: { autovacuum_vacuum_cost_limit: [1] } } }),
      message: /^server\.settings\.autovacuum_vacuum_cost_limit: a string, number or boolean/
    }
  ]
  for (const { plan, message } of cases) await t.rejects(parsePlan(plan, { baseDir: REPO }), message, message.source)

  // the same through the CLI: one line, exit 2, no --out made
  const dir = await tempDir(t)
  const file = path.join(dir, 'bad.yaml')
  await writeFile(file, YAML.stringify(planWith({ matrix: { version: [14, 16], 'settings.io_method': ['worker'] } })))
  const result = await runCli(['experiment', file, '--out', path.join(dir, 'out')], { t })
  t.equal(result.code, 2, 'exit 2')
  t.match(
    result.stderr,
    /settings\.io_method: PostgreSQL 14 has no setting io_method/,
    "names the variant's setting and the major"
  )
  t.equal(lines(result.stderr).length, 1, 'one line')
  t.notOk(existsSync(path.join(dir, 'out')), 'nothing made')
})

t.test(
  'a plan on two majors, one variant with settings of its own: run end to end, compared in the report',
  async t => {
    const dir = await tempDir(t)
    const file = path.join(dir, 'two-majors.yaml')
    await writeFile(
      file,
      YAML.stringify(
        planWith({
          variants: [
            { name: 'pg16', steps: STEPS, server: { version: 16 } },
            { name: 'pg18-cost', steps: STEPS, server: { settings: { autovacuum_vacuum_cost_limit: 2000 } } },
            { name: 'pg18', steps: STEPS }
          ]
        })
      )
    )
    const out = path.join(dir, 'out')
    const result = await runCli(['experiment', file, '--out', out], { t })
    t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-2000)}`)
    t.match(
      result.stderr,
      /PostgreSQL 18: variants pg18-cost, pg18 share its snapshot/,
      'the variants on 18 share one snapshot'
    )

    const experiment = JSON.parse(await readFile(path.join(out, 'experiment.json'), 'utf8'))
    t.same(
      experiment.servers.map((/** @type {any} */ s) => [s.major, s.variants, s.prepare]),
      [
        [16, ['pg16'], 'prepare-pg16'],
        [18, ['pg18-cost', 'pg18'], 'prepare-pg18']
      ],
      'one server and one prepare phase per major'
    )
    for (const prepare of ['prepare-pg16', 'prepare-pg18']) {
      const summary = await readRunSummary(path.join(out, prepare, 'summary.json'))
      t.ok(summary.acknowledged_inserts >= 3000, `${prepare}: the same row count, ${summary.acknowledged_inserts} rows`)
    }

    const summary = await readExperimentSummary(path.join(out, 'summary.json'))
    const servers = Object.fromEntries(summary.variants.map((/** @type {any} */ v) => [v.name, v.server]))
    t.match(servers.pg16.version, /^16\.\d+$/, 'pg16 ran on 16')
    t.match(servers['pg18-cost'].version, /^18\.\d+$/, 'pg18-cost ran on 18')
    t.equal(servers['pg18-cost'].settings.autovacuum_vacuum_cost_limit, '2000', 'its own setting, as SHOW reported it')
    t.same(servers['pg18-cost'].plan_settings, { autovacuum_vacuum_cost_limit: 2000 }, 'and as the plan gave it')
    t.equal(
      servers.pg18.settings.autovacuum_vacuum_cost_limit,
      '-1',
      "the variant beside it kept the default: the snapshot's settings came back"
    )
    t.equal(servers.pg16.settings.autovacuum_vacuum_cost_limit, '-1', 'as did 16')
    t.equal(servers.pg18.snapshot, servers['pg18-cost'].snapshot, 'the two on 18 rolled back to one snapshot')
    t.not(servers.pg16.snapshot, servers.pg18.snapshot, '16 to its own')

    const html = await readFile(path.join(out, 'report.html'), 'utf8')
    t.match(
      html,
      /The variants ran on different servers\. pg16 had a prepared snapshot of its own\. pg18-cost, pg18 shared one prepared snapshot\./,
      'the report says which variants shared a snapshot'
    )
    t.match(
      html,
      /<tr><th>autovacuum_vacuum_cost_limit<\/th><td>-1<\/td><td>2000<\/td><td>-1<\/td><\/tr>/,
      'and sets the differing setting side by side'
    )
    t.match(
      html,
      /<tr><th>PostgreSQL<\/th><td>16\.\d+<\/td><td>18\.\d+<\/td><td>18\.\d+<\/td><\/tr>/,
      "with each variant's version"
    )
  }
)

t.test('with a seed, the prepare phases of two majors write the same rows', async t => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'seeded.yaml')
  // the variants only read: each data directory ends as its prepare phase left it
  await writeFile(
    file,
    YAML.stringify(
      planWith({
        seed: 42,
        mix: 'read_row=1',
        prepare: { rows: 2000, concurrency: 4, mix: 'insert_row=1' },
        variants: [
          { name: 'pg16', steps: [{ load: '1s' }], server: { version: 16 } },
          { name: 'pg18', steps: [{ load: '1s' }] }
        ]
      })
    )
  )
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', file, '--out', out], { t })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr.slice(-2000)}`)
  /** @type {Record<string, { rows: number, digest: string }>} */
  const tables = {}
  for (const major of [16, 18]) {
    const dataDir = path.join(out, `pgdata-pg${major}`)
    const server = new EmbeddedServer({
      dataDir,
      profileFile: resolveProfile('default'),
      log: createLogger({ level: 'silent' }),
      major
    })
    t.teardown(() => server.shutdown().catch(() => {}))
    const url = await server.start()
    // the rows' generated values, in an order of their own: ids and time stamps are the server's
    const {
      rows: [row]
    } = await query(
      url,
      "SELECT count(*)::int AS rows, md5(string_agg(c1 || c2 || c3 || c4 || c5, ',' ORDER BY c1, " +
        'c2)) AS digest FROM test_table'
    )
    tables[major] = row
    await server.shutdown()
  }
  t.equal(tables[16].rows, 2000, "PostgreSQL 16: the plan's 2000 rows")
  t.equal(tables[18].rows, 2000, 'PostgreSQL 18: the same count')
  t.equal(tables[16].digest, tables[18].digest, 'and the same rows')
})
