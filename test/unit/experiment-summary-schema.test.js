// docs/experiment-summary.schema.json against experiment summaries: those
// recorded from real experiments (test/fixtures/summaries/experiment-*.json,
// on the embedded PostgreSQL) and those the report makes of synthetic
// experiment directories here, each optional part included; a summary with
// a field renamed, retyped or unknown fails, naming it.
import t from 'tap'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fleetRun, retentionRun, tgresRun, writeExperiment } from '../fixtures/report/synthetic.js'
import { vacuumVariant } from '../fixtures/report/vacuum.js'
import { buildReport } from '../../lib/report/index.js'
import { experimentSummaryProblems } from '../helpers/summary-schema.js'

const DIR = new URL('../fixtures/summaries/', import.meta.url)

/** @param {string} name */
async function fixture(name) {
  return JSON.parse(await readFile(new URL(name, DIR), 'utf8'))
}

const good = (await readdir(DIR)).filter(name => name.startsWith('experiment-') && name.endsWith('.json'))
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-experiment-schema-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/**
 * The summary the report makes of a synthetic experiment.
 * @param {string} name
 * @param {Parameters<typeof writeExperiment>[1]['variants']} variants
 * @returns {Promise<any>}
 */
async function synthetic(name, variants) {
  const dir = path.join(work, name)
  await writeExperiment(dir, { name, description: name, workload: 'synthetic', variants })
  return (await buildReport(dir)).summary
}

t.test('every recorded experiment summary follows the schema', async t => {
  t.ok(good.length >= 4, `${good.length} recorded experiment summaries`)
  for (const name of good) t.same(experimentSummaryProblems(await fixture(name)), [], name)
})

t.test('the recorded summaries cover the optional parts', async t => {
  const summaries = await Promise.all(good.map(fixture))
  const variants = summaries.flatMap(s => s.variants)
  const repetitions = variants.flatMap(v => v.repetitions)
  t.ok(
    variants.some(v => v.vacuum_cost?.mean),
    "a variant with its vacuums' cost"
  )
  t.ok(
    variants.some(v => v.wraparound?.some((/** @type {any} */ w) => w?.vacuums?.length > 0)),
    'a run with anti-wraparound vacuums'
  )
  t.ok(
    variants.some(v => v.wraparound?.some((/** @type {any} */ w) => w?.failsafes?.length > 0)),
    'and a failsafe'
  )
  t.ok(
    variants.some(v => v.capacity?.capacity_per_s),
    'a variant with a capacity knee'
  )
  t.ok(
    summaries.some(s => s.capacity_method !== null),
    'and the capacity method'
  )
  t.ok(
    repetitions.some(r => r.whole_run.retention !== null),
    'a run with retention'
  )
  t.ok(
    repetitions.some(r => r.action === null),
    'a run with no action'
  )
  t.ok(
    summaries.some(s => new Set(s.variants.map((/** @type {any} */ v) => v.server?.major)).size > 1),
    'variants on two majors'
  )
  t.ok(
    variants.some(
      v => v.statistics.degradation_ratio?.low !== null && v.statistics.degradation_ratio?.low !== undefined
    ),
    'a confidence interval'
  )
  t.ok(
    summaries.some(s => s.comparisons.some((/** @type {any} */ c) => c.verdict === 'worse' || c.verdict === 'better')),
    'a verdict'
  )
})

