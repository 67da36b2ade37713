// The known-answer suite's table and its dated block in docs/results.md.
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { machineLine, tableLines } from '../../benchmarks/known-answers/table.js'
import { addToResults } from '../../benchmarks/known-answers/results-doc.js'
import { suiteOptions } from '../../benchmarks/known-answers/index.js'

/** @type {import('../../benchmarks/known-answers/contract.js').KnownAnswerRow[]} */
const ROWS = [
  {
    part: 'capacity',
    scenario: 'pg_sleep(10 ms) | c=4',
    cases: 3,
    result: '350 req/s',
    truth: '355 req/s',
    error: '-1.4 %',
    target: '≤ 10 %',
    met: true
  },
  {
    part: 'bloat',
    scenario: 'wide\ntext',
    cases: 1,
    result: '40 %',
    truth: '30 %',
    error: '10 points',
    target: '≤ 5 points',
    met: false
  }
]

t.test('one row per scenario, bars escaped, a line per cell, the targets counted', async t => {
  const lines = tableLines(ROWS)
  t.equal(lines[0], '| part | scenario | cases | result | truth | error | target | met |')
  t.equal(lines[2], '| capacity | pg_sleep(10 ms) \\| c=4 | 3 | 350 req/s | 355 req/s | -1.4 % | ≤ 10 % | yes |')
  t.equal(lines[3], '| bloat | wide text | 1 | 40 % | 30 % | 10 points | ≤ 5 points | **no** |')
  t.equal(lines.at(-1), '1 of 2 targets met')
})

t.test('the machine line names the processor, the load and the day', async t => {
  const line = machineLine({
    cpu: 'AMD EPYC',
    cores: 2,
    loadBefore: 0.42,
    loadAfter: 4.25,
    node: 'v20.20.2',
    date: new Date('2026-11-27T12:00:00Z')
  })
  t.equal(line, '2026-11-27: AMD EPYC, 2 cores, load average 0.4 before and 4.3 after, Node v20.20.2')
})

t.test('each table goes first between the markers, the earlier ones kept', async t => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-answers-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'results.md')
  await writeFile(file, '# R\n\n<!-- known-answers:begin -->\n<!-- /known-answers -->\n\n## Next\n')
  await addToResults(file, 'first', ['| a |'])
  await addToResults(file, 'second', ['| b |'])
  const text = await readFile(file, 'utf8')
  t.match(text, /begin -->\n\n### second\n\n\| b \|\n\n### first\n\n\| a \|\n<!-- \/known-answers -->\n\n## Next\n$/)
  await writeFile(file, '# no block\n')
  await t.rejects(addToResults(file, 'x', []), /has no "<!-- known-answers:begin -->"/)
  t.equal(await readFile(file, 'utf8'), '# no block\n', 'a file without the block is left as it was')
})

t.test('the options: defaults, and a wrong one refused', async t => {
  const options = suiteOptions([])
  t.same(options.parts, ['change-points', 'incidents', 'capacity', 'bloat', 'plans'])
  t.equal(options.seed, 1)
  t.equal(options.quick, false)
  t.equal(options.busy, 0)
  t.same(suiteOptions(['--answer-parts', 'bloat', '--quick', '--busy', '4']).parts, ['bloat'])
  t.throws(() => suiteOptions(['--answer-parts', 'x']), /unknown part "x"/)
  t.throws(() => suiteOptions(['--seed', '1.5']), /--seed must be a whole number/)
  t.equal(options.incidentKinds, null, 'every incident kind by default')
  t.same(suiteOptions(['--incident-kinds', 'checkpoint,lock']).incidentKinds, ['checkpoint', 'lock'])
  t.throws(() => suiteOptions(['--incident-kinds', 'flood']), /unknown incident kind "flood" \(kinds: lock, cpu/)
})
