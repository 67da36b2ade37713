// docs/summary.schema.json against summaries recorded from real runs (on
// PostgreSQL 15): each kind of run the schema describes passes, and a
// summary with a field renamed, retyped or unknown fails, naming it.
import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { summaryProblems } from '../helpers/summary-schema.js'

const DIR = new URL('../fixtures/summaries/', import.meta.url)

/** @param {string} name */
async function fixture(name) {
  return JSON.parse(await readFile(new URL(name, DIR), 'utf8'))
}

const files = (await readdir(DIR)).filter(name => name.endsWith('.json'))
// the experiments' summaries have their own schema (experiment-summary-schema.test.js)
const good = files.filter(name => !name.startsWith('bad-') && !name.startsWith('experiment-'))

t.test('every recorded summary follows the schema', async t => {
  t.ok(good.length >= 7, `${good.length} recorded summaries`)
  for (const name of good) t.same(summaryProblems(await fixture(name)), [], name)
})

t.test('the recorded summaries cover each mode and the optional blocks', async t => {
  const summaries = await Promise.all(good.map(fixture))
  const modes = new Set(summaries.map(s => s.mode))
  t.same([...modes].sort(), ['closed', 'open', 'paced'], 'closed, open and paced loads')
  for (const field of ['warmup', 'thresholds', 'stages', 'changes', 'vacuums', 'merged', 'instance']) {
    t.ok(
      summaries.some(s => s[field] !== undefined && s[field] !== null),
      `a summary with ${field}`
    )
  }
  t.ok(
    summaries.some(s => s.changes?.some((/** @type {any} */ c) => c.causes.length > 0)),
    'a change with its causes'
  )
})

t.test('a summary with a field retyped, renamed and unknown fails on each', async t => {
  const problems = summaryProblems(await fixture('bad-mistyped-renamed.json'))
  t.ok(
    problems.some(p => p.startsWith('/concurrency must be integer')),
    'concurrency given as text'
  )
  t.ok(
    problems.some(p => p === "/latency_us must have required property 'p99'"),
    'p99 renamed: missing'
  )
  t.ok(
    problems.some(p => p === '/latency_us must NOT have additional properties (p_99)'),
    'p99 renamed: unknown'
  )
  const unknownInType = '/requests/insert_row must NOT have additional properties (notfound)'
  t.ok(
    problems.some(p => p === unknownInType),
    'a field of a request type'
  )
})

t.test('changes a test makes to a real summary are caught', async t => {
  const base = await fixture('closed.json')
  /** @type {Array<[string, (s: any) => void, RegExp]>} */
  const cases = [
    [
      'a top-level field renamed',
      s => {
        s.elapsed = s.elapsed_s
        delete s.elapsed_s
      },
      /must have required property 'elapsed_s'/
    ],
    [
      'a mode that does not exist',
      s => {
        s.mode = 'burst'
      },
      /\/mode must be equal to one of the allowed values/
    ],
    [
      'an open loop without its rate',
      s => {
        s.mode = 'open'
      },
      /must have required property 'rate'/
    ],
    [
      'a histogram bucket that is not a pair',
      s => {
        s.histograms.latency.buckets.push([1])
      },
      /\/histograms\/latency\/buckets\/\d+ must NOT have fewer than 2 items/
    ],
    [
      'a count below zero',
      s => {
        s.reconnects = -1
      },
      /\/reconnects must be >= 0/
    ],
    [
      'a process figure added',
      s => {
        s.process.threads = 1
      },
      /\/process must NOT have additional properties \(threads\)/
    ]
  ]
  for (const [what, change, expected] of cases) {
    const summary = structuredClone(base)
    change(summary)
    const problems = summaryProblems(summary)
    t.ok(
      problems.some(p => expected.test(p)),
      `${what}: ${problems.join('; ')}`
    )
  }
})
