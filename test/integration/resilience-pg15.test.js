// PostgreSQL 15: the generator's backends terminated mid-run (both
// workloads), and a server that cannot be reached at start.
import t from 'tap'
import { runCli, lines } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import { terminationScenario } from '../helpers/disruption.js'
import { freePort } from '../../lib/embedded/server.js'

const db = await createTestDatabase(t, 'resilience')

t.test('backends terminated mid-run, manta', async t => {
  await terminationScenario(t, { url: db.url, workload: 'manta', table: 'test_table', concurrency: 4, rounds: 2 })
})

t.test('backends terminated mid-run, timeseries', async t => {
  await terminationScenario(t, { url: db.url, workload: 'timeseries', table: 'cpu', concurrency: 4, rounds: 1 })
})

t.test('a server that cannot be reached: one line, non-zero exit, bounded wait', async t => {
  const port = await freePort() // nothing listens there
  const result = await runCli(
    [
      'run',
      `postgres://postgres:s3cret@127.0.0.1:${port}/test`,
      '-p',
      '0',
      '--connect-timeout',
      '2',
      '--log-level',
      'warn'
    ],
    { t }
  )
  t.not(result.code, 0, `non-zero exit (${result.code})`)
  t.not(result.code, 2, 'not a usage error')
  const errorLines = lines(result.stderr)
  t.equal(errorLines.length, 1, `one line: ${JSON.stringify(result.stderr)}`)
  t.match(errorLines[0], new RegExp(`cannot connect to .*127\\.0\\.0\\.1:${port}`), 'it says what it could not reach')
  t.notMatch(result.stderr, 's3cret', 'without the password')
  t.ok(result.elapsedMs < 8000, `gives up after about the connect timeout (${result.elapsedMs} ms)`)
  t.equal(result.stdout, '', 'no summary')
})
