// What changed in a recorded run, and why, on the PostgreSQL 15 server: a
// session that takes an ACCESS EXCLUSIVE lock on the workload's table in
// the middle of a run stops every client for a while. The change is found
// within a few seconds of the lock, its cause (the lock wait, the
// blocking session's application_name) is named in summary.json, in the
// end table and in the report; and a steady run reports no change but what
// other processes did to the shared machine and server.
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { measuringAlone } from '../helpers/exclusive.js'
import { CliRun, runCli, sleep, waitFor } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { readRunSummary } from '../helpers/summary-schema.js'

const { url } = await createTestDatabase(t, 'explain')
// causes that are other processes' doings on the shared machine and server
const OTHERS_DOINGS = new Set(['cpu_contention', 'host', 'checkpoint', 'vacuum', 'vacuum_phase', 'connection_slots'])
const work = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-explain-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

/** @param {string} dir */
async function samplesSoFar(dir) {
  const text = await readFile(path.join(dir, 'samples.ndjson'), 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line))
}

t.test('a lock held on the table mid-run: the change, its moment and its cause', async t => {
  const dir = path.join(work, 'locked')
  const run = new CliRun(
    ['run', url, '-d', '50', '-c', '4', '-p', '0', '--reset', '--record', dir, '--log-level', 'warn'],
    { t }
  )
  await waitFor(async () => (await samplesSoFar(dir)).length >= 15, { timeoutMs: 60000, what: '15 s of samples' })
  const holder = new pg.Client({ connectionString: url, application_name: 'lock-holder' })
  await holder.connect()
  t.teardown(() => holder.end().catch(() => {}))
  await holder.query('BEGIN')
  await holder.query('LOCK TABLE test_table IN ACCESS EXCLUSIVE MODE')
  const samples = await samplesSoFar(dir)
  const lockedAt = samples[samples.length - 1].elapsed_s
  await sleep(12000)
  await holder.query('COMMIT')
  const result = await run.exited
  t.equal(result.code, 0, `the run succeeds (stderr: ${result.stderr.trim().slice(-400)})`)

  const summary = await readRunSummary(path.join(dir, 'summary.json'))
  t.ok(Array.isArray(summary.changes), 'summary.json has changes')
  const drop = summary.changes.find(
    (/** @type {any} */ c) => c.metric === 'throughput' && c.effect < -0.5 && Math.abs(c.at_s - lockedAt) <= 4
  )
  t.ok(
    drop,
    `throughput falls within 4 s of the lock at ${lockedAt} s (changes: ` +
      `${JSON.stringify(summary.changes.map((/** @type {any} */ c) => [c.at_s, c.metric, c.effect]))})`
  )
  t.ok(
    drop?.before.low <= drop?.before.median && drop?.before.median <= drop?.before.high,
    'the level before has its interval'
  )
  t.ok(
    drop?.causes.some((/** @type {any} */ c) => c.kind === 'lock_wait' && /lock-holder/.test(c.label)),
    `its cause is the lock wait behind lock-holder (${JSON.stringify(drop?.causes)})`
  )
  const back = summary.changes.find(
    (/** @type {any} */ c) =>
      c.metric === 'throughput' && (c.effect === null || c.effect > 0.5) && Math.abs(c.at_s - (lockedAt + 12)) <= 4
  )
  t.ok(back, 'throughput comes back when the lock is released, and that is a change too')
  t.match(result.stderr, /what changed:/, 'the end table has its "what changed" block')
  t.match(result.stderr, /lock-holder/, 'the end table names the blocking session')
  const block = result.stderr.split('\n')
  const start = block.findIndex(line => line.includes('what changed:'))
  const blockLines = block.slice(start).filter((line, i) => i === 0 || line.startsWith('  ')).length
  t.ok(blockLines <= 5, `the block is at most five lines (${blockLines})`)

  const report = await runCli(['report', dir], { t })
  t.equal(report.code, 0, 'the report is written')
  const html = await readFile(path.join(dir, 'report.html'), 'utf8')
  t.match(html, /What changed/, 'the report has its "What changed" timeline')
  t.match(html, /lock-holder/, 'the report names the blocking session')
  t.match(html, /changed: [^"]*throughput/, 'the charts are marked where the run changed')
})

t.test('a steady run reports no change it cannot account for', async t => {
  const dir = path.join(work, 'steady')
  // not beside the other file whose run must change (explain-pgbench.test.js)
  const result = await measuringAlone(() =>
    runCli(['run', url, '-d', '60', '-c', '4', '-p', '0', '--reset', '--record', dir, '--log-level', 'warn'], { t })
  )
  t.equal(result.code, 0, 'the run succeeds')
  const summary = await readRunSummary(path.join(dir, 'summary.json'))
  t.ok(Array.isArray(summary.changes), 'summary.json has changes')
  // The machine and the server are shared with the other test files: one
  // takes the CPU, another checkpoints or vacuums its tables. A change the
  // lab names as such is a right answer about this run, not a false one;
  // a change named after nothing, or after the run itself, is one.
  const unaccounted = summary.changes.filter(
    (/** @type {any} */ c) => !c.causes.some((/** @type {any} */ x) => OTHERS_DOINGS.has(x.kind))
  )
  t.same(unaccounted, [], `no change but those named as others' doings (${JSON.stringify(summary.changes)})`)
  if (summary.changes.length === 0)
    t.match(result.stderr, /what changed: nothing/, 'the end table says nothing changed')
  const samples = await samplesSoFar(dir)
  const last = samples[samples.length - 1]
  t.ok(
    last.server &&
      Array.isArray(last.server.vacuums) &&
      Array.isArray(last.server.horizon) &&
      last.server.checkpoints &&
      last.server.locks,
    "each sample has the server's vacuums, xmin holders, checkpoints and lock waits"
  )
  t.ok(last.host && typeof last.host.iowait_pct === 'number', "and the machine's CPU")
  t.ok(
    typeof last.server.database?.xid_age === 'number' && typeof last.server.database?.mxid_age === 'number',
    "and the database's xid and multixact ages"
  )
  t.ok(typeof last.pg?.mxid_age === 'number', "and the table's multixact age")
  t.ok(
    last.memory && last.memory.rss > last.memory.heap_used && last.memory.heap_used > 0 && last.memory.external > 0,
    `and the generator's memory (${JSON.stringify(last.memory)})`
  )
})
