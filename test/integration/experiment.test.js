// Experiments end to end on the embedded server, with a plan small enough
// for CI: prepare, snapshot, two variants twice each from a rollback, report.
import t from 'tap'
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines, REPO } from '../helpers/cli.js'
import { loadPlan } from '../../lib/experiment/plan.js'
import { resolveProfile } from '../../lib/embedded/profile.js'
import { readExperimentSummary, readRunSummary } from '../helpers/summary-schema.js'

/** @param {import('tap').Test} t */
async function tempDir(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-exp-'))
  // the embedded server runs as postgres when we are root, and must get in
  await chmod(dir, 0o755)
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const SMALL_PLAN = `
name: small
server:
  embedded: true
  profile: default
workload: manta
concurrency: 4
stats_interval: 1
prepare:
  rows: 20000
  actions:
    - { action: vacuum, table: test_table, analyze: true }
variants:
  - name: freeze
    steps:
      - load: 3s
      - action: { action: vacuum, table: test_table, freeze: true }
      - wait: action
      - load: 3s
  - name: vacuum
    steps:
      - load: 3s
      - action: { action: vacuum, table: test_table }
      - wait: action
      - concurrency: x2
      - load: 3s
repetitions: 2
`

t.test('a small plan runs end to end and writes samples, events, summary and report', async t => {
  const dir = await tempDir(t)
  const plan = path.join(dir, 'plan.yaml')
  await writeFile(plan, SMALL_PLAN)
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', plan, '--out', out], { t })
  t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-500)}`)

  const experiment = JSON.parse(await readFile(path.join(out, 'experiment.json'), 'utf8'))
  t.equal(experiment.name, 'small')
  t.match(experiment.postgres_version, /^18/)
  t.ok(experiment.ended_at, 'the end time is recorded')

  const summary = await readExperimentSummary(path.join(out, 'summary.json'))
  t.same(
    summary.variants.map((/** @type {{ name: string }} */ v) => v.name),
    ['freeze', 'vacuum']
  )
  for (const variant of summary.variants) {
    t.equal(variant.repetitions.length, 2, `${variant.name}: two repetitions`)
    for (const rep of variant.repetitions) {
      for (const phase of ['before', 'during', 'after'])
        t.ok(rep.throughput[phase] > 0, `${variant.name}: throughput ${phase} the vacuum`)
      t.ok(rep.degradation_ratio > 0, `${variant.name}: a degradation ratio`)
    }
    t.ok(variant.aggregate.throughput.before.spread >= 0, `${variant.name}: spread across repetitions`)
  }

  for (const variant of ['freeze', 'vacuum']) {
    for (const rep of ['rep-1', 'rep-2']) {
      const runDir = path.join(out, 'variants', variant, rep)
      const files = await readdir(runDir)
      for (const file of ['run.json', 'samples.ndjson', 'events.ndjson', 'summary.json'])
        t.ok(files.includes(file), `${variant}/${rep} has ${file}`)
      const samples = lines(await readFile(path.join(runDir, 'samples.ndjson'), 'utf8')).map(l => JSON.parse(l))
      t.ok(samples.length >= 5, `${variant}/${rep}: a sample a second`)
      t.ok(
        samples.some(s => s.pg && s.pg.live_tuples > 0),
        `${variant}/${rep}: PostgreSQL figures in the samples`
      )
      const events = lines(await readFile(path.join(runDir, 'events.ndjson'), 'utf8')).map(l => JSON.parse(l))
      t.ok(
        events.some(e => e.action === 'rollback' && e.kind === 'end'),
        `${variant}/${rep}: the rollback is an event`
      )
      const action = variant === 'freeze' ? 'vacuum_freeze' : 'vacuum'
      const end = events.find(e => e.action === action && e.kind === 'end')
      t.ok(end && end.ok && end.duration_s >= 0, `${variant}/${rep}: the vacuum's end with its duration`)
      const run = JSON.parse(await readFile(path.join(runDir, 'run.json'), 'utf8'))
      t.ok(run.t0 && run.settings && run.postgres_version, `${variant}/${rep}: run.json describes the run`)
      const runSummary = await readRunSummary(path.join(runDir, 'summary.json'))
      t.equal(runSummary.unexpected_failures, 0, `${variant}/${rep}: no unexpected failures`)
    }
  }
  const prepareEvents = lines(await readFile(path.join(out, 'prepare', 'events.ndjson'), 'utf8')).map(l =>
    JSON.parse(l)
  )
  t.same(
    prepareEvents.filter(e => e.kind !== 'point').map(e => `${e.kind}:${e.action}`),
    ['start:vacuum', 'end:vacuum'],
    'the prepare phase ran its vacuum before the snapshot'
  )
  t.equal(prepareEvents.find(e => e.kind === 'end')?.ok, true, 'and it succeeded')
  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  t.match(html, /<html/i, 'report.html is written')
  t.notMatch(html, /src="http/, 'the report loads nothing from the network')
})

