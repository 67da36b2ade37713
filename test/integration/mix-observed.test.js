// The request mix as the server sees it: over 10,000 requests, each type's
// share is within 2 points of its weight (PostgreSQL 15, both workloads). A
// fixed count (-t) rather than a duration, so a loaded machine cannot shrink
// the sample: 2 points is four standard deviations of a 60 % share at 10,000.
import t from 'tap'
import { runCli } from '../helpers/cli.js'
import { createTestDatabase } from '../helpers/pg.js'
import {
  assertShares,
  assertConsistent,
  totals,
  injectedErrorCount,
  DEFAULT_WEIGHTS,
  REQUEST_TYPES,
  INJECTED_ERROR_MESSAGE
} from '../helpers/summary.js'

const db = await createTestDatabase(t, 'mix')

t.test('default mix, manta', async t => {
  const result = await runCli(['run', db.url, '-c', '4', '-t', '2500', '--json', '-p', '0', '--log-level', 'warn'], {
    t
  })
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const summary = result.summary
  t.ok(summary, 'a JSON summary on stdout')
  t.equal(summary.workload, 'manta')
  t.equal(summary.mix, 'insert_row=60,read_row=20,update_row=18,injected_error=1,fetch_max=1', 'the default mix')
  t.match(summary.server_version, /^15\./, 'ran against PostgreSQL 15')
  t.equal(summary.embedded, false)
  const { started } = totals(summary)
  t.equal(started, 10000, '4 clients × 2500 requests')
  assertShares(t, summary, DEFAULT_WEIGHTS, 2)
  assertConsistent(t, summary, { concurrency: 4 })

  // Only the injected errors fail, and they all fail, as expected failures.
  const injected = summary.requests.injected_error
  t.ok(injected.failed > 0, 'injected errors were sent')
  t.equal(injected.failed, injected.done, 'every injected error fails')
  for (const type of REQUEST_TYPES.filter(type => type !== 'injected_error')) {
    t.equal(summary.requests[type].failed, 0, `no ${type} failed`)
  }
  t.same(Object.keys(summary.errors).length, 1, 'one error message')
  t.match(Object.keys(summary.errors)[0], INJECTED_ERROR_MESSAGE)
  t.equal(injectedErrorCount(summary), injected.failed, "counted under the injected error's message")
  t.equal(summary.unexpected_failures, 0, 'no unexpected failure')
})

t.test('custom mix without injected errors, timeseries', async t => {
  const mix = { insert_row: 10, read_row: 30, update_row: 30, fetch_max: 30 }
  const mixArg = Object.entries(mix)
    .map(([type, weight]) => `${type}=${weight}`)
    .join(',')
  const result = await runCli(
    [
      'run',
      db.url,
      '-w',
      'timeseries',
      '--mix',
      mixArg,
      '-c',
      '4',
      '-t',
      '2500',
      '--json',
      '-p',
      '0',
      '--log-level',
      'warn'
    ],
    { t }
  )
  t.equal(result.code, 0, `exit 0; stderr: ${result.stderr}`)
  const summary = result.summary
  t.equal(summary.workload, 'timeseries')
  t.equal(
    summary.mix,
    'insert_row=10,read_row=30,update_row=30,injected_error=0,fetch_max=30',
    'the mix as given, the missing type at 0'
  )
  const { started, failed } = totals(summary)
  t.equal(started, 10000, '4 clients × 2500 requests')
  assertShares(t, summary, mix, 2)
  assertConsistent(t, summary, { concurrency: 4 })
  t.equal(failed, 0, 'nothing failed')
  t.same(summary.errors, {}, 'no error message')
  t.equal(summary.unexpected_failures, 0)
})
