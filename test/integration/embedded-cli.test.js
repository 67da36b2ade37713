// No URL given: the CLI initialises, starts and stops its own embedded
// PostgreSQL 18 in --data-dir, and the data stays there between runs. A server
// already running on the data directory is used and left running, unless the
// run that started it was killed outright: then the next run stops it.
import t from 'tap'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { CliRun, runCli, sleep } from '../helpers/cli.js'
import { countRows, query, withClient } from '../helpers/pg.js'
import { tempDataDir, startEmbedded } from '../helpers/embedded.js'
import { scrape, sampleValue } from '../helpers/prom.js'
import { waitConnected } from '../helpers/disruption.js'
import { assertShares, assertConsistent, totals, DEFAULT_WEIGHTS } from '../helpers/summary.js'

const dataDir = await tempDataDir(t)

t.test('first run: a new embedded server, started and stopped by the CLI', async t => {
  // The default profile ('lab'), as `npm start` uses it.
  const result = await runCli(['run', '--data-dir', dataDir, '-c', '8', '-d', '5', '--json', '-p', '0'], { t })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  t.match(result.stderr, /initialising a new PostgreSQL data directory/, 'the data directory is initialised')
  t.match(result.stderr, /embedded PostgreSQL started on 127\.0\.0\.1:\d+/, 'the server is started')
  t.match(result.stderr, /embedded PostgreSQL stopped/, 'the server is stopped at the end')
  const summary = result.summary
  t.ok(summary, 'a JSON summary')
  t.equal(summary.embedded, true, 'embedded')
  t.match(summary.server_version, /^18\./, 'PostgreSQL 18')
  t.match(
    summary.target,
    /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/pgloadgen$/,
    'the target, without the generated password'
  )
  t.ok(totals(summary).started >= 3000, `a few thousand requests (${totals(summary).started})`)
  assertShares(t, summary, DEFAULT_WEIGHTS, 2)
  assertConsistent(t, summary, { concurrency: 8 })
  t.equal(summary.unexpected_failures, 0, 'no failure but the injected errors')
  t.ok(summary.requests.injected_error.failed > 0, 'injected errors fail as expected')
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert missing')
  t.ok(summary.acknowledged_inserts > 0, 'inserts acknowledged')

  t.ok(existsSync(path.join(dataDir, 'PG_VERSION')), 'the data directory is kept')
  t.notOk(existsSync(path.join(dataDir, 'postmaster.pid')), 'no server runs on it any more')
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(summary.target)?.[1])
  await t.rejects(
    withClient(`postgres://postgres@127.0.0.1:${port}/postgres`, c => c.query('SELECT 1')),
    { code: 'ECONNREFUSED' },
    `nothing listens on its port (${port}) any more`
  )

  t.test('the rows stay in the data directory', async t => {
    const embedded = await startEmbedded(t, { dataDir })
    t.equal(
      await countRows(embedded.url, 'test_table'),
      summary.acknowledged_inserts,
      'the table holds exactly the acknowledged inserts'
    )
  })
})

t.test('a server already running on the data directory is used and left running; SIGINT stops the run', async t => {
  const embedded = await startEmbedded(t, { dataDir })
  const rowsBefore = await countRows(embedded.url, 'test_table')
  t.ok(rowsBefore > 0, 'the rows of the first run are there')
  const run = new CliRun(['run', '--data-dir', dataDir, '-c', '4', '--json', '-p', '0'], { t })
  const metricsUrl = await run.metricsUrl()
  await waitConnected(metricsUrl, embedded.url, 4)
  const page = await scrape(metricsUrl)
  t.match(
    page.families.get('pgloadgen_nconns')?.samples[0]?.labels.pgUrl,
    `postgres://postgres@127.0.0.1:${embedded.server.port}/pgloadgen`,
    'pgUrl: the embedded server, without the password'
  )
  t.equal(sampleValue(page.families, 'pgloadgen_nconns'), 4, 'connected')
  await sleep(1500)
  run.kill('SIGINT')
  const result = await run.exited
  t.equal(result.code, 0, `SIGINT: exit 0; stderr: ${result.stderr}`)
  t.match(result.stderr, /SIGINT received/)
  t.match(result.stderr, /using the embedded PostgreSQL already running/, 'the running server is used')
  t.notMatch(result.stderr, /embedded PostgreSQL stopped/, 'and not stopped')
  const summary = result.summary
  t.ok(summary, 'the summary is printed at SIGINT')
  assertConsistent(t, summary, { concurrency: 4 })
  t.equal(summary.unexpected_failures, 0)
  t.equal(summary.acknowledged_missing, 0, 'no acknowledged insert missing')
  t.equal(
    (await countRows(embedded.url, 'test_table')) - rowsBefore,
    summary.acknowledged_inserts,
    'the table gained exactly the acknowledged inserts'
  )
  t.equal((await query(embedded.url, 'SELECT 1 AS one')).rows[0].one, 1, 'the server still runs after the CLI exited')
})

t.test('a run killed outright leaves its server to the next run, which stops it at its end', async t => {
  const killed = new CliRun(['run', '--data-dir', dataDir, '-c', '2', '-p', '0', '--json'], { t })
  await killed.waitForStderr(/running manta/)
  const pidFile = path.join(dataDir, 'postmaster.pid')
  t.equal(
    Number(await readFile(path.join(dataDir, 'pgloadgen.owner'), 'utf8')),
    killed.child.pid,
    'the run that started the server is written as its owner'
  )
  killed.kill('SIGKILL')
  await killed.exited
  t.ok(existsSync(pidFile), 'SIGKILL: the server is still running')
  const port = Number((await readFile(pidFile, 'utf8')).split('\n')[3])

  const next = await runCli(['run', '--data-dir', dataDir, '-c', '2', '-d', '1', '-p', '0', '--json'], { t })
  t.equal(next.code, 0, `exit 0; stderr: ${next.stderr.slice(-300)}`)
  t.match(
    next.stderr,
    new RegExp(`left by a pgloadgen process that is gone \\(pid ${killed.child.pid}\\)`),
    'the next run says whose server it took over'
  )
  t.match(next.stderr, /embedded PostgreSQL stopped/, 'and stops it at its end')
  t.notOk(existsSync(pidFile), 'no server runs on the data directory any more')
  t.notOk(existsSync(path.join(dataDir, 'pgloadgen.owner')), 'and none is owned')
  await t.rejects(
    withClient(`postgres://postgres@127.0.0.1:${port}/postgres`, c => c.query('SELECT 1')),
    { code: 'ECONNREFUSED' },
    `nothing listens on its port (${port})`
  )
})
