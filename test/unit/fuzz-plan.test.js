// Experiment plans, fuzzed: valid plans with one field made hostile, and
// plan files (YAML, JSON) mutated. Each is a plan whose every part the
// runner can use without a further check (the server's URL or profile, the
// waits, the concurrency), or is refused with one line (exit 2) before the
// runner creates anything.
import t from 'tap'
import fc from 'fast-check'
import YAML from 'yaml'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parsePlan, loadPlan } from '../../lib/experiment/plan.js'
import { parsePgUrl } from '../../lib/config/pg-url.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { MAX_TIMER_S } from '../../lib/helpers/durations.js'
import { fuzzTest, hostileText, jsonish, mutated, cliRefuses, cliSampleTest, sample } from '../helpers/fuzz.js'

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-fuzz-plan-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
await writeFile(path.join(dir, 'a.sql'), '\\set aid random(1, 100)\nSELECT :aid;\n')

const BASE = {
  name: 'fuzz-plan',
  server: { url: 'postgres://postgres@127.0.0.1:5432/test', data_dir: '/tmp/nowhere' },
  mix: 'insert_row=60,read_row=20,update_row=10,injected_error=5,fetch_max=5',
  concurrency: 4,
  stats_interval: '1s',
  prepare: {
    rows: 1000,
    concurrency: 2,
    actions: [{ action: 'vacuum', table: 'test_table', freeze: true }],
    snapshot: 'prepared'
  },
  variants: [
    {
      name: 'vacuum',
      steps: [
        { load: '10s' },
        { action: { action: 'vacuum', table: 'test_table' } },
        { wait: 'action', timeout: '5m' },
        { concurrency: 'x2' },
        { load: '5s', concurrency: 8 }
      ]
    },
    { name: 'freeze', steps: [{ wait: 'dead_fraction(test_table) < 0.05', timeout: 60 }, { concurrency: 3 }] }
  ],
  repetitions: 1
}
const TSBS = {
  name: 'ingest',
  workload: 'tsbs-cpu',
  options: { hosts: 10, interval: '10s', 'batch-size': 100 },
  prepare: { duration: '5s' },
  variants: [{ name: 'a', options: { 'insert-method': 'insert' }, steps: [{ load: '1m' }] }]
}
const PGBENCH = {
  name: 'pgb',
  scripts: ['a.sql@2'],
  builtins: ['select-only@1'],
  defines: { x: 1 },
  scale: 2,
  protocol: 'extended',
  prepare: { pgbench_init: { scale: 1, fillfactor: 90 }, duration: '5s' },
  variants: [{ name: 'v', steps: [{ load: 10 }] }]
}

// Paths into a plan, and hostile values to put there.
const PATHS = [
  ['name'],
  ['server'],
  ['server', 'url'],
  ['server', 'profile'],
  ['server', 'snapshot_driver'],
  ['server', 'bogus'],
  ['workload'],
  ['options'],
  ['options', 'hosts'],
  ['options', 'interval'],
  ['options', 'bogus'],
  ['scripts'],
  ['builtins'],
  ['defines'],
  ['scale'],
  ['protocol'],
  ['mix'],
  ['concurrency'],
  ['stats_interval'],
  ['prepare'],
  ['prepare', 'rows'],
  ['prepare', 'table_size'],
  ['prepare', 'duration'],
  ['prepare', 'mix'],
  ['prepare', 'actions'],
  ['prepare', 'snapshot'],
  ['prepare', 'pgbench_init'],
  ['prepare', 'pgbench_init', 'scale'],
  ['variants'],
  ['variants', 0],
  ['variants', 0, 'name'],
  ['variants', 0, 'steps'],
  ['variants', 0, 'steps', 0],
  ['variants', 0, 'steps', 0, 'load'],
  ['variants', 0, 'steps', 1, 'action'],
  ['variants', 0, 'steps', 2, 'timeout'],
  ['variants', 0, 'steps', 3, 'concurrency'],
  ['variants', 1, 'steps', 0, 'wait'],
  ['variants', 0, 'options'],
  ['repetitions'],
  ['bogus']
]
const STRINGS = hostileText([
  'x2',
  'x0',
  'x0.5',
  'x99999',
  '10s',
  '30d',
  '25d',
  '1h',
  'postgres://h/db',
  'postgres://h/db?sslmode=bogus',
  'http://h/db',
  'lab',
  'nosuch',
  '../../etc/passwd',
  'tsbs-cpu',
  'manta',
  'tgres',
  'fleet',
  'pgbench',
  'select-only@1',
  'tpcb',
  'nosuch.sql',
  'a.sql@x',
  'insert_row=1',
  'read_row=1e400',
  'dead_fraction(test_table) < 0.05',
  'action',
  'prepared',
  'simple',
  'zfs',
  '2 GB',
  'a b',
  'fuzz-plan'
])
// workload names are kept off paths: a path would import whatever file it names
const value = fc.oneof(
  jsonish,
  STRINGS.filter(s => !/[/\\]|\.m?js/.test(s)),
  fc.constantFrom(10001, 1e9, 2 ** 31, MAX_TIMER_S + 1, 86400 * 30, [], {}, ['a.sql'], { vacuum: 1 })
)

