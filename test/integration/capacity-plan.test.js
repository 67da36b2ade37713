// A plan's capacity step end to end on the embedded PostgreSQL 18: the
// example plan (notes/experiments/capacity-manta.yaml), shortened, runs its
// variant's load, pauses it for the search, resumes it; the result is in
// capacity-1.json and an event of the variant, and the report is written.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { runCli, REPO } from '../helpers/cli.js'
import { readRunSummary } from '../helpers/summary-schema.js'

t.test("capacity-manta, shortened: the step's result, its event, the variant's load around it", async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-capacity-plan-'))
  // the embedded server runs as postgres when we are root, and must get in
  await chmod(dir, 0o755)
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = YAML.parse(await readFile(path.join(REPO, 'notes', 'experiments', 'capacity-manta.yaml'), 'utf8'))
  plan.prepare.duration = '2s'
  // steps of a second, one at each end of a bracket within 50 %: a few seconds of search
  plan.variants = [
    {
      name: 'p99',
      steps: [
        { load: '2s' },
        {
          capacity: ['p99<2s', 'lag_p99<2s'],
          start_rate: 50,
          max_rate: 400,
          step: '1s',
          settle: '0.5s',
          repeats: 1,
          resolution: 0.5,
          concurrency: 8
        },
        { load: '2s' }
      ]
    }
  ]
  // the plan's expected effect compares two variants; this shortened plan has one
  delete plan.expect
  const planFile = path.join(dir, 'capacity.yaml')
  await writeFile(planFile, YAML.stringify(plan))
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', planFile, '--out', out], { t })
  t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-600)}`)
  t.match(
    result.stderr,
    /variants\[0\]\.steps\[1\]: capacity: (above|[\d.]+ requests\/s \()/,
    'the result line in the log'
  )

  const rep = path.join(out, 'variants', 'p99', 'rep-1')
  const capacity = JSON.parse(await readFile(path.join(rep, 'capacity-1.json'), 'utf8'))
  t.equal(capacity.objective, 'p99<2s and lag_p99<2s')
  t.ok(capacity.steps.length >= 2, `${capacity.steps.length} steps`)
  t.equal(capacity.steps[0].rate, 50)
  t.ok(['above_max', 'bracketed', 'unsettled'].includes(capacity.verdict), capacity.verdict)
  t.ok(capacity.capacity >= 50, `capacity ${capacity.capacity}`)
  t.equal(capacity.session.workload, 'manta')
  t.equal(capacity.session.concurrency, 8)
  t.equal(capacity.session.acknowledged_missing, 0, "the search's inserts are all in the table")

  const events = (await readFile(path.join(rep, 'events.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map(line => JSON.parse(line))
  const event = events.find(e => e.action === 'capacity')
  t.ok(event, 'a capacity event')
  t.equal(event?.detail.capacity, capacity.capacity)
  // the variant's own load ran before and after the search, and lost nothing
  const summary = await readRunSummary(path.join(rep, 'summary.json'))
  t.equal(summary.mode, 'closed')
  t.ok(summary.throughput > 0, "the variant's load ran")
  t.equal(summary.acknowledged_missing, 0)
  t.ok(await readFile(path.join(out, 'report.html'), 'utf8'), 'the report is written')
})
