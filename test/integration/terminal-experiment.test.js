// pgloadgen experiment with stderr piped, as in a log file: a progress
// line a second (-P 1) naming the phase, the variant, the repetition and
// the time left, then the report's comparison table in text; plain text,
// no escape code or control character anywhere.
import t from 'tap'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli, lines } from '../helpers/cli.js'

const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-terminal-exp-'))
// the embedded server runs as postgres when we are root, and must get in
await chmod(work, 0o755)
t.teardown(() => rm(work, { recursive: true, force: true }))

const PLAN = `
name: tiny
server:
  embedded: true
  profile: default
workload: manta
concurrency: 2
stats_interval: 1
prepare:
  duration: 2s
variants:
  - name: plain
    steps:
      - load: 2s
  - name: vacuumed
    steps:
      - load: 1s
      - action: { action: vacuum, table: test_table }
      - wait: action
      - load: 1s
repetitions: 1
`

// anything but a newline below U+0020, DEL, and the C1 controls (ESC included)
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/ // eslint-disable-line no-control-regex

t.test("an experiment's progress and comparison table, piped", async t => {
  const plan = path.join(work, 'plan.yaml')
  await writeFile(plan, PLAN)
  const out = path.join(work, 'out')
  const result = await runCli(['experiment', plan, '--out', out, '-P', '1'], { t })
  t.equal(result.code, 0, `exit 0: ${result.stderr.slice(-400)}`)
  t.notOk(CONTROL.test(result.stderr), 'stderr is plain text: no escape code, no control character')
  const all = lines(result.stderr)
  t.ok(
    all.some(line => /^pgloadgen info: prepare, \d+ s in: [\d.]+ requests\/s, p99 [\d.-]+ ms, \d+ failed$/.test(line)),
    "the prepare phase's progress"
  )
  const variantLines = all.filter(line =>
    /^pgloadgen info: variant (plain|vacuumed), repetition 1\/1 \(run [12] of 2\), \d+ s in: [\d.]+ requests\/s, p99 [\d.-]+ ms, \d+ failed; (at least )?\d+ s left$/.test(
      line
    )
  )
  t.ok(
    variantLines.some(line => line.includes('variant plain')) &&
      variantLines.some(line => line.includes('variant vacuumed')),
    `each variant's progress, with the time left: ${variantLines.join(' | ')}`
  )
  t.match(
    result.stderr,
    /^throughput, requests\/s \(ratio: during \/ before\)\nvariant +reps +before +during +after +ratio +95 % CI +vs plain\nplain +1 .*baseline\nvacuumed +1 /m,
    'the comparison table, a row per variant'
  )
  t.match(result.stderr, /^p99 latency, ms/m, 'and its latency half')
  t.match(result.stderr, new RegExp(`^report: ${out}/report.html$`, 'm'), 'where the report went')
})