/**
 * A copy of plan with value at p (null: the key removed).
 * @param {any} plan
 * @param {(string | number)[]} p
 * @param {unknown} v
 */
function put(plan, p, v) {
  const copy = structuredClone(plan)
  let node = copy
  for (const key of p.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {}
    node = node[key]
  }
  const last = p[p.length - 1]
  if (v === null) delete node[last]
  else node[last] = v
  return copy
}

const plans = fc
  .tuple(
    fc.constantFrom(BASE, TSBS, PGBENCH),
    fc.array(fc.tuple(fc.constantFrom(...PATHS), fc.option(value)), { minLength: 1, maxLength: 3 })
  )
  .map(([base, changes]) => changes.reduce((plan, [p, v]) => put(plan, p, v), base))

/** @param {import('../../lib/experiment/plan.js').Plan} plan */
function wrongPlan(plan) {
  try {
    if (plan.server.kind === 'url') parsePgUrl(plan.server.url)
    else resolveProfile(plan.server.profile)
  } catch (err) {
    return `the runner would find: ${/** @type {Error} */ (err).message}`
  }
  const { load } = plan
  if (!(load.concurrency >= 1 && load.concurrency <= 10000)) return `concurrency ${load.concurrency}`
  if (!(load.statsIntervalS >= 0 && Number.isFinite(load.statsIntervalS))) {
    return `stats interval ${load.statsIntervalS}`
  }
  for (const variant of plan.variants) {
    for (const step of variant.steps) {
      if (step.seconds !== undefined && !(step.seconds >= 0 && step.seconds <= MAX_TIMER_S)) {
        return `${step.label}: ${step.seconds} s`
      }
      if (step.timeoutS !== undefined && !(step.timeoutS >= 0 && step.timeoutS <= MAX_TIMER_S)) {
        return `${step.label}: timeout ${step.timeoutS} s`
      }
      if (step.factor !== undefined && !(step.factor > 0 && Number.isFinite(step.factor))) {
        return `${step.label}: factor ${step.factor}`
      }
      if (step.concurrency !== undefined && !(step.concurrency >= 1 && step.concurrency <= 10000)) {
        return `${step.label}: concurrency ${step.concurrency}`
      }
    }
  }
  return null
}

// warm: the first plan imports its workload
await parsePlan(BASE, { baseDir: dir })
await parsePlan(TSBS, { baseDir: dir })
await parsePlan(PGBENCH, { baseDir: dir })

await fuzzTest(t, 'plans as data (parsePlan)', plans, plan => parsePlan(plan, { baseDir: dir }), {
  runs: 2000,
  valid: wrongPlan
})

const TEXTS = [YAML.stringify(BASE), YAML.stringify(TSBS), JSON.stringify(PGBENCH, null, 2)]
const YAML_PIECES = [
  '\n',
  '  ',
  '- ',
  ': ',
  '{',
  '}',
  '[',
  ']',
  '&a',
  '*a',
  '<<: *a',
  '!!binary',
  '!!js/function',
  '---\n',
  '? ',
  '|',
  '"',
  "'",
  '#',
  'load: 30d',
  'timeout: .inf',
  'concurrency: x0',
  '__proto__: {}'
]
let n = 0
const files = await fuzzTest(
  t,
  'plan files (loadPlan, YAML and JSON)',
  fc.tuple(mutated(fc.constantFrom(...TEXTS), YAML_PIECES), fc.boolean()),
  async ([text, json]) => {
    const name = path.join(dir, `p${n++ % 50}.${json ? 'json' : 'yaml'}`)
    await writeFile(name, text)
    return loadPlan(name)
  },
  { runs: 500, slowMs: 2000, valid: wrongPlan }
)

cliSampleTest(t, 'the CLI refuses a sample: exit 2, one line, --out not created', async t => {
  const bad = sample(
    files.refusals.map(input => /** @type {[string, boolean]} */ (input)[0]),
    4
  )
  const cases = [
    ...bad,
    YAML.stringify(put(BASE, ['server', 'url'], 'postgres://h:99999/db')),
    YAML.stringify(put(BASE, ['variants', 0, 'steps', 3, 'concurrency'], 'x0'))
  ]
  await Promise.all(
    cases.map(async (text, i) => {
      const name = path.join(dir, `cli-${i}.yaml`)
      await writeFile(name, text)
      return cliRefuses(t, s => ['experiment', name, '--out', s.dataDir], `plan ${JSON.stringify(text).slice(0, 60)}`)
    })
  )
})