t.test("the synthetic experiments' summaries follow the schema", async t => {
  const real = await fixture('experiment-vacuum-pg18.json')
  const wraparound = (await fixture('experiment-wraparound.json')).variants[0].wraparound.find(
    (/** @type {any} */ w) => w !== null
  )
  const cost = real.variants[0].vacuum_cost.repetitions[0]
  // a run's recorded vacuums and wraparound record, as they come from a real run
  const recorded = retentionRun('drop', 1)
  recorded.summary.vacuums = [
    { ts: recorded.info.t0, action: cost.action, table: 'tsbs_cpu', duration_s: cost.duration_s, cost: cost.cost }
  ]
  recorded.summary.wraparound = wraparound
  const failed = retentionRun('drop', 2)
  failed.summary.wraparound = { error: 'the server log could not be read' }
  const cases = {
    retention: await synthetic('retention', [
      { name: 'drop', steps: [], runs: [retentionRun('drop', 1), retentionRun('drop', 2)] },
      { name: 'delete', steps: [], runs: [retentionRun('delete', 1), retentionRun('delete', 2)] }
    ]),
    fillfactor: await synthetic('fillfactor', [
      { name: 'ff70', steps: [], runs: [tgresRun('ff70', 1), tgresRun('ff70', 2)] }
    ]),
    'paced, no action': await synthetic('fleet', [{ name: 'ramp', steps: [], runs: [fleetRun(), fleetRun()] }]),
    'three repetitions, verdicts': await synthetic('verdicts', [
      vacuumVariant({
        name: 'vacuum',
        ratios: [0.8, 0.82, 0.79],
        p99Ratios: [1.5, 1.6, 1.4],
        throughputs: [1000, 1010, 990],
        p99s: [5000, 5100, 4900],
        duringS: 30
      }),
      vacuumVariant({
        name: 'freeze',
        ratios: [0.5, 0.52, 0.49],
        p99Ratios: [2.5, 2.6, 2.4],
        throughputs: [1000, 1010, 990],
        p99s: [5000, 5100, 4900],
        duringS: 5
      })
    ]),
    'vacuum cost and wraparound': await synthetic('recorded', [{ name: 'drop', steps: [], runs: [recorded, failed] }])
  }
  for (const [what, summary] of Object.entries(cases)) t.same(experimentSummaryProblems(summary), [], what)
  t.ok(cases['paced, no action'].variants[0].capacity, 'the paced runs have a capacity')
  t.equal(cases['paced, no action'].variants[0].repetitions[0].action, null, 'and no action')
  t.same(
    cases['three repetitions, verdicts'].comparisons.map((/** @type {any} */ c) => c.verdict),
    ['worse', 'worse'],
    'verdicts'
  )
  const both = cases['vacuum cost and wraparound'].variants[0]
  t.ok(both.vacuum_cost.repetitions[0], 'a vacuum cost')
  t.equal(both.vacuum_cost.repetitions[1], null, 'and a repetition without one')
  t.same(
    both.wraparound.map((/** @type {any} */ w) => w.error === undefined),
    [true, false],
    'a wraparound record, and one that failed'
  )
})

t.test('a broken summary fails on each problem, naming it', async t => {
  const problems = experimentSummaryProblems(await fixture('bad-experiment-mistyped-renamed.json'))
  const expected = [
    '/variants/0/repetitions/0/degradation_ratio must be number,null',
    "/variants/0/aggregate must have required property 'p99_ratio'",
    '/variants/0/aggregate must NOT have additional properties (p99ratio)',
    '/variants/1/server must NOT have additional properties (port)',
    '/comparisons/0/verdict must be equal to one of the allowed values',
    '/variants/0/vacuum_cost/mean/wal_bytes must be number,null'
  ]
  for (const line of expected) t.ok(problems.includes(line), line)
  t.same(
    problems.filter(p => / oneOf$| must be null$/.test(p)),
    [],
    'a field that may be null says only what is wrong with its object'
  )
})

t.test('changes a test makes to a real summary are caught', async t => {
  const base = await fixture('experiment-vacuum-pg18.json')
  /** @type {Array<[string, (s: any) => void, RegExp]>} */
  const cases = [
    [
      'a top-level field gone',
      s => {
        delete s.whole_run_method
      },
      /^\/ must have required property 'whole_run_method'$/
    ],
    [
      "an action's source unknown",
      s => {
        s.variants[0].repetitions[0].action.source = 'log'
      },
      /\/action\/source must be equal to one of the allowed values/
    ],
    [
      'a spread without its n',
      s => {
        delete s.variants[0].aggregate.throughput.before.n
      },
      /\/aggregate\/throughput\/before must have required property 'n'/
    ],
    [
      'a count below zero',
      s => {
        s.variants[0].repetitions[0].samples.during = -1
      },
      /\/samples\/during must be >= 0/
    ],
    [
      'a whole-run figure added',
      s => {
        s.variants[0].repetitions[0].whole_run.cpu = 1
      },
      /\/whole_run must NOT have additional properties \(cpu\)/
    ],
    [
      'a setting that is not text',
      s => {
        s.variants[0].server.settings.work_mem = 4096
      },
      /\/server\/settings\/work_mem must be string/
    ],
    [
      "a variant's server that is neither",
      s => {
        s.variants[0].server = 'pg18'
      },
      /^\/variants\/0\/server must be object or null$/
    ],
    [
      'a method sentence added',
      s => {
        s.method.median = 'the median'
      },
      /^\/method must NOT have additional properties \(median\)$/
    ]
  ]
  for (const [what, change, pattern] of cases) {
    const summary = structuredClone(base)
    change(summary)
    const problems = experimentSummaryProblems(summary)
    t.ok(
      problems.some(p => pattern.test(p)),
      `${what}: ${problems.join('; ')}`
    )
  }
})