const BAD_PLANS = [
  {
    name: 'unknown step',
    plan: SMALL_PLAN.replace(
      '- load: 3s\n      - action: { action: vacuum, table: test_table, freeze: true }',
      '- jump: 3s\n      - action: { action: vacuum, table: test_table, freeze: true }'
    ),
    field: /variants\[0\]\.steps\[0\]: unknown step "jump"/
  },
  { name: 'missing name', plan: SMALL_PLAN.replace('name: small\n', ''), field: /^pgloadgen: name: missing/ },
  {
    name: 'no prepare phase to roll back to',
    plan: SMALL_PLAN.replace(/prepare:\n( {2}.*\n)+/, ''),
    field: /prepare: missing/
  },
  {
    name: 'unknown action in the prepare phase',
    plan: SMALL_PLAN.replace(
      '{ action: vacuum, table: test_table, analyze: true }',
      '{ action: vacuum, tabel: test_table }'
    ),
    field: /prepare\.actions\[0\]\.tabel: unknown field/
  },
  {
    name: 'unknown action',
    plan: SMALL_PLAN.replace('{ action: vacuum, table: test_table }', '{ action: explode }'),
    field: /variants\[1\]\.steps\[1\]\.action\.action/
  },
  {
    name: 'bad condition',
    plan: SMALL_PLAN.replace(
      '- wait: action\n      - concurrency',
      '- wait: "dead(test_table) >> 2"\n      - concurrency'
    ),
    field: /variants\[1\]\.steps\[2\]\.wait/
  },
  {
    name: 'repetitions not a number',
    plan: SMALL_PLAN.replace('repetitions: 2', 'repetitions: two'),
    field: /repetitions: expected a whole number/
  }
]

t.test('bad plans are refused before anything runs, with the field named', async t => {
  const dir = await tempDir(t)
  for (const bad of BAD_PLANS) {
    const plan = path.join(dir, `${bad.name.replace(/\W+/g, '-')}.yaml`)
    await writeFile(plan, bad.plan)
    const out = path.join(dir, `out-${bad.name.replace(/\W+/g, '-')}`)
    const result = await runCli(['experiment', plan, '--out', out], { t })
    t.equal(result.code, 2, `${bad.name}: exit 2`)
    const errorLines = lines(result.stderr)
    t.equal(errorLines.length, 1, `${bad.name}: one line: ${result.stderr}`)
    t.match(errorLines[0], bad.field, `${bad.name}: names the field`)
    await t.rejects(readdir(out), `${bad.name}: nothing was created`)
  }
})

t.test('every plan shipped in notes/experiments is valid and names a profile that exists', async t => {
  const dir = path.join(REPO, 'notes', 'experiments')
  const files = (await readdir(dir)).filter(f => /\.(ya?ml|json)$/.test(f))
  t.ok(files.length >= 5, `plans shipped: ${files.join(', ')}`)
  for (const file of files) {
    const plan = await loadPlan(path.join(dir, file))
    t.equal(`${plan.name}.yaml`, file, `${file}: its name is its file's`)
    if (plan.server.kind === 'embedded') {
      t.ok(resolveProfile(plan.server.profile), `${file}: profile ${plan.server.profile} exists`)
    }
    t.ok(plan.variants.length >= 1 && plan.variants.every(v => v.steps.length >= 1), `${file}: variants with steps`)
  }
})
