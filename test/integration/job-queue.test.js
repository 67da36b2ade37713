// The job-queue example (notes/workloads/job-queue.js), as docs/workloads.md
// runs it: its three request types do their work, and the bloat it leaves shows
// in the statistics: dead tuples of jobs on /metrics while it runs, and
// pgstattuple's dead and free space in its pages afterwards.
import t from 'tap'
import { CliRun, sleep } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { scrape, sampleValue } from '../helpers/prom.js'

const db = await createTestDatabase(t, 'job_queue')

t.test('the job queue runs, and its table bloats', async t => {
  const run = new CliRun(
    [
      'run',
      db.url,
      '--workload',
      'notes/workloads/job-queue.js',
      '-c',
      '8',
      '-d',
      '8',
      '--json',
      '-p',
      '0',
      '--stats-interval',
      '1'
    ],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await run.waitForStderr(/running job-queue/)
  let maxDead = 0
  let bloatEstimateSeen = false
  while (run.running) {
    await sleep(500)
    const page = await scrape(metricsUrl).catch(() => null)
    if (page === null) break
    maxDead = Math.max(maxDead, sampleValue(page.families, 'pg_stat_user_tables_n_dead_tup', { relname: 'jobs' }) ?? 0)
    if (sampleValue(page.families, 'pg_bloat_table_ratio', { relname: 'jobs' }) !== undefined) bloatEstimateSeen = true
  }
  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const summary = result.summary
  t.same(Object.keys(summary.requests), ['enqueue', 'dequeue', 'peek'], "the queue's request types")
  t.equal(summary.unexpected_failures, 0, `nothing failed: ${JSON.stringify(summary.errors)}`)
  const enqueued = summary.requests.enqueue.done
  const dequeued = summary.requests.dequeue.done - summary.requests.dequeue.not_found
  t.ok(enqueued > 1000 && dequeued > 1000, `jobs went in (${enqueued}) and out (${dequeued})`)
  const left = Number((await query(db.url, 'SELECT count(*)::bigint AS n FROM jobs')).rows[0].n)
  t.equal(left, enqueued - dequeued, 'every job taken was deleted, every other one is still queued')
  t.ok(maxDead > 0, `dead tuples of jobs showed on /metrics while it ran (up to ${maxDead})`)
  t.ok(bloatEstimateSeen, 'the bloat estimate of jobs is exported')
  await query(db.url, 'CREATE EXTENSION IF NOT EXISTS pgstattuple')
  const tuple = (
    await query(db.url, "SELECT table_len, tuple_len, dead_tuple_len + free_space AS waste FROM pgstattuple('jobs')")
  ).rows[0]
  // most of the table is not live rows: dead ones, free space, or (once
  // pruning or a vacuum has run, which a busy machine moves in time) the line
  // pointers of rows gone, which pgstattuple counts as neither
  t.ok(
    Number(tuple.tuple_len) < Number(tuple.table_len) / 2,
    `most of the table is not live rows (${tuple.tuple_len} of ${tuple.table_len} bytes; ${tuple.waste} dead, free)`
  )
})
