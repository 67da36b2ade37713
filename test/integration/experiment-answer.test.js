// A plan that states its question and expected effect, shortened for CI:
// its prepare phase loads in two batches (a vacuum after each), and the
// report and the end of `pgloadgen experiment` open with the question and
// its answer, before the tables.
import t from 'tap'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'

const PLAN = `
name: answer
question: Does a plain VACUUM of the table read its pages?
expect:
  - { figure: vacuum_pages_scanned, variant: vac, than: 0, direction: higher }
server: { embedded: true, profile: default }
workload: timeseries
concurrency: 2
prepare:
  rows: 2000
  batches: 2
  batch_actions:
    - { action: vacuum, table: cpu }
variants:
  - name: vac
    steps:
      - load: 2s
      - action: { action: vacuum, table: cpu }
      - wait: action
repetitions: 3
`

t.test('the report and the terminal end open with the question and its answer', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-answer-'))
  // the embedded server runs as postgres when we are root, and must get in
  await chmod(dir, 0o755)
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const plan = path.join(dir, 'plan.yaml')
  await writeFile(plan, PLAN)
  const out = path.join(dir, 'out')
  const result = await runCli(['experiment', plan, '--out', out, '-P', '0'], { t })
  t.equal(result.code, 0, `exit 0; stderr tail: ${result.stderr.slice(-500)}`)

  const events = (await readFile(path.join(out, 'prepare', 'events.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map(line => JSON.parse(line))
  t.same(
    events.filter(e => e.action === 'batch').map(e => e.detail.batch),
    [1],
    'the load paused once, after the first of two batches'
  )
  t.equal(events.filter(e => e.action === 'vacuum' && e.kind === 'end' && e.ok).length, 2, 'a vacuum after each batch')

  const lines = result.stderr.split('\n')
  const question = lines.indexOf('Question: Does a plain VACUUM of the table read its pages?')
  t.ok(question > 0, 'the end states the question')
  t.equal(lines[question + 1], 'Answer: yes: the expected effect appeared.', 'and its answer, next')
  t.match(lines.slice(question).join(' '), /Measured: a mean of \d+ pages \(95 % interval/, 'the measured effect')
  t.ok(question < lines.findIndex(l => l.startsWith('throughput, requests/s')), 'before the tables')
  t.ok(question > lines.findIndex(l => l.includes('info: report:')), 'at the end')

  const html = await readFile(path.join(out, 'report.html'), 'utf8')
  const answer = html.indexOf('<section class="answer"')
  t.ok(answer > 0, 'the report has the answer')
  t.match(html.slice(answer, answer + 2000), 'Answer: yes: the expected effect appeared.')
  t.ok(answer < html.indexOf('<table'), 'before the first table')
  t.ok(answer < html.indexOf('class="chart'), 'and the charts')
})
