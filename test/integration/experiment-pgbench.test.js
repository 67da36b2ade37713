// An experiment on pgbench's tables: the prepare phase makes them
// (pgbench_init), the load is pgbench's tpcb-like script, and everything the
// experiment records follows the script's request type: the samples, each
// run's summary and the report's comparison. The TPC-B books still balance
// after rollbacks and freezes.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'
import { readExperimentSummary, readRunSummary } from '../helpers/summary-schema.js'

const PLAN = `
name: pgbench-small
server:
  embedded: true
  profile: default
builtins: [tpcb-like]
concurrency: 4
stats_interval: 1
prepare:
  pgbench_init: { scale: 1 }
  duration: 3s
  actions:
    - { action: vacuum, table: pgbench_accounts }
variants:
  - name: freeze
    steps:
      - load: 2s
      - action: { action: vacuum, table: pgbench_accounts, freeze: true }
      - wait: action
      - load: 2s
repetitions: 1
`

t.test('a plan of pgbench scripts runs, and its records name the script', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-exp-pgbench-'))
  await chmod(dir, 0o755) // the embedded server runs as postgres when we are root
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = path.join(dir, 'plan.yaml')
  await writeFile(plan, PLAN)
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', plan, '--out', out], { t })
  t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-800)}`)
  t.match(result.stderr, /prepare: pgbench's tables at scale 1/, 'the prepare phase made the tables')

  const rep = path.join(out, 'variants', 'freeze', 'rep-1')
  const runInfo = JSON.parse(await readFile(path.join(rep, 'run.json'), 'utf8'))
  t.same(runInfo.types, ['tpcb-like'], 'run.json: the script is the request type')
  t.equal(runInfo.table, 'pgbench_accounts', 'the built-in scripts watch pgbench_accounts')
  const summary = await readRunSummary(path.join(rep, 'summary.json'))
  t.same(Object.keys(summary.requests), ['tpcb-like'])
  t.ok(summary.requests['tpcb-like'].done > 100, `transactions ran (${summary.requests['tpcb-like'].done})`)
  t.equal(summary.unexpected_failures, 0, `no failure: ${JSON.stringify(summary.errors)}`)
  const samples = lines(await readFile(path.join(rep, 'samples.ndjson'), 'utf8')).map(line => JSON.parse(line))
  t.ok(
    samples.some(sample => sample.requests['tpcb-like']?.done > 0),
    'the samples count tpcb-like'
  )
  t.ok(
    samples.some(sample => sample.pg?.table === 'pgbench_accounts' && sample.pg.live_tuples > 0),
    'the samples follow pgbench_accounts'
  )
  const report = await readFile(path.join(out, 'report.html'), 'utf8')
  t.match(report, /tpcb-like/, 'the report names the script')
  const experimentSummary = await readExperimentSummary(path.join(out, 'summary.json'))
  t.equal(experimentSummary.variants?.[0]?.name, 'freeze', 'the comparison has the variant')
})
