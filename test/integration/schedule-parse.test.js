// Schedule files: a bad one given to `run --schedule` (or `sidecar
// --schedule`) is refused with exit 2 and one line naming the field, before
// anything touches the database; a good one runs its action during the load,
// records it in the events file and counts it in /metrics.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { CliRun, runCli, lines, sleep, waitFor } from '../helpers/cli.js'
import { createTestDatabase, listTables, sessionsOf } from '../helpers/pg.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { readEvents } from '../helpers/control.js'
import { assertConsistent } from '../helpers/summary.js'
import { BAD_SCHEDULES as cases } from '../fixtures/schedules/bad-schedules.js'

const db = await createTestDatabase(t, 'schedule')
const dir = await mkdtemp(path.join(os.tmpdir(), 'pgloadgen-schedule-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

t.test('bad schedule files: exit 2, one line naming the field, nothing runs', async t => {
  // the cases are independent processes: three at a time
  await t.test('each bad schedule', { jobs: 3 }, async t => {
    for (const [i, c] of cases.entries()) {
      t.test(c.name, async t => {
        const file = path.join(dir, `bad-${i}.${c.ext ?? 'yaml'}`)
        await writeFile(file, c.text)
        const events = path.join(dir, `bad-${i}.ndjson`)
        // Both commands read the file with the same loadSchedule: every
        // case through run, every fourth through sidecar as well.
        for (const command of i % 4 === 0 ? ['run', 'sidecar'] : ['run']) {
          const result = await runCli([command, db.url, '--schedule', file, '--events', events, '-p', '0', '-d', '3'], {
            t
          })
          t.equal(result.code, 2, `${command}, ${c.name}: exit 2`)
          const errorLines = lines(result.stderr)
          t.equal(errorLines.length, 1, `${command}, ${c.name}: one line: ${JSON.stringify(result.stderr)}`)
          t.match(errorLines[0] ?? '', /^pgloadgen: /, `${command}, ${c.name}: says who speaks`)
          t.match(errorLines[0] ?? '', c.problem, `${command}, ${c.name}: names the problem`)
          t.ok(result.elapsedMs < 10000, `${command}, ${c.name}: fails fast (${result.elapsedMs} ms)`)
        }
        t.same(await readEvents(events), [], `${c.name}: no events file written`)
      })
    }
  })
  const missing = await runCli(['run', db.url, '--schedule', path.join(dir, 'nowhere.yaml'), '-p', '0', '-d', '3'], {
    t
  })
  t.equal(missing.code, 2, 'a schedule file that does not exist: exit 2')
  t.match(missing.stderr, /cannot read schedule file .*nowhere\.yaml/, 'named')

  await sleep(500)
  const sessions = await sessionsOf(db.adminUrl, db.name)
  t.equal(sessions.sessions, 0, 'no session was ever opened on the test database')
  t.equal(sessions.backends, 0, 'none is open')
  t.same(await listTables(db.url), [], 'no table was created')
})

t.test('a good schedule: the checkpoint runs 1 s into the load, an event and a metric', async t => {
  const file = path.join(dir, 'good.yaml')
  await writeFile(file, 'actions:\n  - action: checkpoint\n    after: 1s\n')
  const events = path.join(dir, 'good.ndjson')
  const run = new CliRun(
    ['run', db.url, '-c', '2', '-d', '5', '-p', '0', '--json', '--schedule', file, '--events', events],
    { t }
  )
  const metricsUrl = await run.metricsUrl()
  await waitFor(async () => (await readEvents(events)).some(e => e.kind === 'end'), {
    what: 'the checkpoint to end',
    timeoutMs: 4000
  })
  const scrapedAtMs = Date.now()
  const { families } = await scrape(metricsUrl)
  t.equal(
    sampleValue(families, 'pgloadgen_sidecar_actions_total', { action: 'checkpoint', outcome: 'ok' }),
    1,
    'pgloadgen_sidecar_actions_total{action="checkpoint",outcome="ok"} 1'
  )
  t.equal(
    sampleValue(families, 'pgloadgen_sidecar_actions_total', { action: 'checkpoint', outcome: 'error' }) ?? 0,
    0,
    'no failed checkpoint'
  )
  t.equal(
    sampleValue(families, 'pgloadgen_sidecar_action_running', { action: 'checkpoint' }),
    0,
    'not running any more'
  )
  t.equal(
    sampleValue(families, 'pgloadgen_sidecar_events_total', { action: 'checkpoint', kind: 'start' }),
    1,
    'one start event counted'
  )

  const result = await run.exited
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  assertConsistent(t, result.summary, { concurrency: 2 })
  t.equal(result.summary.unexpected_failures, 0, 'no unexpected failure')
  const recorded = await readEvents(events)
  t.same(
    recorded.map(e => [e.kind, e.action]),
    [
      ['start', 'checkpoint'],
      ['end', 'checkpoint']
    ],
    "the checkpoint's start and end, once"
  )
  const [start, end] = recorded
  t.equal(end.ok, true, 'ok')
  t.ok(typeof end.duration_s === 'number' && end.duration_s >= 0, `duration_s ${end.duration_s}`)
  // Measured from the load's start, not the command's: a busy machine can
  // take seconds to start the command.
  const loadStartedMs = Date.parse(result.summary.started_at)
  t.ok(
    scrapedAtMs < Date.parse(result.summary.ended_at),
    `scraped while the run went on (${scrapedAtMs - loadStartedMs} ms into the load)`
  )
  const offset = Date.parse(start.ts) - loadStartedMs
  t.ok(offset >= 1000 && offset < 2500, `started 1 s into the load (${offset} ms after its start)`)
})
