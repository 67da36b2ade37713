// A schedule that runs VACUUM FREEZE when the dead tuple fraction passes a
// threshold: it fires once, the events file holds its start and end with the
// duration, and the action metric shows it running meanwhile.
import t from 'tap'
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, lines } from '../helpers/cli.js'
import { createTestDatabase, query } from '../helpers/pg.js'
import { scrape, sampleValue } from '../helpers/prom.js'

t.test('VACUUM FREEZE when dead_fraction passes 0.1', async t => {
  const db = await createTestDatabase(t, 'schedule_when')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-schedule-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // Slow the vacuum down so that it is seen running (settings of the test
  // database only); no autovacuum gets in the way of the dead tuples.
  await query(db.adminUrl, `ALTER DATABASE ${db.name} SET vacuum_cost_delay = '10ms'`)
  await query(db.adminUrl, `ALTER DATABASE ${db.name} SET vacuum_cost_limit = 20`)
  await query(
    db.url,
    `CREATE TABLE test_table (id bigint NOT NULL, c1 text, c2 text, c3 text, c4 text, c5 text) WITH ` +
      `(autovacuum_enabled = off)`
  )
  await query(
    db.url,
    `INSERT INTO test_table SELECT g, md5(g::text), md5(g::text), md5(g::text), md5(g::text), ` +
      `md5(g::text) FROM generate_series(1, 60000) g`
  )
  await query(db.url, 'ANALYZE test_table')

  const schedule = path.join(dir, 'schedule.yaml')
  await writeFile(
    schedule,
    'actions:\n  - action: vacuum\n    table: test_table\n    freeze: true\n    when: ' +
      '"dead_fraction(test_table) > 0.1"\n'
  )
  const events = path.join(dir, 'events.ndjson')
  // Updates only: the dead fraction grows from zero.
  const run = new CliRun(
    [
      'run',
      db.url,
      '-c',
      '4',
      '-d',
      '25',
      '--json',
      '-p',
      '0',
      '--mix',
      'update_row=1',
      '--stats-interval',
      '1',
      '--schedule',
      schedule,
      '--events',
      events
    ],
    { t }
  )
  const metrics = await run.metricsUrl()

  let seenRunning = false
  while (run.running) {
    try {
      const { families } = await scrape(metrics)
      if (
        sampleValue(families, 'pgloadgen_sidecar_action_running', { action: 'vacuum_freeze', table: 'test_table' }) ===
        1
      ) {
        seenRunning = true
      }
    } catch {
      // not up yet, or between scrapes: try again
    }
    if (seenRunning) break
    await new Promise(resolve => setTimeout(resolve, 300))
  }
  const result = await run.exited
  t.equal(result.code, 0, 'the run ends normally')
  t.ok(seenRunning, 'pgloadgen_sidecar_action_running shows the freeze while it runs')
  t.equal(result.summary.unexpected_failures, 0, 'the load went on without unexpected errors')

  const recorded = lines(await readFile(events, 'utf8')).map(line => JSON.parse(line))
  const starts = recorded.filter(e => e.action === 'vacuum_freeze' && e.kind === 'start')
  const ends = recorded.filter(e => e.action === 'vacuum_freeze' && e.kind === 'end')
  t.equal(starts.length, 1, 'it fired once')
  t.equal(ends.length, 1, 'and ended once')
  t.equal(ends[0].ok, true, 'successfully')
  t.ok(ends[0].duration_s > 0, `with its duration (${ends[0].duration_s} s)`)
  t.equal(ends[0].table, 'test_table')
  t.ok(Date.parse(ends[0].ts) >= Date.parse(starts[0].ts), 'the end follows the start')
})
